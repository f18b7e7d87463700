// Children the API server keeps refusing (the `…Error` rows of the contract tables, docs/architecture.md §7.3; issue 22): a child this
// service asks for normally carries what was asked by the next pass. One that still does not (or
// is still absent) 5 minutes after it was first asked for is not "waiting": its stage reports the
// seed's error reason for that kind, with a message saying what differs. The hooks keep no state,
// so "since when" lives in the parent's status (`status.unappliedChildren`), keyed by the child
// and the ControlPlane generation it was asked for: a spec change starts the clock again. (Not
// a digest of the child: children carry secrets and values derived from them, which must not
// leak into status, and which captured payloads replace with placeholders.)
import { carriesValue } from '../k8s/carries.js';
import { identity, isTerminating, type KubeObject, type ObjectIndex } from '../k8s/observed.js';
import { at, isObject } from '../k8s/read.js';
import { CONDITION, REASON, TIMEOUT_SECONDS, type Decision, type Reason, type StageConditionType } from './conditions.js';
import { formatTime, secondsSince } from '../k8s/conditions.js';
import { GVK } from '../k8s/kinds.js';
import { SERVICES } from '../api/services/index.js';
import { partErrorReason } from '../api/services/facts.js';

const KORC_API_VERSION = GVK.User.apiVersion;

export interface UnappliedChild {
  apiVersion: string;
  kind: string;
  name: string;
  /** When this service first asked for it at `generation` (RFC 3339). */
  since: string;
  /** The ControlPlane's metadata.generation when it was first asked for. */
  generation: number;
}
const keyOf = (c: { apiVersion: string; kind: string; name: string }) => `${c.apiVersion}|${c.kind}|${c.name}`;

/** The previous status' entries (anything malformed is dropped, not trusted). */
export function previousUnapplied(status: unknown): UnappliedChild[] {
  const raw = at(status, 'unappliedChildren');
  if (!Array.isArray(raw)) return [];
  return raw.filter(
    (e): e is UnappliedChild =>
      isObject(e) && ['apiVersion', 'kind', 'name', 'since'].every((k) => typeof e[k] === 'string') && typeof e.generation === 'number',
  );
}

/** Paths (at most three) where `live` does not carry `want`. */
function differences(live: unknown, want: unknown, path: string, out: string[]): void {
  if (out.length >= 3 || carriesValue(live, want)) return;
  if (isObject(want) && isObject(live) && path.split('.').length < 4) {
    for (const key of Object.keys(want)) differences(live[key], want[key], path ? `${path}.${key}` : key, out);
  } else {
    out.push(path || 'the object');
  }
}

/** The error reason of a refused child by its kind, where the kind alone decides it (docs/architecture.md §7.3). */
const KIND_ERROR: Readonly<Record<string, Reason>> = {
  Backup: REASON.DatabaseBackupError,
  MariaDB: REASON.MariaDBError,
  Memcached: REASON.MemcachedError,
  RabbitmqCluster: REASON.MessagingError,
  Keystone: REASON.KeystoneError,
  PushSecret: REASON.PushSecretError,
  Service: REASON.ServiceError,
  Endpoint: REASON.EndpointError,
  // Each service's CR and parts: `<Title>Error`, `<PartKind>Error` (services/descriptor.ts).
  ...Object.fromEntries(SERVICES.flatMap((d) => [[d.kind.kind, d.reasons.error], ...d.partKinds.map((k) => [k.kind, partErrorReason(k.kind)])])),
};

/** The seed's error reason of a stage for one of its children; undefined for a kind no stage emits. */
export function errorReason(conditionType: StageConditionType, child: Pick<KubeObject, 'apiVersion' | 'kind' | 'metadata'>): Reason | undefined {
  const byKind = KIND_ERROR[child.kind];
  if (byKind !== undefined) return byKind;
  switch (child.kind) {
    case 'ExternalSecret':
      return conditionType === CONDITION.KORC ? REASON.CloudsYamlError : REASON.ExternalSecretError;
    case 'Secret':
      return child.metadata.name.endsWith('-admin-password-cloud') ? REASON.PasswordCloudError : REASON.SecretError;
  }
  if (child.apiVersion !== KORC_API_VERSION) return undefined;
  // K-ORC objects: the admin chain's (KORC: the AC and the Domain and User it imports) or a
  // service's account (User, RoleAssignment, the shared project and role).
  if (conditionType !== CONDITION.KORC) return REASON.ServiceAccountError;
  return child.kind === 'Domain' ? REASON.DomainError : child.kind === 'User' ? REASON.UserError : REASON.ApplicationCredentialError;
}

export interface Unapplied {
  /** This pass's entries for the stage's children that do not carry what is asked. */
  entries: UnappliedChild[];
  /** The error condition when one of them is overdue. */
  error?: Decision;
}

/** Track the children one stage asks for this pass against what is observed. */
export function trackUnapplied(
  conditionType: StageConditionType,
  desired: KubeObject[],
  observed: ObjectIndex,
  previous: readonly UnappliedChild[],
  generation: number,
  /** Read only when a child is unapplied (a converged pass does not read the clock here). */
  now: () => Date,
): Unapplied {
  // Built only when a child is unapplied (a converged pass has none): this runs once per stage.
  let before: Map<string, UnappliedChild> | undefined;
  let asked: string | undefined;
  const entries: UnappliedChild[] = [];
  const overdue: string[] = [];
  let reason: Reason | undefined;
  for (const want of desired) {
    const live = observed.getById(identity(want));
    if (live && (isTerminating(live) || carriesValue(live, want))) continue;
    const key = { apiVersion: want.apiVersion, kind: want.kind, name: want.metadata.name };
    before ??= new Map(previous.map((e) => [keyOf(e), e]));
    const earlier = before.get(keyOf(key));
    const since = earlier && earlier.generation === generation ? earlier.since : (asked ??= formatTime(now()));
    entries.push({ ...key, since, generation });
    // Asked for this pass: no time has passed (now, truncated to the second).
    const age = since === asked ? 0 : (secondsSince(since, now) ?? 0);
    if (age > TIMEOUT_SECONDS.childNotApplied) {
      // A kind no stage emits cannot be refused here; named generically rather than as another kind's error.
      reason ??= errorReason(conditionType, want) ?? REASON.ChildNotApplied;
      const label = `${want.kind} ${want.metadata.name}`;
      if (!live) overdue.push(`${label} still does not exist ${Math.floor(age / 60)} minutes after it was asked for`);
      else {
        const paths: string[] = [];
        differences(live, want, '', paths);
        overdue.push(`${label} still does not carry ${paths.join(', ')} as asked ${Math.floor(age / 60)} minutes ago`);
      }
    }
  }
  if (reason === undefined) return { entries };
  const message = `${overdue.join('; ')}: the API server or an admission webhook refuses it (see the ControlPlane's SyncError events and Metacontroller's log)`;
  return { entries, error: { status: 'False', reason, message } };
}
