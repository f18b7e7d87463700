// The admin password the K-ORC chain authenticates with: the effective admin-password Secret
// (related by name, docs/architecture.md §2.12). Absent Secret or key is the seed's WaitingForAdminPassword path.
import { GVK } from '../../k8s/kinds.js';
import { secretString, sha256Hex } from '../../k8s/secret.js';
import type { StageInput } from '../stage.js';

export type AdminPassword =
  | { kind: 'readable'; password: string; hash: string }
  | { kind: 'missing'; detail: string };

export function readAdminPassword(input: Pick<StageInput, 'resolved' | 'cp' | 'related'>): AdminPassword {
  if (!input.resolved.adminPasswordRef.ok) return { kind: 'missing', detail: 'no admin-password Secret is configured' };
  const ref = input.resolved.adminPasswordRef.value;
  const secret = input.related.get(GVK.Secret, input.cp.namespace, ref.name);
  if (!secret) return { kind: 'missing', detail: `Secret ${ref.name} does not exist yet` };
  const password = secretString(secret, ref.key);
  if (password === undefined) return { kind: 'missing', detail: `Secret ${ref.name} has no key "${ref.key}" yet` };
  return { kind: 'readable', password, hash: sha256Hex(password) };
}
