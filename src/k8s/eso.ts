// What the External Secrets Operator writes into the objects it reconciles, as its source computes
// it (read at v0.16.2, the release `npm run e2e` runs, and at the commit our CRDs are pinned to;
// ../shared/reference/external-secrets-roundtrip.md §1.5, §2.3). Pure readers: the hooks use them to
// prove that a PushSecret pushed and that an ExternalSecret refreshed after a given change
// (docs/architecture.md §3.5); the simulator's ESO model uses them to write the same status.
import { createHash } from 'node:crypto';
import { at, isObject } from './read.js';
import { findCondition } from './conditions.js';
import { isTerminating } from './observed.js';
import { readTime } from './time.js';

/** ESO's condition reasons for a successful push / refresh (apis/externalsecrets: ReasonSynced, ConditionReasonSecretSynced). */
export const ESO_REASON = { pushed: 'Synced', refreshed: 'SecretSynced' } as const;

/**
 * How ESO reports an ExternalSecret whose provider read failed (v0.16.2
 * pkg/controllers/externalsecret/externalsecret_controller.go: `getProviderSecretData` fails,
 * `markAsFailed(msgErrorGetSecretData, …)`; the same constant at v0.20.4 and v2.9.0): Ready=False,
 * reason `SecretSyncedError`, message exactly `could not get secret data from provider`. With the
 * target's default `deletionPolicy: Retain` a key that does not exist in OpenBao is such a failure
 * (`esv1.NoSecretErr` is skipped only for the other policies), and the target Secret is kept as it
 * is. What failed (the key, the provider's words) goes only into a Warning Event, which hooks never
 * see, so the condition cannot tell a missing key from a refused or unreachable one.
 */
export const ESO_READ_FAILURE = { reason: 'SecretSyncedError', message: 'could not get secret data from provider' } as const;

/** ExternalSecret target labels and annotations (apis/externalsecrets/v1: LabelManaged, AnnotationDataHash). */
export const ESO_TARGET = {
  managedLabel: 'reconcile.external-secrets.io/managed',
  dataHashAnnotation: 'reconcile.external-secrets.io/data-hash',
} as const;

/** Go's `%v` of a map[string]string: `map[k1:v1 k2:v2]`, keys in byte order, nil printed as `map[]`. */
function goStringMap(m: unknown): string {
  const entries = isObject(m) ? Object.entries(m).filter((e): e is [string, string] => typeof e[1] === 'string') : [];
  entries.sort(([a], [b]) => Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8')));
  return `map[${entries.map(([k, v]) => `${k}:${v}`).join(' ')}]`;
}

/** ESO's utils.ObjectHash: SHA3-224 hex of the text Go's `%+v` prints. */
function objectHash(text: string): string {
  return createHash('sha3-224').update(text, 'utf8').digest('hex');
}

/**
 * ESO's `util.GetResourceVersion(meta)`: `"<generation>-<sha3-224 of %+v of struct{annotations, labels}>"`
 * (pkg/controllers/util/util.go; pkg/utils/utils.go ObjectHash). ESO writes it into
 * `status.syncedResourceVersion` of a PushSecret or ExternalSecret after a successful push or
 * refresh, computed from the metadata it read when that reconcile began.
 */
export function esoResourceVersion(obj: unknown): string {
  const generation = at(obj, 'metadata', 'generation');
  const text = `{annotations:${goStringMap(at(obj, 'metadata', 'annotations'))} labels:${goStringMap(at(obj, 'metadata', 'labels'))}}`;
  return `${typeof generation === 'number' ? generation : 0}-${objectHash(text)}`;
}

/**
 * ESO's data hash of a Secret (`utils.ObjectHash(secret.Data)`, the target's
 * `reconcile.external-secrets.io/data-hash`): Go prints a map[string][]byte as
 * `map[k:[b b b] …]`, bytes in decimal. `data` is the API's base64 map.
 */
export function esoDataHash(data: Record<string, string> | undefined): string {
  const keys = Object.keys(data ?? {}).sort((a, b) => Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8')));
  const text = `map[${keys.map((k) => `${k}:[${[...Buffer.from(data![k]!, 'base64')].join(' ')}]`).join(' ')}]`;
  return objectHash(text);
}

/** ESO's own record of its last successful reconcile of `obj`. */
export interface EsoSync {
  /** Ready=True with the success reason, and not being deleted. */
  ready: boolean;
  /** `status.syncedResourceVersion` equals ESO's formula over the observed metadata. */
  current: boolean;
  syncedResourceVersion: string | undefined;
  expected: string;
  /** `status.refreshTime` in ms since the epoch, when readable. */
  refreshTime: number | undefined;
}

export function esoSync(obj: unknown, successReason: string): EsoSync {
  const ready = findCondition(obj, 'Ready');
  const srv = at(obj, 'status', 'syncedResourceVersion');
  const synced = typeof srv === 'string' ? srv : undefined;
  const expected = esoResourceVersion(obj);
  const time = at(obj, 'status', 'refreshTime');
  const parsed = readTime(time);
  return {
    ready: obj !== undefined && !isTerminating(obj) && ready?.status === 'True' && ready.reason === successReason,
    current: synced === expected,
    syncedResourceVersion: synced,
    expected,
    refreshTime: parsed,
  };
}

/**
 * SHA-256 hex of a Secret's `data` as observed (keys sorted; values as the API returns them): the
 * PushSecret trigger (controlplane/eso-round-trip.ts pushTrigger, docs/architecture.md §3.5).
 */
export function sourceDigest(secret: object): string {
  const raw = at(secret, 'data');
  const data: Record<string, unknown> = isObject(raw) ? raw : {};
  const hash = createHash('sha256');
  for (const key of Object.keys(data).sort()) {
    const value = data[key];
    // Length-prefixed, so two maps whose keys and values run together alike differ.
    const text = typeof value === 'string' ? value : '';
    hash.update(`${key.length}:${key}${text.length}:${text};`, 'utf8');
  }
  return hash.digest('hex');
}
