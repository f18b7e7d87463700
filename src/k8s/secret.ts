// Secret data in and out: the API server stores `data` base64-encoded; children are emitted
// with `data` only (never `stringData`, docs/architecture.md §2.6), keys sorted.
import { createHash } from 'node:crypto';
import { at } from './read.js';
import { BoundedMemo, FLEET_MEMO_CONTROLPLANES, MEMO } from '../memo.js';

/**
 * Decoded and encoded values and digests of the last calls: the stages read and write the same
 * few Secret values (the admin password, the application-credential secret, the clouds.yaml)
 * several times per call and on every call of a ControlPlane. Pure functions of their text
 * (memo.ts); values above 4 KiB are computed every time. Eight values a ControlPlane, for a fleet
 * of FLEET_MEMO_CONTROLPLANES; at most 4 Mi characters of keys per memo.
 */
const BOUNDS = { maxKey: 4 * 1024, maxKeyBytes: 4 * 1024 * 1024, name: MEMO.secret };
const decoded = new BoundedMemo<string>(8 * FLEET_MEMO_CONTROLPLANES, BOUNDS);
const encoded = new BoundedMemo<string>(8 * FLEET_MEMO_CONTROLPLANES, BOUNDS);
const digests = new BoundedMemo<string>(8 * FLEET_MEMO_CONTROLPLANES, BOUNDS);

/** The decoded UTF-8 value of `data[key]`, or undefined when the key is absent, empty or not a string. */
export function secretString(secret: unknown, key: string): string | undefined {
  const raw = at(secret, 'data', key);
  if (typeof raw !== 'string' || raw.length === 0) return undefined;
  const text = decoded.get(raw, () => Buffer.from(raw, 'base64').toString('utf8'));
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
  return encoded.get(text, () => Buffer.from(text, 'utf8').toString('base64'));
}

/** SHA-256 hex of a UTF-8 string (the seed's computeAdminPasswordHash derivation). */
export function sha256Hex(text: string): string {
  return digests.get(text, () => createHash('sha256').update(text, 'utf8').digest('hex'));
}
