// "The fields we set" comparison (docs/architecture.md §2.6): a live object carries a desired one when every
// field the desired object sets has that value on the live object. Fields only the live object
// has (API-server or controller defaults) are ignored. Lists must match item by item.
import { isObject } from './read.js';

export function carriesValue(live: unknown, want: unknown): boolean {
  // Plain loops: called for every field of every child on every sync (no closure per object).
  if (isObject(want)) {
    if (!isObject(live)) return false;
    for (const k in want) if (Object.prototype.hasOwnProperty.call(want, k) && !carriesValue(live[k], want[k])) return false;
    return true;
  }
  if (Array.isArray(want)) {
    if (!Array.isArray(live) || live.length !== want.length) return false;
    for (let i = 0; i < want.length; i++) if (!carriesValue(live[i], want[i])) return false;
    return true;
  }
  return live === want;
}

/** Whether `live` carries `want` under each of the top-level `fields`. */
export function carries(live: Record<string, unknown>, want: Record<string, unknown>, fields: string[]): boolean {
  return fields.every((f) => carriesValue(live[f], want[f]));
}
