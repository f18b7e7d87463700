// The two slots of the admin application credential and the role of the AC in each (issue 19).
// Slot A is the AC `{cp}-admin-app-credential` minted with the `value` of the app-credential
// Secret of the same name (the only slot without a schedule, and the name the reference
// operator's AC has, so takeover is unchanged). Slot B is `{cp}-admin-app-credential-b`, minted
// with the `value` of its own Secret `{cp}-admin-app-credential-b`. A scheduled replacement is
// minted in the slot the published credential does not occupy, so rotations alternate A, B, A…
//
// Roles, read from the observed ACs alone:
// - one live AC: it is the published one (a Terminating one beside it is being revoked);
// - two live ACs: the lower `c5c3.io/rotation-sequence` (absent = 0; tie: slot A) is the older.
//   If the older carries `c5c3.io/superseded-at` and the newer is Available with an id, the
//   newer is published and the older superseded; otherwise the older is published and the
//   newer is its replacement.
import { GVK } from '../../k8s/kinds.js';
import { isTerminating, type KubeObject, type ObjectIndex } from '../../k8s/observed.js';
import { isAvailable, openstackId } from '../../k8s/orc.js';
import { secretString } from '../../k8s/secret.js';
import { ANNOTATION, childNames } from '../names.js';
import type { ControlPlaneRef } from '../ref.js';
import { annotationOf } from '../../k8s/read.js';
import { VALUE_KEY } from './round-trip.js';

export type SlotIndex = 0 | 1;

export interface Slot {
  index: SlotIndex;
  /** The AC's name and the name of the Secret holding the secret it is minted with. */
  name: string;
  ac: KubeObject | undefined;
  secret: KubeObject | undefined;
}

/** A slot with an observed AC. */
export type OccupiedSlot = Slot & { ac: KubeObject };

const occupied = (s: Slot): s is OccupiedSlot => s.ac !== undefined;

export interface AdminCredentials {
  slots: [Slot, Slot];
  /** The live AC whose credential the clouds.yaml carries (or will, once it is minted). */
  published?: OccupiedSlot;
  /** A live AC minted alongside the published one, not yet published. */
  replacement?: OccupiedSlot;
  /** The AC the published one replaced (live, or Terminating while K-ORC revokes it). */
  superseded?: OccupiedSlot;
  /** Terminating ACs with no other role. */
  terminating: OccupiedSlot[];
}

export function slotNames(cp: string): [string, string] {
  const names = childNames(cp);
  return [names.adminAppCredential, names.adminAppCredentialB];
}

export const sequenceOf = (ac: KubeObject | undefined): number => {
  const n = Number(annotationOf(ac, ANNOTATION.rotationSequence) ?? '0');
  return Number.isSafeInteger(n) && n >= 0 ? n : 0;
};

const minted = (ac: KubeObject | undefined) => isAvailable(ac) && openstackId(ac) !== undefined;

export function adminCredentials(cp: Pick<ControlPlaneRef, 'name' | 'namespace'>, children: ObjectIndex): AdminCredentials {
  const [a, b] = slotNames(cp.name);
  const slot = (index: SlotIndex, name: string): Slot => ({
    index,
    name,
    ac: children.get(GVK.ApplicationCredential, cp.namespace, name),
    secret: children.get(GVK.Secret, cp.namespace, name),
  });
  const slots: [Slot, Slot] = [slot(0, a), slot(1, b)];
  const live = slots.filter(occupied).filter((s) => !isTerminating(s.ac));
  const terminating = slots.filter(occupied).filter((s) => isTerminating(s.ac));
  const [first, second] = live;
  if (first === undefined) return { slots, terminating };
  // One live AC: the other slot, being deleted while it lives, is a superseded credential being
  // revoked (or the remains of a re-mint); either way it stays released.
  if (second === undefined) return { slots, published: first, terminating };
  const [older, newer] = sequenceOf(second.ac) < sequenceOf(first.ac) ? [second, first] : [first, second];
  if (annotationOf(older.ac, ANNOTATION.supersededAt) !== undefined && minted(newer.ac)) {
    return { slots, published: newer, superseded: older, terminating };
  }
  return { slots, published: older, replacement: newer, terminating };
}

/** The other slot. */
export const otherSlot = (c: AdminCredentials, s: Slot): Slot => c.slots[s.index === 0 ? 1 : 0];

/** The secret a slot's AC is minted with, as observed. */
export const slotValue = (s: Slot): string | undefined => secretString(s.secret, VALUE_KEY);

/** The published credential as the clouds.yaml must carry it: AC name, id and secret, if minted. */
export function publishedCredential(cp: Pick<ControlPlaneRef, 'name' | 'namespace'>, children: ObjectIndex): { name: string; id?: string; value?: string; ac?: KubeObject } {
  const c = adminCredentials(cp, children);
  const s = c.published ?? c.slots[0];
  return { name: s.name, id: s.ac && !isTerminating(s.ac) ? openstackId(s.ac) : undefined, value: slotValue(s), ac: s.ac };
}
