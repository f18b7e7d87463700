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

/**
 * Keys whose values are identifiers, not secret material: an account name is also an object name
 * (the simulated database user is `keystone`), so finding it in a log line is no leak.
 */
const IDENTIFIER_KEYS = new Set(['username']);

/** Every Secret data value (decoded) in a request or response. */
export function secretValues(v: unknown, out = new Set<string>()): Set<string> {
  for (const o of secretObjects(v)) {
    for (const [k, d] of Object.entries((o.data ?? {}) as Record<string, string>)) {
      if (!IDENTIFIER_KEYS.has(k)) out.add(Buffer.from(d, 'base64').toString('utf8'));
    }
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
