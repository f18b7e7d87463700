// CredentialRotation requests as the ControlPlane sees them (docs/architecture.md §3.6): a
// CredentialRotation of the namespace targeting the admin application credential whose status
// latched generation G > 0 is the request (uid, G). The admin AC records the requests its mint
// honoured (`c5c3.io/rotation-requests`); a request it does not list is pending and starts one
// re-mint. Both hooks import this module: the ControlPlane to re-mint, the decorator to report.
//
// Requests are keyed by uid: a CredentialRotation deleted and re-created under the same name is
// a new request. Two kinds of AC predate these keys and are read without losing anything:
// - an AC minted by an earlier version of this service lists `name/G`; such an entry honours the
//   request of that name and generation latched before the AC was created (a re-created
//   CredentialRotation latched later is a new request);
// - an AC without the annotation (minted by the reference operator, or restored from a backup
//   that dropped it) lists nothing we can read: a request latched before the AC was created was
//   acted on by whoever minted it (the reference operator nudges at once), so only requests
//   latched after the AC's creation are pending (docs/architecture.md §3.6).
import { GVK } from '../../k8s/kinds.js';
import { findCondition } from '../../k8s/conditions.js';
import type { KubeObject, ObjectIndex } from '../../k8s/observed.js';
import { annotationOf, at, stringAt } from '../../k8s/read.js';
import { ANNOTATION } from '../names.js';
import { readTime } from '../../k8s/time.js';

export const ADMIN_AC_TARGET = 'adminApplicationCredential';
/** A service user's password (services/password-rotation.ts); `spec.targetServiceUser` names its K-ORC User. */
export const SERVICE_USER_TARGET = 'serviceUserPassword';

/** A latched re-mint request of one CredentialRotation. */
export interface LatchedRequest {
  /** `uid/generation`: how the AC annotation lists it. */
  key: string;
  /** `name/generation`: how an AC minted before uid keys lists it. */
  legacyKey: string;
  name: string;
  generation: number;
  /** When it was latched (RFC 3339), if the CredentialRotation says. */
  latchedAt: string | undefined;
}

/** When a CredentialRotation latched its request: its own record, else its Ready transition. */
export function latchedAt(cr: KubeObject): string | undefined {
  const ready = findCondition(cr, 'Ready')?.lastTransitionTime;
  return stringAt(cr, 'status', 'lastTriggeredTime') ?? (typeof ready === 'string' ? ready : undefined);
}

export function requestKey(uid: string, generation: number): string {
  return `${uid}/${generation}`;
}

/** The request a CredentialRotation latched for the admin AC (or, with `user`, for that service user), if it latched one. */
export function latchedRequest(cr: KubeObject, user?: string): LatchedRequest | undefined {
  if (user === undefined ? at(cr, 'spec', 'target') !== ADMIN_AC_TARGET : at(cr, 'spec', 'target') !== SERVICE_USER_TARGET || at(cr, 'spec', 'targetServiceUser') !== user) return undefined;
  const generation = at(cr, 'status', 'lastTriggeredGeneration');
  if (typeof generation !== 'number' || !Number.isSafeInteger(generation) || generation <= 0) return undefined;
  const uid = stringAt(cr, 'metadata', 'uid') ?? '';
  return {
    key: requestKey(uid, generation),
    legacyKey: `${cr.metadata.name}/${generation}`,
    name: cr.metadata.name,
    generation,
    latchedAt: latchedAt(cr),
  };
}

/** The latched requests of the namespace for the admin AC, or with `user` for that service user's password. */
export function rotationRequests(related: ObjectIndex, namespace: string, user?: string): LatchedRequest[] {
  const out: LatchedRequest[] = [];
  for (const cr of related.ofKind(GVK.CredentialRotation)) {
    if (cr.metadata.namespace !== namespace) continue;
    const request = latchedRequest(cr, user);
    if (request) out.push(request);
  }
  return out.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
}

/** The annotation value listing `requests` (empty when there are none: "known to be none"). */
export function formatRequests(requests: LatchedRequest[]): string {
  return requests.map((r) => r.key).join(',');
}

/** Whether `time` is known to be after `reference` (both RFC 3339); unknown counts as not after. */
function after(time: string | undefined, reference: string | undefined): boolean {
  const t = readTime(time);
  const r = readTime(reference);
  return t !== undefined && r !== undefined && t > r;
}

/** The request keys an AC lists, or undefined when it carries no list at all. */
function listedBy(ac: KubeObject): Set<string> | undefined {
  // An empty annotation is a list: "known to be none".
  const raw = annotationOf(ac, ANNOTATION.rotationRequests);
  return raw === undefined ? undefined : new Set(raw.split(',').filter(Boolean));
}

/** Whether the AC lists the request by its uid key (it was minted for exactly this request). */
export function lists(ac: KubeObject, key: string): boolean {
  return listedBy(ac)?.has(key) ?? false;
}

/** Whether the AC was minted for (or predates the latch of) `request`; any object carrying the list reads the same (a service user's password Secret). */
export function honours(ac: KubeObject, request: LatchedRequest): boolean {
  return honoursListed(ac, listedBy(ac), request);
}

function honoursListed(ac: KubeObject, listed: Set<string> | undefined, request: LatchedRequest): boolean {
  const latchedLater = after(request.latchedAt, stringAt(ac, 'metadata', 'creationTimestamp'));
  if (listed === undefined) return !latchedLater;
  return listed.has(request.key) || (listed.has(request.legacyKey) && !latchedLater);
}

/** Requests the live AC does not honour. */
export function pendingRequests(requests: LatchedRequest[], ac: KubeObject): LatchedRequest[] {
  // The AC's list read once, not once per request (linear in the CredentialRotations).
  const listed = listedBy(ac);
  return requests.filter((r) => !honoursListed(ac, listed, r));
}
