// "The fields we set" comparison (docs/architecture.md §2.6): a live object carries a desired one when every
// field the desired object sets has that value on the live object. Fields only the live object
// has (API-server or controller defaults) are ignored. Lists must match item by item.
import { isObject } from './read.js';

export function carriesValue(live: unknown, want: unknown): boolean {
  if (isObject(want)) {
    if (!isObject(live)) return false;
    return Object.keys(want).every((k) => carriesValue(live[k], want[k]));
  }
  if (Array.isArray(want)) {
    return Array.isArray(live) && live.length === want.length && want.every((w, i) => carriesValue(live[i], w));
  }
  return live === want;
}

/** Whether `live` carries `want` under each of the top-level `fields`. */
export function carries(live: Record<string, unknown>, want: Record<string, unknown>, fields: string[]): boolean {
  return fields.every((f) => carriesValue(live[f], want[f]));
}
