// Label values the hooks derive from object names. A name may have 253 characters, a label value
// 63 (and must begin and end alphanumeric): a longer name becomes a prefix of it and a hash of the
// whole name, deterministic, so every response carries the same value. Names of 63 characters or
// fewer are used unchanged (the labels of existing children never move).
import { createHash } from 'node:crypto';

export const MAX_LABEL_VALUE = 63;
const HASH_CHARS = 10;

/** `text` when it fits a label value; else `{prefix}-{10 hex of SHA-256(text)}`, 63 characters at most. */
export function labelValue(text: string): string {
  if (text.length <= MAX_LABEL_VALUE) return text;
  const hash = createHash('sha256').update(text, 'utf8').digest('hex').slice(0, HASH_CHARS);
  const prefix = text.slice(0, MAX_LABEL_VALUE - HASH_CHARS - 1).replace(/[^A-Za-z0-9]+$/, '');
  return prefix ? `${prefix}-${hash}` : hash;
}
