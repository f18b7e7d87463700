// Reading a ControlPlane spec: defaults applied as the API server would, problems reported
// instead of thrown, and the spec resolved once into what the stages use: the infrastructure
// mode, the effective admin-password Secret and the K-ORC settings, each either usable (typed,
// nothing optional left) or the list of problems the stage that owns it reports as InvalidSpec.
import { ControlPlaneSpec, type RotationMode } from '../api/controlplane.js';
import { compileValidator } from '../api/validate.js';
import { at, isObject, isObjectName, stringAt } from '../k8s/read.js';
import { HTTP_METHODS, type AccessRule } from './credential/application-credential.js';
import { childNames } from './names.js';
import { ownedNameProblem } from '../api/owned-names.js';
import { deepFreeze } from '../memo.js';

const validateSpec = compileValidator<ControlPlaneSpec>(ControlPlaneSpec, 'spec');

type InfrastructureSpec = NonNullable<ControlPlaneSpec['infrastructure']>;
export type DatabaseSpec = NonNullable<InfrastructureSpec['database']>;
export type CacheSpec = NonNullable<InfrastructureSpec['cache']>;

/** A part of the spec: usable, or why not (each problem `spec.<path>: …`). */
export type Resolved<T> = { ok: true; value: T } | { ok: false; errors: string[] };

export interface Infrastructure {
  database: DatabaseSpec;
  cache: CacheSpec;
  /** Managed database: the hooks provision the MariaDB and the per-ControlPlane credentials. */
  managedDatabase: boolean;
  /** Brownfield database: the user's credential Secret. */
  databaseSecretRef: { name: string; key?: string } | undefined;
}

export interface SecretKeyRef {
  name: string;
  key: string;
}

/** spec.korc.adminCredential as the K-ORC chain uses it. */
export interface KorcSettings {
  cloudName: string;
  /** The clouds.yaml Secret (cloudCredentialsRef.secretName). */
  secretName: string;
  restricted: boolean;
  mode: RotationMode;
  accessRules: AccessRule[];
}

export interface ResolvedSpec {
  infrastructure: Resolved<Infrastructure>;
  /** The admin-password Secret Keystone and K-ORC use (seed: effectiveAdminPasswordSecretRef). */
  adminPasswordRef: Resolved<SecretKeyRef>;
  korc: Resolved<KorcSettings>;
}

export interface SpecReading {
  /** The spec with schema defaults applied (a deep copy; may still be invalid, see errors). */
  spec: ControlPlaneSpec;
  /** Schema violations, each naming the field; empty for a valid spec. */
  errors: string[];
  /** The parts the stages use, resolved. */
  resolved: ResolvedSpec;
}

const usable = <T>(value: T): Resolved<T> => ({ ok: true, value });
const refused = <T>(errors: string[]): Resolved<T> => ({ ok: false, errors });

/**
 * `spec` of the ControlPlane named `cp`: defaulted, validated and resolved. Read every call: a
 * memo of readings (keyed by the spec's exact text) cost as much as it saved at fleet traffic
 * (BENCHMARKS.md, issue 34). Frozen through: the stages only read it.
 */
export function readSpec(raw: unknown, cp: string): SpecReading {
  const { value: spec, errors } = validateSpec(isObject(raw) ? raw : {});
  if (!isObject(raw)) errors.unshift('spec: must be an object');
  return deepFreeze({ spec, errors, resolved: resolveSpec(spec, cp) });
}

export function resolveSpec(spec: ControlPlaneSpec, cp: string): ResolvedSpec {
  return { infrastructure: resolveInfrastructure(spec), adminPasswordRef: resolveAdminPasswordRef(spec, cp), korc: resolveKorc(spec, cp) };
}

/** Managed database mode: the hooks provision the MariaDB and the per-ControlPlane credentials. */
export function isManagedDatabase(spec: unknown): boolean {
  return isObject(at(spec, 'infrastructure', 'database', 'clusterRef'));
}

/** Managed cache mode: the hooks provision the Memcached. */
export function isManagedCache(spec: unknown): boolean {
  return isObject(at(spec, 'infrastructure', 'cache', 'clusterRef'));
}

/** The admin-password Secret as configured (name may be missing or invalid; see resolveSpec). */
export function effectiveAdminPasswordRef(spec: unknown, cp: string): { name: string | undefined; key: string } {
  if (isManagedDatabase(spec)) return { name: childNames(cp).adminPassword, key: 'password' };
  const ref = at(spec, 'korc', 'adminCredential', 'passwordSecretRef');
  return { name: stringAt(ref, 'name'), key: stringAt(ref, 'key') ?? 'password' };
}

function resolveInfrastructure(spec: ControlPlaneSpec): Resolved<Infrastructure> {
  const errors: string[] = [];
  const db = spec.infrastructure?.database;
  const cache = spec.infrastructure?.cache;
  if (db === undefined) errors.push('spec.infrastructure.database: must be set');
  else {
    if (isObject(db.clusterRef) === (db.host !== undefined)) errors.push('spec.infrastructure.database: exactly one of clusterRef or host must be set');
    if (isObject(db.clusterRef) && !isObjectName(db.clusterRef.name)) errors.push('spec.infrastructure.database.clusterRef.name: must be a valid object name');
    if (db.host !== undefined && !isObject(db.clusterRef) && !isObjectName(db.secretRef?.name)) {
      errors.push('spec.infrastructure.database.secretRef.name: must name the Secret with the database credentials');
    }
  }
  if (cache === undefined) errors.push('spec.infrastructure.cache: must be set');
  else {
    const servers = cache.servers;
    if (isObject(cache.clusterRef) === (Array.isArray(servers) && servers.length > 0)) {
      errors.push('spec.infrastructure.cache: exactly one of clusterRef or servers must be set');
    }
    if (isObject(cache.clusterRef) && !isObjectName(cache.clusterRef.name)) errors.push('spec.infrastructure.cache.clusterRef.name: must be a valid object name');
  }
  if (db === undefined || cache === undefined || errors.length > 0) return refused(errors);
  const managedDatabase = isObject(db.clusterRef);
  const secretName = db.secretRef?.name;
  const databaseSecretRef = managedDatabase || secretName === undefined ? undefined : { name: secretName, key: db.secretRef?.key };
  return usable({ database: db, cache, managedDatabase, databaseSecretRef });
}

function resolveAdminPasswordRef(spec: ControlPlaneSpec, cp: string): Resolved<SecretKeyRef> {
  const { name, key } = effectiveAdminPasswordRef(spec, cp);
  if (name === undefined || !isObjectName(name)) return refused(['spec.korc.adminCredential.passwordSecretRef.name: must be a valid Secret name']);
  return usable({ name, key });
}

const isHttpMethod = (method: string) => HTTP_METHODS.some((m) => m === method);

function resolveKorc(spec: ControlPlaneSpec, cp: string): Resolved<KorcSettings> {
  const admin = spec.korc?.adminCredential;
  const path = 'spec.korc.adminCredential';
  const errors: string[] = [];
  const cloudName = admin?.cloudCredentialsRef?.cloudName;
  const secretName = admin?.cloudCredentialsRef?.secretName;
  if (typeof cloudName !== 'string' || cloudName.length === 0) errors.push(`${path}.cloudCredentialsRef.cloudName: must not be empty`);
  if (secretName === undefined || !isObjectName(secretName)) errors.push(`${path}.cloudCredentialsRef.secretName: must be a valid Secret name`);
  else {
    const owned = ownedNameProblem(cp, secretName);
    if (owned) errors.push(`${path}.cloudCredentialsRef.secretName: ${owned}`);
  }
  const accessRules: AccessRule[] = [];
  const firstWithPath = new Map<string, number>();
  (admin?.applicationCredential?.accessRules ?? []).forEach((rule, i) => {
    // Metacontroller's apply takes a list whose items all carry `path` for a map keyed by path
    // (pkg/dynamic/apply knownMergeKeys), so two rules on one path would be merged into one on
    // every update of the ApplicationCredential, which K-ORC refuses (spec.resource is immutable).
    const earlier = firstWithPath.get(rule.path);
    if (earlier !== undefined) errors.push(`${path}.applicationCredential.accessRules[${i}].path: ${JSON.stringify(rule.path)} is the path of accessRules[${earlier}] too; each rule needs a path of its own (Metacontroller merges the rules by path)`);
    else firstWithPath.set(rule.path, i);
    const method = rule.method.toUpperCase();
    const at = `${path}.applicationCredential.accessRules[${i}]`;
    if (!isHttpMethod(method)) errors.push(`${at}.method: must be one of ${HTTP_METHODS.join(', ')}`);
    if (rule.path.length === 0 || rule.path.length > 1024) errors.push(`${at}.path: must be 1 to 1024 characters`);
    if (rule.service.length === 0 || rule.service.length > 253) errors.push(`${at}.service: must be 1 to 253 characters`);
    accessRules.push({ method, path: rule.path, serviceRef: rule.service });
  });
  if (cloudName === undefined || secretName === undefined || errors.length > 0) return refused(errors);
  return usable({
    cloudName,
    secretName,
    restricted: admin?.applicationCredential?.restricted ?? true,
    mode: admin?.applicationCredential?.rotation?.mode ?? 'PasswordDriven',
    accessRules,
  });
}
