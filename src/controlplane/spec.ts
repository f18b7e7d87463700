// Reading a ControlPlane spec: defaults applied as the API server would, problems reported
// instead of thrown, and the few derived facts every hook needs (managed or brownfield, the
// effective admin-password Secret).
import { ControlPlaneSpec } from '../api/controlplane.js';
import { compileValidator } from '../api/validate.js';
import { at, isObject, stringAt } from '../k8s/read.js';
import { childNames } from './names.js';

const validateSpec = compileValidator<ControlPlaneSpec>(ControlPlaneSpec, 'spec');

export interface SpecReading {
  /** The spec with schema defaults applied (a deep copy; may still be invalid, see errors). */
  spec: ControlPlaneSpec;
  /** Schema violations, each naming the field; empty for a valid spec. */
  errors: string[];
}

export function readSpec(spec: unknown): SpecReading {
  if (!isObject(spec)) return { spec: {} as ControlPlaneSpec, errors: ['spec: must be an object'] };
  const { value, errors } = validateSpec(spec);
  return { spec: value, errors };
}

/** Managed database mode: the hooks provision the MariaDB and the per-ControlPlane credentials. */
export function isManagedDatabase(spec: unknown): boolean {
  return isObject(at(spec, 'infrastructure', 'database', 'clusterRef'));
}

/** Managed cache mode: the hooks provision the Memcached. */
export function isManagedCache(spec: unknown): boolean {
  return isObject(at(spec, 'infrastructure', 'cache', 'clusterRef'));
}

/** The admin-password Secret Keystone and K-ORC use (seed: effectiveAdminPasswordSecretRef). */
export function effectiveAdminPasswordRef(spec: unknown, cp: string): { name: string | undefined; key: string } {
  if (isManagedDatabase(spec)) return { name: childNames(cp).adminPassword, key: 'password' };
  const ref = at(spec, 'korc', 'adminCredential', 'passwordSecretRef');
  return { name: stringAt(ref, 'name'), key: stringAt(ref, 'key') ?? 'password' };
}
