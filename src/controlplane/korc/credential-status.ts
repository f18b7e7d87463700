// status.adminApplicationCredential (seed updateAdminApplicationCredentialStatus): the id of
// the live minted credential, whether it is restricted, and lastRotation, which moves only when
// the id changes. Without a live minted credential the previous value is carried over.
import type { Static } from '@sinclair/typebox';
import type { AdminApplicationCredentialStatus } from '../../api/controlplane.js';
import { formatTime } from '../../k8s/conditions.js';
import { GVK } from '../../k8s/kinds.js';
import { isTerminating, type ObjectIndex } from '../../k8s/observed.js';
import { openstackId } from '../../k8s/orc.js';
import { at, isObject } from '../../k8s/read.js';
import { childNames } from '../names.js';
import type { ControlPlaneRef } from '../stage.js';

export type CredentialStatus = Static<typeof AdminApplicationCredentialStatus>;

/** A previous value as written by an earlier pass (anything else is dropped, not trusted). */
function previousOf(status: unknown): CredentialStatus | undefined {
  const raw = at(status, 'adminApplicationCredential');
  if (!isObject(raw)) return undefined;
  const out: CredentialStatus = {};
  if (typeof raw.id === 'string') out.id = raw.id;
  if (typeof raw.restricted === 'boolean') out.restricted = raw.restricted;
  if (typeof raw.lastRotation === 'string') out.lastRotation = raw.lastRotation;
  return Object.keys(out).length > 0 ? out : undefined;
}

export function credentialStatus(cp: ControlPlaneRef, children: ObjectIndex, previousStatus: unknown, now: Date): CredentialStatus | undefined {
  const previous = previousOf(previousStatus);
  const live = children.get(GVK.ApplicationCredential, cp.namespace, childNames(cp.name).adminAppCredential);
  const id = live && !isTerminating(live) ? openstackId(live) : undefined;
  if (!id) return previous;
  const unrestricted = at(live, 'spec', 'resource', 'unrestricted') === true;
  const lastRotation = previous?.id === id && previous.lastRotation ? previous.lastRotation : formatTime(now);
  return { id, restricted: !unrestricted, lastRotation };
}
