// The text each observed object of a hook request was parsed from, and its digest: what lets a
// stage result be kept by what the stage reads (controlplane/stage-memo.ts). A fleet's requests
// never repeat whole (another ControlPlane comes in between, or the parent's resourceVersion moved
// on), but each object in them mostly does; its text is compared through a SHA-256 digest, so
// nothing of a request is held to compare the next one with.
//
// The body parser (json-body.ts) scans the text once anyway (its depth and density); with
// ScannedParts the scan also notes where each value of `children` and `related` is (json-depth.ts).
// After JSON.parse the notes are matched with the parsed objects by their keys, in order: the keys
// parsed must be exactly the keys written, group by group (a duplicate key, which JSON.parse folds
// into one, or a key V8 orders first because it reads as an integer, leaves that map unmatched,
// and its objects without a digest). An object without a digest is one whose reads cannot be
// keyed: a stage that reads it is computed afresh, never answered from memory.
//
// Two equal texts parse to equal values (JSON.parse is a function of the text), so equal digests
// mean equal objects; two texts that differ only in spacing or escapes parse alike and digest
// apart, which costs a recomputation, never a wrong answer.
import { hash } from 'node:crypto';
import type { ScannedParts } from './json-depth.js';

/** Each matched object of a parsed request → the SHA-256 (base64) of its text. */
const SOURCES = new WeakMap<object, string>();

/** The key as JSON.parse reads it (the quotes off; escapes decoded). */
const keyText = (raw: string): string => (raw.includes('\\') ? String(JSON.parse(raw)) : raw.slice(1, -1));

const isMap = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/** The same keys in the same order. */
function sameKeys(parsed: Record<string, unknown>, written: readonly string[]): boolean {
  const keys = Object.keys(parsed);
  if (keys.length !== written.length) return false;
  for (let i = 0; i < keys.length; i++) if (keys[i] !== keyText(written[i] ?? '')) return false;
  return true;
}

/** Note where `body`'s observed objects are in `text` (scanned into `parts`), for sourceDigest. */
export function noteSources(body: unknown, text: string, parts: ScannedParts): void {
  if (!isMap(body) || !sameKeys(body, parts.tops)) return;
  for (const top of ['children', 'related']) {
    const map = body[top];
    const groups = parts.groups.filter((g) => keyText(g.top) === top);
    if (!isMap(map) || !sameKeys(map, groups.map((g) => g.key))) continue;
    for (const g of groups) {
      const objects = map[keyText(g.key)];
      if (!isMap(objects) || !sameKeys(objects, g.entries.map((e) => e.key))) continue;
      for (const e of g.entries) {
        const obj = objects[keyText(e.key)];
        // Taken now, not when first asked for: a lazy digest would keep the whole request text alive
        // with any object a kept stage result holds (a child kept as observed).
        if (e.start >= 0 && isMap(obj)) SOURCES.set(obj, hash('sha256', text.slice(e.start, e.end), 'base64'));
      }
    }
  }
}

/**
 * The SHA-256 (base64) of the text `obj` was parsed from, when the body parser noted it
 * (noteSources); undefined otherwise (an in-process caller's request, an unmatched map).
 */
export function sourceDigest(obj: object): string | undefined {
  return SOURCES.get(obj);
}
