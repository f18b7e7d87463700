// Reading a ControlPlane spec: defaults applied as the API server would, problems reported
// instead of thrown, and the few derived facts every hook needs (managed or brownfield, the
// effective admin-password Secret).
import { ControlPlaneSpec } from '../api/controlplane.js';
import { compileValidator } from '../api/validate.js';
import { at, isObject, stringAt } from '../k8s/read.js';
import { childNames } from './names.js';
import { BoundedMemo } from '../memo.js';

const validateSpec = compileValidator<ControlPlaneSpec>(ControlPlaneSpec, 'spec');

export interface SpecReading {
  /** The spec with schema defaults applied (a deep copy; may still be invalid, see errors). */
  spec: ControlPlaneSpec;
  /** Schema violations, each naming the field; empty for a valid spec. */
  errors: string[];
}

/**
 * Readings of the last specs seen (a ControlPlane's spec is the same sync after sync): validating
 * and defaulting is a pure function of the spec's JSON text. The reading is shared, so it is
 * frozen through: a stage that tried to change the spec would throw (no stage does). Specs above
 * MEMO_MAX_SPEC characters are read every time.
 */
const readings = new BoundedMemo<SpecReading>(256);
const MEMO_MAX_SPEC = 64 * 1024;

export function readSpec(spec: unknown): SpecReading {
  if (!isObject(spec)) return { spec: {} as ControlPlaneSpec, errors: ['spec: must be an object'] };
  const key = JSON.stringify(spec);
  const read = (): SpecReading => {
    const { value, errors } = validateSpec(spec);
    return deepFreeze({ spec: value, errors });
  };
  return key.length > MEMO_MAX_SPEC ? read() : readings.get(key, read);
}

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
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
