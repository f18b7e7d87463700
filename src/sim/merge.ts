// Metacontroller's dynamic-apply three-way merge (reference/metacontroller.md §4.1, pkg/dynamic/
// apply/apply.go `Merge`): keys last applied but no longer desired are removed, desired keys
// are merged recursively, others' keys are kept; lists of objects sharing a conventional key
// merge item by item, every other list is replaced.
type Json = unknown;
type JsonObject = Record<string, Json>;

/** The list-map keys Metacontroller recognises, in its order of precedence. */
export const LIST_MAP_KEYS = ['containerPort', 'port', 'mountPath', 'name', 'uid', 'ip', 'path'] as const;

const isObject = (v: Json): v is JsonObject => typeof v === 'object' && v !== null && !Array.isArray(v);

export class MergeError extends Error {
  override name = 'MergeError';
}

/** merged = Merge(observed, lastApplied, desired); none of the inputs is modified. */
export function merge(observed: JsonObject, lastApplied: JsonObject | undefined, desired: JsonObject): JsonObject {
  return mergeObject('', structuredClone(observed), lastApplied, structuredClone(desired));
}

function mergeValue(path: string, destination: Json, last: Json, desired: Json): Json {
  if (isObject(destination)) {
    if ((last !== undefined && last !== null && !isObject(last)) || (desired !== null && !isObject(desired))) {
      throw new MergeError(`${path}: cannot merge a non-object into an object`);
    }
    return mergeObject(path, destination, (last ?? undefined) as JsonObject | undefined, (desired ?? {}) as JsonObject);
  }
  if (Array.isArray(destination)) {
    if ((last !== undefined && last !== null && !Array.isArray(last)) || (desired !== null && !Array.isArray(desired))) {
      throw new MergeError(`${path}: cannot merge a non-list into a list`);
    }
    return mergeArray(path, destination, (last ?? []) as Json[], (desired ?? []) as Json[]);
  }
  return desired;
}

function mergeObject(path: string, destination: JsonObject, last: JsonObject | undefined, desired: JsonObject): JsonObject {
  for (const key of Object.keys(last ?? {})) if (!(key in desired)) delete destination[key];
  for (const [key, value] of Object.entries(desired)) {
    destination[key] = key in destination ? mergeValue(`${path}.${key}`, destination[key], last?.[key], value) : value;
  }
  return destination;
}

function listMapKey(...lists: Json[][]): string | undefined {
  const total = lists.reduce((n, l) => n + l.length, 0);
  const counts = new Map<string, number>();
  for (const list of lists) {
    for (const item of list) {
      if (!isObject(item)) return undefined;
      for (const key of LIST_MAP_KEYS) if (key in item) counts.set(key, (counts.get(key) ?? 0) + 1);
    }
  }
  return LIST_MAP_KEYS.find((key) => (counts.get(key) ?? 0) === total);
}

function mergeArray(path: string, destination: Json[], last: Json[], desired: Json[]): Json[] {
  const key = listMapKey(destination, last, desired);
  if (key === undefined) return desired;
  const asMap = (list: Json[]) => Object.fromEntries(list.map((item) => [String((item as JsonObject)[key]), item]));
  const merged = mergeObject(path, asMap(destination), asMap(last), asMap(desired));
  const out: Json[] = [];
  const added = new Set<string>();
  for (const item of [...destination, ...desired]) {
    const k = String((item as JsonObject)[key]);
    if (added.has(k) || !(k in merged)) continue;
    out.push(merged[k]);
    added.add(k);
  }
  return out;
}
