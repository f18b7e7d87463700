// The Python venvs e2e/setup.sh installs (one per OpenStack program the suite runs for real, and
// the `openstack` client), where they are, and the versions: the suite passes these to setup.sh
// (E2E_<NAME>_VERSION), whose defaults are the same. A venv's directory carries the first 12 hex
// of e2e/constraints.txt's SHA-256 (setup.sh computes the same), so a changed pin means a new venv.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

export const VENVS = {
  keystone: process.env.E2E_KEYSTONE_VERSION || '28.1.0',
  placement: process.env.E2E_PLACEMENT_VERSION || '14.0.0',
  glance: process.env.E2E_GLANCE_VERSION || '31.1.0',
  cinder: process.env.E2E_CINDER_VERSION || '27.0.0',
  nova: process.env.E2E_NOVA_VERSION || '32.2.1',
  neutron: process.env.E2E_NEUTRON_VERSION || '27.0.4',
  openstackclient: process.env.E2E_OPENSTACKCLIENT_VERSION || '8.1.0',
  tempest: process.env.E2E_TEMPEST_VERSION || '45.0.0',
} as const;
export type VenvName = keyof typeof VENVS;

/** The environment that hands the versions to setup.sh. */
export function versionEnv(): Record<string, string> {
  return Object.fromEntries(Object.entries(VENVS).map(([name, version]) => [`E2E_${name.toUpperCase()}_VERSION`, version]));
}

/** The venvs pinned by e2e/constraints.txt with a file of pins over it (setup.sh `overrides`). */
const OVERRIDES: Partial<Record<VenvName, string>> = { tempest: 'constraints-tempest.txt' };

/**
 * `{cache}/tools/{name}-{version}-{12 hex}`, as setup.sh names it: the hex of sha256(e2e/constraints.txt),
 * or of that file followed by the venv's overrides file.
 */
export function venvDir(repo: string, cache: string, name: VenvName): string {
  const hash = createHash('sha256').update(readFileSync(join(repo, 'e2e', 'constraints.txt')));
  const over = OVERRIDES[name];
  if (over) hash.update(readFileSync(join(repo, 'e2e', over)));
  const key = hash.digest('hex').slice(0, 12);
  return join(cache, 'tools', `${name}-${VENVS[name]}-${key}`);
}
