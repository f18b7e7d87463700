// Finding secret values in hook traffic, to assert they never show up anywhere else.
import type { Obj } from './shared.js';

/** Every Secret data value (decoded) in a request or response, JSON held in strings included. */
export function secretValues(v: unknown, out = new Set<string>()): Set<string> {
  if (typeof v === 'string' && v.startsWith('{')) {
    try {
      secretValues(JSON.parse(v), out);
    } catch {
      /* not JSON */
    }
  } else if (Array.isArray(v)) v.forEach((x) => secretValues(x, out));
  else if (v && typeof v === 'object') {
    const o = v as Obj;
    if (o.kind === 'Secret') for (const d of Object.values((o.data ?? {}) as Record<string, string>)) out.add(Buffer.from(d, 'base64').toString('utf8'));
    Object.values(o).forEach((x) => secretValues(x, out));
  }
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
