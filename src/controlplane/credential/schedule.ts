// Scheduled rotation of the admin application credential (docs/architecture.md §6.2),
// make-before-break. Pure functions of (facts, now) in
// milliseconds since the epoch; the KORC stage turns the step into objects (credential/rotation.ts).
//
//   mint (expiresAt = t + interval) ── t + interval − preRotation ──▶ mint the replacement
//   alongside ── replacement Available with an id ──▶ switch the published credential ──
//   materialised clouds.yaml matches and gracePeriod since the switch (or the old one expired)
//   ──▶ revoke the superseded credential.
//
// At most two admin credentials exist: while a superseded one lives no replacement is minted
// (preRotation is capped at half the interval, so a superseded credential has expired before
// its successor is due). A published credential found past its Keystone-enforced expiry with no
// replacement is re-minted at once (break-before-make fallback); a clock that jumps past several
// deadlines therefore causes one rotation, never a burst.
import { at, stringAt } from '../../k8s/read.js';
import type { KubeObject, ObjectIndex } from '../../k8s/observed.js';
import { GVK } from '../../k8s/kinds.js';
import { ADMIN_AC_TARGET } from './rotation-requests.js';
import { ANNOTATION } from '../names.js';
import { readTime } from '../../k8s/time.js';

export const DAY_MS = 86_400_000;

/** CRD defaults of CredentialRotation.spec (src/api/credentialrotation.ts). */
export const SCHEDULE_DEFAULTS = { preRotationDays: 7, gracePeriodDays: 1 } as const;

/**
 * The longest the hook asks to wait for its next deadline (resyncAfterSeconds): one day. The
 * controller's resyncPeriodSeconds (300) calls the hook more often anyway; the cap only bounds
 * what a deadline months away asks for (Metacontroller takes any int32).
 */
export const MAX_SCHEDULE_RESYNC_SECONDS = 24 * 3600;

export interface Schedule {
  intervalMs: number;
  preRotationMs: number;
  graceMs: number;
  /** The CredentialRotation that declares it. */
  source: string;
}

/**
 * The least overlap of a credential and its replacement: time for K-ORC to mint, the PushSecret
 * and ESO to carry the new clouds.yaml to K-ORC. preRotationDays 0 still overlaps this much.
 */
export const MIN_PRE_ROTATION_MS = 3_600_000;

/** preRotation as applied: at least MIN_PRE_ROTATION_MS, at most half the interval, so rotations never overlap. */
export function effectivePreRotationMs(s: Schedule): number {
  return Math.min(Math.max(s.preRotationMs, MIN_PRE_ROTATION_MS), Math.floor(s.intervalMs / 2));
}

export type ScheduleRead = { kind: 'none'; note?: string } | { kind: 'schedule'; schedule: Schedule };

const wholeDays = (v: unknown, min: number): number | undefined =>
  typeof v === 'number' && Number.isSafeInteger(v) && v >= min && v <= 36_500 ? v : undefined;

/**
 * The schedule of the namespace: the one CredentialRotation targeting the admin credential that
 * declares `intervalDays`. None, or more than one (refusing to pick), is no schedule, with a note.
 */
export function readSchedule(related: ObjectIndex, namespace: string): ScheduleRead {
  const declaring = related
    .ofKind(GVK.CredentialRotation)
    .filter((cr) => cr.metadata.namespace === namespace && at(cr, 'spec', 'target') === ADMIN_AC_TARGET && at(cr, 'spec', 'intervalDays') !== undefined)
    .sort((a, b) => (a.metadata.name < b.metadata.name ? -1 : 1));
  if (declaring.length === 0) return { kind: 'none', note: 'rotation mode Scheduled without a CredentialRotation declaring intervalDays: the credential rotates as in PasswordDriven' };
  const [cr, another] = declaring;
  if (cr === undefined || another !== undefined) {
    return { kind: 'none', note: `rotation mode Scheduled: more than one CredentialRotation declares intervalDays (${declaring.map((c) => c.metadata.name).join(', ')}), refusing to pick one: the credential rotates as in PasswordDriven` };
  }
  const interval = wholeDays(at(cr, 'spec', 'intervalDays'), 1);
  const pre = wholeDays(at(cr, 'spec', 'preRotationDays') ?? SCHEDULE_DEFAULTS.preRotationDays, 0);
  const grace = wholeDays(at(cr, 'spec', 'gracePeriodDays') ?? SCHEDULE_DEFAULTS.gracePeriodDays, 0);
  if (interval === undefined || pre === undefined || grace === undefined) {
    return { kind: 'none', note: `rotation mode Scheduled: CredentialRotation ${cr.metadata.name} has an unusable schedule: the credential rotates as in PasswordDriven` };
  }
  return { kind: 'schedule', schedule: { intervalMs: interval * DAY_MS, preRotationMs: pre * DAY_MS, graceMs: grace * DAY_MS, source: cr.metadata.name } };
}

/** The schedule in force for a ControlPlane spec: rotation mode Scheduled and one declared. */
export function activeSchedule(spec: { korc?: { adminCredential?: { applicationCredential?: { rotation?: { mode?: string } } } } }, related: ObjectIndex, namespace: string): Schedule | undefined {
  if (spec.korc?.adminCredential?.applicationCredential?.rotation?.mode !== 'Scheduled') return undefined;
  const read = readSchedule(related, namespace);
  return read.kind === 'schedule' ? read.schedule : undefined;
}

/** What the schedule needs to know of one admin credential. */
export interface CredentialTimes {
  /** spec.resource.expiresAt (Keystone enforces it), ms. */
  expiresAt?: number;
  /** metadata.creationTimestamp, ms: the lifetime of a credential minted without expiresAt. */
  createdAt?: number;
  /** Available with an id. */
  minted: boolean;
}

export interface SupersededTimes extends CredentialTimes {
  /** When the published credential switched away from it. */
  supersededAt: number;
  /** Being deleted (K-ORC revokes it). */
  terminating: boolean;
}

export interface RotationFacts {
  schedule: Schedule;
  now: number;
  /** The published credential (live, minted). */
  published: CredentialTimes;
  /** A replacement minted alongside, not yet published. */
  replacement?: CredentialTimes;
  /** The credential the published one replaced, until it is gone. */
  superseded?: SupersededTimes;
  /** The materialised clouds.yaml authenticates with the published credential. */
  materialised: boolean;
}

export type RotationStep =
  /** Nothing to do before `dueAt` (the replacement's mint time). */
  | { kind: 'wait'; dueAt: number }
  /** The published credential expired at `expiredAt` with no replacement: re-mint at once. */
  | { kind: 'expired'; expiredAt: number }
  /** Mint the replacement now, expiring at `expiresAt`. */
  | { kind: 'mint'; expiresAt: number }
  /** The replacement is not yet Available with an id. */
  | { kind: 'minting' }
  /** Publish the replacement; the published credential becomes the superseded one. */
  | { kind: 'switch' }
  /** The superseded credential stays until `revokeAt` (and the materialised clouds.yaml matching). */
  | { kind: 'grace'; revokeAt: number; materialised: boolean }
  /** Delete the superseded credential (K-ORC revokes it). */
  | { kind: 'revoke'; why: string }
  /** The superseded credential is being deleted. */
  | { kind: 'revoking' };

/** The lifetime end the schedule works with: expiresAt, else creation + interval. */
export function lifetimeEnd(c: CredentialTimes, s: Schedule): number | undefined {
  if (c.expiresAt !== undefined) return c.expiresAt;
  return c.createdAt === undefined ? undefined : c.createdAt + s.intervalMs;
}

/** When the replacement of `c` is minted (rotationEligibleAt); unknown lifetime: due now. */
export function rotationEligibleAt(c: CredentialTimes, s: Schedule, now: number): number {
  const end = lifetimeEnd(c, s);
  return end === undefined ? now : end - effectivePreRotationMs(s);
}

/** When the superseded credential may be revoked: grace after the switch, or its own expiry. */
export function revokeAt(c: SupersededTimes, s: Schedule): number {
  const graceEnd = c.supersededAt + s.graceMs;
  return c.expiresAt === undefined ? graceEnd : Math.min(graceEnd, c.expiresAt);
}

export function planRotation(f: RotationFacts): RotationStep {
  const { schedule: s, now } = f;
  if (f.superseded) {
    if (f.superseded.terminating) return { kind: 'revoking' };
    const expired = f.superseded.expiresAt !== undefined && now >= f.superseded.expiresAt;
    if (expired) return { kind: 'revoke', why: 'it expired' };
    const at = revokeAt(f.superseded, s);
    if (now >= at && f.materialised) return { kind: 'revoke', why: 'the grace period is over and the materialised clouds.yaml carries its successor' };
    return { kind: 'grace', revokeAt: at, materialised: f.materialised };
  }
  if (f.replacement) return f.replacement.minted ? { kind: 'switch' } : { kind: 'minting' };
  const expiresAt = f.published.expiresAt;
  if (expiresAt !== undefined && now >= expiresAt) return { kind: 'expired', expiredAt: expiresAt };
  const due = rotationEligibleAt(f.published, s, now);
  if (now >= due) return { kind: 'mint', expiresAt: now + s.intervalMs };
  return { kind: 'wait', dueAt: due };
}

/** The moment the step waits for, if it waits for a time (for resyncAfterSeconds). */
export function nextDeadline(step: RotationStep, f: RotationFacts): number | undefined {
  const future = (t: number) => (t > f.now ? t : undefined);
  switch (step.kind) {
    case 'wait':
      return future(f.published.expiresAt === undefined ? step.dueAt : Math.min(step.dueAt, f.published.expiresAt));
    case 'grace':
      // Past revokeAt it waits for the materialised clouds.yaml, which the AdminCredential stage polls.
      return future(f.superseded?.expiresAt === undefined ? step.revokeAt : Math.min(step.revokeAt, f.superseded.expiresAt));
    default:
      return undefined;
  }
}

/** Seconds until `deadline`, at least 1, at most MAX_SCHEDULE_RESYNC_SECONDS. */
export function resyncSeconds(deadline: number, now: number): number {
  return Math.max(1, Math.min(MAX_SCHEDULE_RESYNC_SECONDS, Math.ceil((deadline - now) / 1000)));
}

/** A time read from an object, ms; undefined when absent or not a date-time (k8s/time.ts). */
export function timeAt(obj: KubeObject | undefined, ...path: string[]): number | undefined {
  return readTime(stringAt(obj, ...path));
}

/**
 * When the superseded credential `ac` was superseded: its `c5c3.io/superseded-at`, the time the
 * switch stamped. The annotation is free text anyone can edit; a value that is not a date-time
 * (k8s/time.ts), or is later than `now` (a switch cannot have happened yet), is read as `now` and
 * `valid: false`: the KORC stage stamps it again with `now`, so the grace period runs in full from
 * when the service found it unreadable. A bad annotation can only keep the old credential longer
 * (it is revoked once it expires anyway), never revoke it early, never fail the sync.
 */
export function supersededAtOf(ac: KubeObject | undefined, now: number): { at: number; valid: boolean } {
  const t = timeAt(ac, 'metadata', 'annotations', ANNOTATION.supersededAt);
  return t !== undefined && t <= now ? { at: t, valid: true } : { at: now, valid: false };
}
