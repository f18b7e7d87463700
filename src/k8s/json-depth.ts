// How deeply JSON text nests, measured without parsing or recursion (brackets outside strings).
//
// Every walker of a request (Ajv, structuredClone, the capture sanitiser, JSON.stringify of the
// answer) recurses, and V8 runs out of stack a few thousand levels down (structuredClone already
// near 4,000): a body nested that deep was a 500. Bodies and the JSON the hooks parse out of strings
// (last-applied annotations) are therefore bounded at MAX_JSON_DEPTH. No real Kubernetes object
// comes near it: the c5c3.io CRDs are structural (unknown fields are pruned, so a spec nests at
// most as deep as its schema, about 10 levels), the child kinds' schemas are of the same order,
// and managedFields mirror the object's own depth. 512 leaves a wide margin above that and a wide
// margin below the stack, so everything under it is handled, recursion and all.
export const MAX_JSON_DEPTH = 512;

/**
 * The offset of the first bracket nesting deeper than `max` in `text`, or -1 when none does.
 * Text that is not JSON is measured all the same (the parser refuses it afterwards).
 */
export function deeperThan(text: string, max: number = MAX_JSON_DEPTH): number {
  return scanJson(text, max).deeperAt;
}

/**
 * Where a request's observed objects are in its text (the benchmark's partial floor reads a body
 * with them: bench/server.mjs): filled by scanJson when given. `tops` are the keys of the outer object in order (as written, quotes included); `groups`
 * the groups of `children` and `related` in order, each with its keys and the span of each value
 * that is an object or array (start = -1 for any other value). Keys are recorded as written.
 */
export interface ScannedParts {
  tops: string[];
  groups: { top: string; key: string; entries: { key: string; start: number; end: number }[] }[];
}

/** The outer keys whose values hold the observed objects (children, related), as written. */
const OBJECT_MAPS = new Set(['"children"', '"related"']);

/**
 * One pass over `text`: the offset of the first bracket nesting deeper than `max` (-1 when none;
 * the scan stops there), and the objects and arrays it opens (brackets outside strings). With
 * `parts`, also where the observed objects are (ScannedParts): keys are only looked at in the
 * three outer levels, so the rest of the text costs what it cost without.
 */
export function scanJson(text: string, max: number = MAX_JSON_DEPTH, parts?: ScannedParts): { deeperAt: number; containers: number } {
  let depth = 0;
  let containers = 0;
  // With parts: the last key seen at depths 1–3, and the group and entry being filled.
  let top = '';
  let group: ScannedParts['groups'][number] | undefined;
  let entry: ScannedParts['groups'][number]['entries'][number] | undefined;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22 /* " */) {
      // A string: jump to its closing quote (indexOf is native; most of a body is string content,
      // last-applied annotations above all). A quote preceded by an odd run of backslashes is
      // escaped; the run cannot reach past the opening quote. Unterminated: nothing deeper follows.
      let end = i;
      for (;;) {
        end = text.indexOf('"', end + 1);
        if (end < 0) return { deeperAt: -1, containers };
        let backslashes = 0;
        while (text.charCodeAt(end - 1 - backslashes) === 0x5c /* \ */) backslashes++;
        if (backslashes % 2 === 0) break;
      }
      if (parts !== undefined && depth <= 3 && isKeyAt(text, end + 1)) {
        const key = text.slice(i, end + 1);
        if (depth === 1) {
          top = key;
          parts.tops.push(key);
        } else if (depth === 2 && OBJECT_MAPS.has(top)) parts.groups.push((group = { top, key, entries: [] }));
        else if (depth === 3 && group !== undefined) group.entries.push((entry = { key, start: -1, end: -1 }));
      }
      i = end;
    } else if (c === 0x7b /* { */ || c === 0x5b /* [ */) {
      containers++;
      if (++depth > max) return { deeperAt: i, containers };
      if (parts !== undefined) {
        if (depth === 2 && !OBJECT_MAPS.has(top)) group = undefined;
        else if (depth === 4 && entry !== undefined) entry.start = i;
      }
    } else if (c === 0x7d /* } */ || c === 0x5d /* ] */) {
      if (parts !== undefined) {
        if (depth === 4 && entry !== undefined) {
          entry.end = i + 1;
          entry = undefined;
        } else if (depth === 3) {
          group = undefined;
          entry = undefined;
        }
      }
      depth--;
    }
  }
  return { deeperAt: -1, containers };
}

/** Whether the string ending before `at` is a key: the next character past white space is a colon. */
function isKeyAt(text: string, at: number): boolean {
  for (let i = at; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x3a /* : */) return true;
    if (c !== 0x20 && c !== 0x0a && c !== 0x0d && c !== 0x09) return false;
  }
  return false;
}

/** JSON.parse of `text` when it nests at most `max` levels; undefined when deeper or not JSON. */
export function parseBounded(text: string, max: number = MAX_JSON_DEPTH): unknown {
  if (deeperThan(text, max) >= 0) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
