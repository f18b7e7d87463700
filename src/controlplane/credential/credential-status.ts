// status.adminApplicationCredential (seed updateAdminApplicationCredentialStatus): the id of
// the live minted credential, whether it is restricted, and lastRotation, which moves only when
// the id changes. Without a live minted credential the previous value is carried over.
import type { AdminApplicationCredentialStatus } from '../../api/controlplane.js';
import { formatTime } from '../../k8s/conditions.js';
import { isTerminating, type ObjectIndex } from '../../k8s/observed.js';
import { openstackId } from '../../k8s/orc.js';
import { at, isObject, stringAt } from '../../k8s/read.js';
import { adminCredentials } from './slots.js';
import { credentialTimes } from './rotation.js';
import { lifetimeEnd, revokeAt, rotationEligibleAt, supersededAtOf, type Schedule } from './schedule.js';
import { formatSeconds, readTime } from '../../k8s/time.js';
import type { ControlPlaneRef } from '../ref.js';

export type CredentialStatus = AdminApplicationCredentialStatus;

/** The previous status' value as written by an earlier pass (anything else is dropped, not trusted): read by request-reading.ts. */
export function previousCredential(status: unknown): CredentialStatus | undefined {
  const raw = at(status, 'adminApplicationCredential');
  if (!isObject(raw)) return undefined;
  const out: CredentialStatus = {};
  if (typeof raw.id === 'string') out.id = raw.id;
  if (typeof raw.restricted === 'boolean') out.restricted = raw.restricted;
  if (typeof raw.lastRotation === 'string') out.lastRotation = raw.lastRotation;
  return Object.keys(out).length > 0 ? out : undefined;
}

/** `now` is read only when the value depends on it (a new credential, a schedule in force). `previous`: the previous status' value. */
export function credentialStatus(cp: ControlPlaneRef, children: ObjectIndex, previous: CredentialStatus | undefined, now: () => Date, schedule?: Schedule): CredentialStatus | undefined {
  const creds = adminCredentials(cp, children);
  const live = creds.published?.ac;
  const id = live && !isTerminating(live) ? openstackId(live) : undefined;
  if (!id) return previous;
  const unrestricted = at(live, 'spec', 'resource', 'unrestricted') === true;
  const lastRotation = previous?.id === id && previous.lastRotation ? previous.lastRotation : formatTime(now());
  const out: CredentialStatus = { id, restricted: !unrestricted, lastRotation };
  // Scheduled rotation (issue 19): Keystone's expiry, when the replacement is due, the superseded one.
  // Copied only when it is a date-time the CRD admits (k8s/time.ts): the AC's spec is anyone's to edit.
  const expiresAt = stringAt(live, 'spec', 'resource', 'expiresAt');
  if (expiresAt !== undefined && readTime(expiresAt) !== undefined) out.expiresAt = expiresAt;
  const times = credentialTimes(live);
  if (schedule && lifetimeEnd(times, schedule) !== undefined) out.rotationEligibleAt = formatSeconds(rotationEligibleAt(times, schedule, now().getTime()));
  const old = creds.superseded?.ac;
  const oldId = openstackId(old);
  if (old && oldId) {
    const superseded: NonNullable<CredentialStatus['superseded']> = { id: oldId };
    // An unreadable or future superseded-at counts from now (schedule.ts supersededAtOf), as the rotation does.
    if (schedule) superseded.revokeAt = formatSeconds(revokeAt({ ...credentialTimes(old), supersededAt: supersededAtOf(old, now().getTime()).at, terminating: false }, schedule));
    out.superseded = superseded;
  }
  return out;
}
