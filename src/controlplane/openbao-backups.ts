// What a ControlPlane keeps in OpenBao, when OpenBao loses it (docs/architecture.md §3.9): an
// OpenBao restarted without storage (a dev server, a lost volume) comes back empty. Two kinds of
// paths are affected:
//
// - the backups this ControlPlane writes itself (its PushSecrets: the admin application
//   credential, each service user's password). The Secrets they copy are still in the cluster, so
//   they are pushed again, without anyone's help;
// - what a person put there (the database credentials, the admin password), read by the
//   ExternalSecrets. The Secrets ESO made from them stay as they are (`deletionPolicy: Retain`, the
//   CRD default), so nothing that runs loses them; but the hooks cannot know the values' origin, so
//   they are left for a person to restore, and named.
//
// The hooks see OpenBao only through ESO (docs/architecture.md §1.2), and ESO says a read failed
// only by an ExternalSecret's Ready condition (k8s/eso.ts ESO_READ_FAILURE), at its next refresh
// (hourly, or when its metadata changes). ESO's PushSecret controller pushes again by itself only
// hourly (its refreshInterval) or when the PushSecret's metadata changes. So:
//
// - **Push again.** Once an ExternalSecret of the ControlPlane reports a failed read, every
//   PushSecret of the ControlPlane carries `c5c3.io/openbao-read-failed-at` = the newest such
//   failure's `lastTransitionTime` (ESO's own clock); ESO pushes at once (the annotation changed)
//   and writes OpenBao again (the Vault provider writes a missing key; an equal one costs a read).
//   The value only moves forward: a later failure asks again, a recovery or a failure that ends
//   asks nothing, so one failure is one push per PushSecret, and a converged ControlPlane keeps its
//   annotations as observed.
// - **Read again.** ESO retries a failed ExternalSecret with its own backoff (1 s doubling to
//   7 minutes). An ExternalSecret that reads a path one of the ControlPlane's PushSecrets writes is
//   asked to read at once (the same annotation, same value) once each of those PushSecrets has
//   proven a push carrying that value (ESO's `syncedResourceVersion` over its metadata, as
//   `pushState`, docs/architecture.md §3.5): the read follows the push, never races it.
// - **Say what is missing.** The ControlPlane's Ready message lists the paths ESO cannot read:
//   those to be restored by hand, and the backups pushed again.
//
// The annotations are set on the answer's PushSecrets and ExternalSecrets whichever stage emitted
// them, also when that stage was not reached this pass (a waiting DBCredentials stage must not
// keep the admin credential's backup from being pushed again): they change nothing but when ESO
// pushes and reads, which it does hourly anyway. A Terminating child is never changed.
import { GVK } from '../k8s/kinds.js';
import { findCondition } from '../k8s/conditions.js';
import { ESO_READ_FAILURE, ESO_REASON, esoSync } from '../k8s/eso.js';
import { identity, isTerminating, type KubeObject, type ObjectIndex } from '../k8s/observed.js';
import { annotationOf, at, isObject } from '../k8s/read.js';
import { ANNOTATION, CLUSTER_SECRET_STORE } from './names.js';

/** An ExternalSecret of the ControlPlane whose last read of OpenBao failed. */
export interface ReadFailure {
  externalSecret: string;
  /** The OpenBao keys it reads (`spec.data[].remoteRef.key`), sorted, without repeats. */
  paths: string[];
  /** Its Ready condition's lastTransitionTime (when the failure began, ESO's clock), if readable. */
  since: string | undefined;
}

const strings = (values: unknown[]): string[] => [...new Set(values.filter((v): v is string => typeof v === 'string' && v !== ''))].sort();

/** The OpenBao keys an ExternalSecret reads. */
export function readPaths(es: unknown): string[] {
  const data = at(es, 'spec', 'data');
  return strings(Array.isArray(data) ? data.map((d) => at(d, 'remoteRef', 'key')) : []);
}

/** The OpenBao keys a PushSecret writes. */
export function pushedPaths(ps: unknown): string[] {
  const data = at(ps, 'spec', 'data');
  return strings(Array.isArray(data) ? data.map((d) => at(d, 'match', 'remoteRef', 'remoteKey')) : []);
}

/** Every observed, live ExternalSecret child whose provider read failed (ESO_READ_FAILURE). */
export function readFailures(children: ObjectIndex): ReadFailure[] {
  const out: ReadFailure[] = [];
  for (const es of children.ofKind(GVK.ExternalSecret)) {
    if (isTerminating(es)) continue;
    const ready = findCondition(es, 'Ready');
    if (ready?.status !== 'False' || ready.reason !== ESO_READ_FAILURE.reason || ready.message !== ESO_READ_FAILURE.message) continue;
    const since = typeof ready.lastTransitionTime === 'string' && Number.isFinite(Date.parse(ready.lastTransitionTime)) ? ready.lastTransitionTime : undefined;
    out.push({ externalSecret: es.metadata.name, paths: readPaths(es), since });
  }
  return out.sort((a, b) => (a.externalSecret < b.externalSecret ? -1 : 1));
}

/** The later of two ESO times (RFC 3339); either may be absent or unreadable. */
function later(a: string | undefined, b: string | undefined): string | undefined {
  const ta = a === undefined ? NaN : Date.parse(a);
  const tb = b === undefined ? NaN : Date.parse(b);
  if (!Number.isFinite(ta)) return Number.isFinite(tb) ? b : undefined;
  if (!Number.isFinite(tb)) return a;
  return tb > ta ? b : a;
}

export interface OpenBaoReport {
  /** Paths ExternalSecrets cannot read that no PushSecret of the ControlPlane writes: a person's to restore. */
  byHand: string[];
  /** Paths ExternalSecrets cannot read that a PushSecret of the ControlPlane writes: pushed again. */
  backups: string[];
  /** Every path the ControlPlane's PushSecrets write (all pushed again on a failure). */
  pushedAgain: string[];
}

export interface OpenBaoRecovery {
  /** The answer's children with the push and read requests set. */
  children: KubeObject[];
  /** What the Ready message says, when a read failed. */
  report: OpenBaoReport | undefined;
}

function withAnnotation(obj: KubeObject, value: string): KubeObject {
  if (annotationOf(obj, ANNOTATION.openBaoReadFailedAt) === value) return obj;
  const annotations = isObject(obj.metadata.annotations) ? obj.metadata.annotations : {};
  // A copy: a child kept as last applied is frozen and shared (k8s/observed.ts lastApplied).
  return { ...obj, metadata: { ...obj.metadata, annotations: { ...annotations, [ANNOTATION.openBaoReadFailedAt]: value } } };
}

/**
 * The push and read requests of an OpenBao that lost what it held (see the head of this file), on
 * the answer's `children`, from the observed children alone. Without a failed read, only the
 * observed annotations are kept (so a stage that emits the child without them does not remove
 * them, which would make ESO push again).
 */
export function recoverOpenBao(children: KubeObject[], observed: ObjectIndex, storeReady: boolean): OpenBaoRecovery {
  // ESO words a store that is not Ready the same way (its flood gate, secretstore/client_manager.go):
  // that is the stages' SecretStoreNotReady, not a loss of what OpenBao held.
  const failures = storeReady ? readFailures(observed) : [];
  const newest = failures.reduce<string | undefined>((t, f) => later(t, f.since), undefined);
  const pushes = children.filter((c) => c.apiVersion === GVK.PushSecret.apiVersion && c.kind === GVK.PushSecret.kind);
  const writers = new Map<string, KubeObject[]>();
  for (const ps of pushes) for (const path of pushedPaths(ps)) writers.set(path, [...(writers.get(path) ?? []), ps]);

  const out = children.map((c) => {
    const live = observed.getById(identity(c));
    if (live && isTerminating(live)) return c;
    const kept = annotationOf(live, ANNOTATION.openBaoReadFailedAt);
    if (c.apiVersion === GVK.PushSecret.apiVersion && c.kind === GVK.PushSecret.kind) {
      const value = later(kept, newest);
      return value === undefined ? c : withAnnotation(c, value);
    }
    if (c.apiVersion === GVK.ExternalSecret.apiVersion && c.kind === GVK.ExternalSecret.kind) {
      const since = failures.find((f) => f.externalSecret === c.metadata.name && f.paths.length > 0 && f.paths.every((p) => writers.has(p)))?.since;
      const failure = since === undefined ? undefined : failures.find((f) => f.externalSecret === c.metadata.name);
      const read = since !== undefined && failure !== undefined && failure.paths.every((p) => pushedAgain(writers.get(p), observed, since));
      const value = read ? later(kept, since) : kept;
      return value === undefined ? c : withAnnotation(c, value);
    }
    return c;
  });
  if (failures.length === 0) return { children: out, report: undefined };
  const failed = strings(failures.flatMap((f) => f.paths));
  return {
    children: out,
    report: {
      byHand: failed.filter((p) => !writers.has(p)),
      backups: failed.filter((p) => writers.has(p)),
      pushedAgain: strings([...writers.keys()]),
    },
  };
}

/** Every one of `writers` (the PushSecrets writing a path) observed having pushed since the failure at `since`. */
function pushedAgain(writers: KubeObject[] | undefined, observed: ObjectIndex, since: string): boolean {
  if (!writers || writers.length === 0) return false;
  return writers.every((ps) => {
    const live = observed.getById(identity(ps));
    if (!live || isTerminating(live)) return false;
    const asked = annotationOf(live, ANNOTATION.openBaoReadFailedAt);
    if (asked === undefined || later(asked, since) !== asked) return false;
    const sync = esoSync(live, ESO_REASON.pushed);
    return sync.ready && sync.current;
  });
}

/** The sentence the Ready message gets (docs/architecture.md §3.9). */
export function openBaoMessage(report: OpenBaoReport): string {
  const parts: string[] = [];
  const failed = report.byHand.length + report.backups.length;
  parts.push(`OpenBao (ClusterSecretStore ${CLUSTER_SECRET_STORE}) does not serve ${failed} path(s) ExternalSecrets read (ESO: ${ESO_READ_FAILURE.message})`);
  if (report.byHand.length > 0) parts.push(`to be restored by a person, who put them there: ${report.byHand.join(', ')}`);
  if (report.backups.length > 0) parts.push(`backups of this ControlPlane, pushed again and read back: ${report.backups.join(', ')}`);
  if (report.pushedAgain.length > 0) parts.push(`every backup is pushed again from its Secret: ${report.pushedAgain.join(', ')}`);
  return parts.join('; ');
}
