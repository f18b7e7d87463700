// CredentialRotation requests as the ControlPlane sees them (DESIGN §5, §9.4): a
// CredentialRotation of the namespace targeting the admin application credential whose status
// latched generation G > 0 is the request `name/G`. The admin AC records the requests its mint
// honoured; a request it does not list is pending and starts one re-mint.
//
// Requests are keyed by name, not uid (a deviation from DESIGN §9.4's (uid, G)): a
// CredentialRotation deleted and re-created from the same manifest (a GitOps re-apply) comes back
// at generation 1 with a new uid, and must not rotate the credential a second time.
import { GVK } from '../../k8s/kinds.js';
import type { KubeObject, ObjectIndex } from '../../k8s/observed.js';
import { at, stringAt } from '../../k8s/read.js';
import { ANNOTATION } from '../names.js';

export const ADMIN_AC_TARGET = 'adminApplicationCredential';

export interface RotationRequest {
  /** `name/generation`: how the AC annotation lists it. */
  key: string;
  name: string;
  generation: number;
}

export function rotationRequests(related: ObjectIndex, namespace: string): RotationRequest[] {
  const out: RotationRequest[] = [];
  for (const cr of related.ofKind(GVK.CredentialRotation)) {
    if (cr.metadata.namespace !== namespace || at(cr, 'spec', 'target') !== ADMIN_AC_TARGET) continue;
    const generation = at(cr, 'status', 'lastTriggeredGeneration');
    if (typeof generation !== 'number' || !Number.isSafeInteger(generation) || generation <= 0) continue;
    out.push({ key: requestKey(cr.metadata.name, generation), name: cr.metadata.name, generation });
  }
  return out.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
}

export function requestKey(name: string, generation: number): string {
  return `${name}/${generation}`;
}

/** The annotation value listing `requests` (empty when there are none). */
export function formatRequests(requests: RotationRequest[]): string {
  return requests.map((r) => r.key).join(',');
}

/** The requests an AC was minted for. */
export function honouredBy(ac: KubeObject): Set<string> {
  const raw = stringAt(ac, 'metadata', 'annotations', ANNOTATION.rotationRequests) ?? '';
  return new Set(raw.split(',').filter(Boolean));
}

/** Requests the live AC does not list. */
export function pendingRequests(requests: RotationRequest[], ac: KubeObject): RotationRequest[] {
  const honoured = honouredBy(ac);
  return requests.filter((r) => !honoured.has(r.key));
}
