// Secret data in and out: the API server stores `data` base64-encoded; children are emitted
// with `data` only (never `stringData`, docs/architecture.md §2.6), keys sorted.
import { createHash } from 'node:crypto';
import { at } from './read.js';
import { BoundedMemo } from '../memo.js';

/**
 * Decoded and encoded values and digests of the last calls: the stages read and write the same
 * few Secret values (the admin password, the application-credential secret, the clouds.yaml)
 * several times per call and on every call of a ControlPlane. Pure functions of their text
 * (memo.ts); values above MEMO_MAX_TEXT are computed every time (at most 512 × 4 KiB per memo).
 */
const decoded = new BoundedMemo<string>(512);
const encoded = new BoundedMemo<string>(512);
const digests = new BoundedMemo<string>(512);
const MEMO_MAX_TEXT = 4 * 1024;

/** The decoded UTF-8 value of `data[key]`, or undefined when the key is absent, empty or not a string. */
export function secretString(secret: unknown, key: string): string | undefined {
  const raw = at(secret, 'data', key);
  if (typeof raw !== 'string' || raw.length === 0) return undefined;
  const decode = () => Buffer.from(raw, 'base64').toString('utf8');
  const text = raw.length > MEMO_MAX_TEXT ? decode() : decoded.get(raw, decode);
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
  const encode = () => Buffer.from(text, 'utf8').toString('base64');
  return text.length > MEMO_MAX_TEXT ? encode() : encoded.get(text, encode);
}

/** SHA-256 hex of a UTF-8 string (the seed's computeAdminPasswordHash derivation). */
export function sha256Hex(text: string): string {
  const digest = () => createHash('sha256').update(text, 'utf8').digest('hex');
  return text.length > MEMO_MAX_TEXT ? digest() : digests.get(text, digest);
}
