// Finding secret values in hook traffic, to assert they never show up anywhere else.
import type { Obj } from './shared.js';

/** Every Secret object in a request or response, JSON held in strings (last-applied) included. */
export function secretObjects(v: unknown, out: Obj[] = []): Obj[] {
  if (typeof v === 'string' && v.startsWith('{')) {
    try {
      secretObjects(JSON.parse(v), out);
    } catch {
      /* not JSON */
    }
  } else if (Array.isArray(v)) v.forEach((x) => secretObjects(x, out));
  else if (v && typeof v === 'object') {
    const o = v as Obj;
    if (o.kind === 'Secret') out.push(o);
    Object.values(o).forEach((x) => secretObjects(x, out));
  }
  return out;
}

/** Every Secret data value (decoded) in a request or response. */
export function secretValues(v: unknown, out = new Set<string>()): Set<string> {
  for (const o of secretObjects(v)) for (const d of Object.values((o.data ?? {}) as Record<string, string>)) out.add(Buffer.from(d, 'base64').toString('utf8'));
  return out;
}

/** The secrets (plain or base64) that occur in `text`, described without their value. */
export function leaks(text: string, secrets: Iterable<string>): string[] {
  const found: string[] = [];
  for (const s of secrets) {
    if (s.length < 8) continue;
    if (text.includes(s) || text.includes(Buffer.from(s).toString('base64'))) found.push(`a ${s.length}-character secret value`);
  }
  return found;
}
