// Secret data in and out: the API server stores `data` base64-encoded; children are emitted
// with `data` only (never `stringData`, docs/architecture.md §2.6), keys sorted.
import { createHash } from 'node:crypto';
import { at } from './read.js';

/** The decoded UTF-8 value of `data[key]`, or undefined when the key is absent, empty or not a string. */
export function secretString(secret: unknown, key: string): string | undefined {
  const raw = at(secret, 'data', key);
  if (typeof raw !== 'string' || raw.length === 0) return undefined;
  const text = Buffer.from(raw, 'base64').toString('utf8');
  return text.length > 0 ? text : undefined;
}

/** A Secret `data` map: values base64-encoded, keys in a stable order. */
export function secretData(values: Record<string, string>): Record<string, string> {
  return Object.fromEntries(
    Object.keys(values)
      .sort()
      .map((k) => [k, encodedValue(values[k] ?? '')]),
  );
}

function encodedValue(text: string): string {
  return Buffer.from(text, 'utf8').toString('base64');
}

/** SHA-256 hex of a UTF-8 string (the seed's computeAdminPasswordHash derivation). */
export function sha256Hex(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}
