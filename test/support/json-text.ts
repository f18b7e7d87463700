// JSON texts of a request with one value set (the warm-versus-fresh tests of the memos).
import type { Obj } from './shared.js';

/** `request` as JSON text with the value at `path` under `root` set to the JSON text `raw`. */
export function textWith(request: Obj, root: (string | number)[], path: (string | number)[], raw: string): string {
  const copy = structuredClone(request);
  let holder: Obj = copy;
  const full = [...root, ...path];
  full.slice(0, -1).forEach((key, i) => {
    if (holder[key] === null || typeof holder[key] !== 'object') holder[key] = typeof full[i + 1] === 'number' ? [] : {};
    holder = holder[key];
  });
  holder[full[full.length - 1]!] = '@@value@@';
  return JSON.stringify(copy).replace('"@@value@@"', raw);
}
