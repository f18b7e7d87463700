// The admin ApplicationCredential (K-ORC): its spec.resource as projected from the ControlPlane,
// the object for a fresh mint, the object that keeps a live one, and drift of the fields we set.
// spec.resource is CEL-immutable, so a live AC is always returned with its own resource.
import { GVK } from '../../k8s/kinds.js';
import type { KubeObject } from '../../k8s/observed.js';
import { at, isObject, stringAt } from '../../k8s/read.js';
import { sha256Hex } from '../../k8s/secret.js';
import { child } from '../children.js';
import { ADMIN_AC_LABEL, ADMIN_AC_LABEL_VALUE, ANNOTATION, childNames } from '../names.js';
import type { ControlPlaneRef } from '../ref.js';
import { formatRequests, type LatchedRequest } from './rotation-requests.js';

export const HTTP_METHODS = ['CONNECT', 'DELETE', 'GET', 'HEAD', 'OPTIONS', 'PATCH', 'POST', 'PUT', 'TRACE'] as const;

export interface AccessRule {
  method: string;
  path: string;
  serviceRef: string;
}

/** The operator-managed fields of spec.resource (the drift set of the seed). */
export interface ManagedResource {
  unrestricted: boolean;
  userRef: string;
  secretRef: string;
  accessRules: AccessRule[];
}

export function managedResource(cp: string, restricted: boolean, accessRules: AccessRule[]): ManagedResource {
  const names = childNames(cp);
  return { unrestricted: !restricted, userRef: names.user, secretRef: names.adminAppCredential, accessRules };
}

/**
 * The OpenStack-side name of one mint: the object name plus a prefix of the hash of the secret it
 * is minted with. K-ORC adopts an existing credential of the same name; tying the name to the
 * secret means a survivor of a failed revoke is never adopted with a secret that does not match.
 */
export function mintName(cp: string, value: string): string {
  return `${childNames(cp).adminAppCredential}-${sha256Hex(value).slice(0, 8)}`;
}

function normalisedRules(value: unknown): AccessRule[] {
  if (!Array.isArray(value)) return [];
  return value.map((r) => ({
    method: stringAt(r, 'method') ?? '',
    path: stringAt(r, 'path') ?? '',
    serviceRef: stringAt(r, 'serviceRef') ?? '',
  }));
}

/** Fields of spec.resource (among the ones we set) whose live value differs from the projection. */
export function resourceDrift(live: KubeObject, want: ManagedResource): string[] {
  const resource = at(live, 'spec', 'resource');
  const drift: string[] = [];
  if ((at(resource, 'unrestricted') ?? false) !== want.unrestricted) drift.push('unrestricted');
  if (at(resource, 'userRef') !== want.userRef) drift.push('userRef');
  if (at(resource, 'secretRef') !== want.secretRef) drift.push('secretRef');
  if (JSON.stringify(normalisedRules(at(resource, 'accessRules'))) !== JSON.stringify(want.accessRules)) {
    drift.push('accessRules');
  }
  return drift;
}

export interface AcCommon {
  cp: ControlPlaneRef;
  cloudName: string;
  /** The AC's name (its slot, credential/slots.ts); the slot A name when absent. */
  name?: string;
}

/** What a mint under a rotation schedule adds: Keystone's expiry and the place in the sequence. */
export interface ScheduledMint {
  expiresAt: string;
  sequence: number;
}

function acObject(c: AcCommon, resource: unknown, annotations: Record<string, string>): KubeObject {
  const names = childNames(c.cp.name);
  return child(
    GVK.ApplicationCredential,
    c.cp,
    c.name ?? names.adminAppCredential,
    {
      spec: {
        cloudCredentialsRef: { cloudName: c.cloudName, secretName: names.adminPasswordCloud },
        managementPolicy: 'managed',
        resource,
      },
    },
    { labels: { [ADMIN_AC_LABEL]: ADMIN_AC_LABEL_VALUE }, annotations },
  );
}

/** A fresh mint: the current password hash, the secret's hash, every request latched now. */
export function mintedAc(
  c: AcCommon,
  want: ManagedResource,
  value: string,
  passwordHash: string,
  requests: LatchedRequest[],
  scheduled?: ScheduledMint,
): KubeObject {
  const resource: Record<string, unknown> = {
    name: mintName(c.cp.name, value),
    description: `c5c3 admin credential of ControlPlane ${c.cp.namespace}/${c.cp.name}`,
    userRef: want.userRef,
    secretRef: want.secretRef,
    unrestricted: want.unrestricted,
  };
  if (want.accessRules.length > 0) resource.accessRules = want.accessRules;
  if (scheduled) resource.expiresAt = scheduled.expiresAt;
  // Always written, also empty: an AC without it is one this service did not mint.
  const annotations: Record<string, string> = {
    [ANNOTATION.passwordHash]: passwordHash,
    [ANNOTATION.secretHash]: sha256Hex(value),
    [ANNOTATION.rotationRequests]: formatRequests(requests),
  };
  if (scheduled) annotations[ANNOTATION.rotationSequence] = String(scheduled.sequence);
  return acObject(c, resource, annotations);
}

/**
 * Keeping a live AC: its own resource, its annotations echoed as observed (docs/architecture.md §3.2), plus
 * `stamp`: the bookkeeping an adopted AC lacked (never overwriting one it has), and `repair`: a
 * value of ours it holds that cannot be read (an unreadable superseded-at), written anew.
 */
export function keptAc(c: AcCommon, live: KubeObject, stamp: Record<string, string> = {}, repair: Record<string, string> = {}): KubeObject {
  const annotations: Record<string, string> = {};
  for (const key of [ANNOTATION.passwordHash, ANNOTATION.secretHash, ANNOTATION.rotationRequests, ANNOTATION.rotationSequence, ANNOTATION.supersededAt]) {
    const value = at(live, 'metadata', 'annotations', key);
    if (repair[key] !== undefined) annotations[key] = repair[key];
    else if (typeof value === 'string') annotations[key] = value;
    else if (stamp[key] !== undefined) annotations[key] = stamp[key];
  }
  const resource = at(live, 'spec', 'resource');
  return acObject(c, isObject(resource) ? resource : {}, annotations);
}

