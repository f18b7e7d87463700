// The admin password the K-ORC chain authenticates with: the effective admin-password Secret
// (related by name, docs/architecture.md §2.12). An absent Secret or key (or an empty value) is the
// seed's WaitingForAdminPassword path; a key whose value cannot be read as a password (not a string,
// not base64, not UTF-8 text) is its "read fails otherwise" path, AdminPasswordError.
import { GVK } from '../../k8s/kinds.js';
import { at } from '../../k8s/read.js';
import { secretString, sha256Hex } from '../../k8s/secret.js';
import type { StageInput } from '../stage.js';

export type AdminPassword =
  | { kind: 'readable'; password: string; hash: string }
  | { kind: 'missing'; detail: string }
  | { kind: 'unreadable'; detail: string };

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
const utf8 = new TextDecoder('utf-8', { fatal: true });

/** Why a Secret value cannot be read as text, or undefined when it can (never the value itself). */
function unreadable(raw: unknown): string | undefined {
  if (typeof raw !== 'string') {
    const what = raw === null ? 'null' : Array.isArray(raw) ? 'a list' : typeof raw === 'object' ? 'an object' : `a ${typeof raw}`;
    return `is ${what}, not base64 text`;
  }
  if (!BASE64.test(raw)) return 'is not base64';
  try {
    utf8.decode(Buffer.from(raw, 'base64'));
  } catch {
    return 'is not UTF-8 text';
  }
  return undefined;
}

export function readAdminPassword(input: Pick<StageInput, 'resolved' | 'cp' | 'related'>): AdminPassword {
  if (!input.resolved.adminPasswordRef.ok) return { kind: 'missing', detail: 'no admin-password Secret is configured' };
  const ref = input.resolved.adminPasswordRef.value;
  const secret = input.related.get(GVK.Secret, input.cp.namespace, ref.name);
  if (!secret) return { kind: 'missing', detail: `Secret ${ref.name} does not exist yet` };
  const raw = at(secret, 'data', ref.key);
  if (raw === undefined || raw === '') return { kind: 'missing', detail: `Secret ${ref.name} has no key "${ref.key}" yet` };
  const why = unreadable(raw);
  if (why !== undefined) return { kind: 'unreadable', detail: `the value of key "${ref.key}" of Secret ${ref.name} ${why}` };
  const password = secretString(secret, ref.key);
  if (password === undefined) return { kind: 'missing', detail: `Secret ${ref.name} has no key "${ref.key}" yet` };
  return { kind: 'readable', password, hash: sha256Hex(password) };
}
