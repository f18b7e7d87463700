// A service user's password and its rotation (docs/architecture.md §2.14): which password Secret
// the User, the PushSecret and the service CR name, pass after pass, derived from the observed
// children alone.
//
// K-ORC sends a User's password to Keystone only when `spec.resource.passwordRef` names another
// Secret than `status.resource.appliedPasswordRef` (internal/controllers/user/actuator.go
// reconcilePassword, c22784ca), and treats an empty applied ref as "set at creation" (no update).
// So a new password is a new Secret: `{cp}-<svc>-service-user` is the first (serial 1), then
// `…-service-user-v2`, `-v3`. A rotation, requested by a CredentialRotation (target
// serviceUserPassword, targetServiceUser the K-ORC User), walks:
//   1. the next Secret is created with fresh random bytes, listing the requests it honours (every
//      latched one: `c5c3.io/rotation-requests`, as the admin AC), and the PushSecret backs it up to OpenBao (same remote key);
//   2. once that push is proven, the User's passwordRef names it (and the User lists the requests);
//   3. once K-ORC reports it applied (appliedPasswordRef, Available at the generation), the
//      service CR's serviceUser.secretRef names it;
//   4. once the CR is Ready as desired, the superseded Secret is released.
// Keystone holds one password per user, so between 2 and the service operator's restart after 3
// the service cannot authenticate: make-before-break is not possible for a password.
// A rotation starts only from a settled account (the CR exists, the User names and K-ORC applied
// the Secret in use, its backup is proven) and never moves a reference backwards.
import { GVK } from '../../k8s/kinds.js';
import { isTerminating, type KubeObject, type ObjectIndex } from '../../k8s/observed.js';
import { isAvailableUpToDate } from '../../k8s/orc.js';
import { annotationOf, stringAt } from '../../k8s/read.js';
import { secretString } from '../../k8s/secret.js';
import { ANNOTATION, SERVICE_PASSWORD_KEY } from '../names.js';
import { ownedSecret } from '../credential/round-trip.js';
import { formatRequests, pendingRequests, type LatchedRequest } from '../credential/rotation-requests.js';
import type { ControlPlaneRef } from '../ref.js';

/** Bytes of randomness in a generated service-user password (base64url, as the admin AC secret). */
export const SERVICE_PASSWORD_BYTES = 32;

/** The name of the `serial`-th password Secret of a service (`base` is the first). */
export function passwordSecretName(base: string, serial: number): string {
  return serial <= 1 ? base : `${base}-v${serial}`;
}

/** The serial of a password Secret name of the family `base`, or undefined when it is not one. */
export function passwordSerial(base: string, name: unknown): number | undefined {
  if (typeof name !== 'string') return undefined;
  if (name === base) return 1;
  if (!name.startsWith(`${base}-v`)) return undefined;
  const tail = name.slice(base.length + 2);
  if (!/^[1-9][0-9]{0,14}$/.test(tail)) return undefined;
  const serial = Number(tail);
  return serial >= 2 && Number.isSafeInteger(serial + 1) ? serial : undefined;
}

/** The observed, live password Secrets of the family `base`, by serial. */
export function observedPasswordSecrets(children: ObjectIndex, namespace: string, base: string): Map<number, KubeObject> {
  const out = new Map<number, KubeObject>();
  for (const s of children.ofKind(GVK.Secret)) {
    if (s.metadata.namespace !== namespace || isTerminating(s)) continue;
    const serial = passwordSerial(base, s.metadata.name);
    if (serial !== undefined) out.set(serial, s);
  }
  return out;
}

export interface PasswordInput {
  cp: ControlPlaneRef;
  /** `{cp}-<svc>-service-user`. */
  base: string;
  children: ObjectIndex;
  /** Observed, live: the User, the PushSecret, the service CR. */
  user: KubeObject | undefined;
  push: KubeObject | undefined;
  cr: KubeObject | undefined;
  /** Where the CR names the password Secret (`spec.serviceUser.secretRef.name` for a service's own account). */
  crSecretRef: readonly string[];
  /** The CR is Ready at its generation with the desired spec (the superseded Secret may go). */
  crSettled: boolean;
  /** Whether the observed PushSecret has proven a push of the observed Secret `name`. */
  pushed(name: string, observed: KubeObject | undefined): boolean;
  /** CredentialRotation requests for this user (latched, any state). */
  requests: LatchedRequest[];
  random(bytes: number): Buffer;
}

export interface PasswordPlan {
  /** The password Secrets to emit: the one in use, the one rotating in, a superseded one not yet released. */
  secrets: KubeObject[];
  /** Superseded password Secrets to release (the pipeline keeps any observed child a stage does not release). */
  releases: KubeObject[];
  /** The Secret the PushSecret backs up (and its observed state, for the trigger and the proof). */
  backup: { name: string; observed: KubeObject | undefined };
  /** The User's spec.resource.passwordRef and the requests it lists. */
  userPasswordRef: string;
  userAnnotations: Record<string, string> | undefined;
  /** The service CR's serviceUser.secretRef.name. */
  crSecret: string;
  /** While a rotation is under way: its step. */
  rotating?: string;
  /** A rotation is requested but cannot start: why. */
  blocked?: string;
}

const userRef = (user: KubeObject | undefined) => stringAt(user, 'spec', 'resource', 'passwordRef');
const appliedRef = (user: KubeObject | undefined) => stringAt(user, 'status', 'resource', 'appliedPasswordRef');

export function passwordPlan(input: PasswordInput): PasswordPlan {
  const { base, cp } = input;
  const family = observedPasswordSecrets(input.children, cp.namespace, base);
  const crSerial = passwordSerial(base, stringAt(input.cr, ...input.crSecretRef));
  const userSerial = passwordSerial(base, userRef(input.user));
  const appliedSerial = passwordSerial(base, appliedRef(input.user));
  const pushSerial = passwordSerial(base, stringAt(input.push, 'spec', 'selector', 'secret', 'name'));
  const current = crSerial ?? userSerial ?? 1;
  const newest = Math.max(current, userSerial ?? 0, pushSerial ?? 0, ...family.keys());
  const currentName = passwordSecretName(base, current);

  // Requests not honoured by the newest password (a Secret made after the latch, or listing it).
  const newestObserved = family.get(newest);
  const pending = newestObserved ? pendingRequests(input.requests, newestObserved) : [];
  let blocked: string | undefined;
  let target = newest;
  if (newest === current && pending.length > 0) {
    blocked = startBlocker(input, currentName, userSerial === current, appliedSerial === current, family.get(current));
    if (blocked === undefined) target = current + 1;
  }
  const targetName = passwordSecretName(base, target);

  const secret = (serial: number, annotations?: Record<string, string>): KubeObject => {
    const observed = family.get(serial);
    const password = secretString(observed, SERVICE_PASSWORD_KEY) ?? input.random(SERVICE_PASSWORD_BYTES).toString('base64url');
    return ownedSecret(cp, passwordSecretName(base, serial), { [SERVICE_PASSWORD_KEY]: password }, annotations);
  };
  const listed = (serial: number): Record<string, string> | undefined => {
    if (serial <= 1) return undefined;
    const observed = annotationOf(family.get(serial), ANNOTATION.rotationRequests);
    // Every latched request: the pending ones it is made for and those the previous password honoured.
    return { [ANNOTATION.rotationRequests]: observed ?? formatRequests(input.requests) };
  };
  const secrets = [secret(current, listed(current))];
  if (target !== current) secrets.push(secret(target, listed(target)));
  // A superseded Secret (the service used it before) stays until the CR is settled on the new one.
  const superseded = [...family].filter(([serial]) => serial < current);
  if (!input.crSettled) for (const [serial] of superseded) secrets.push(secret(serial, listed(serial)));
  const releases = input.crSettled ? superseded.map(([, o]) => o) : [];

  const targetObserved = family.get(target);
  const rotatingIn = target !== current;
  const pushedTarget = rotatingIn && pushSerial === target && input.pushed(targetName, targetObserved);
  const userSerialNext = rotatingIn && (userSerial === target || pushedTarget) ? target : (userSerial !== undefined && userSerial >= current ? userSerial : current);
  const userPasswordRef = passwordSecretName(base, userSerialNext);
  const applied = userSerial === target && appliedSerial === target && isAvailableUpToDate(input.user);
  const crSecret = rotatingIn && applied ? targetName : currentName;

  let rotating: string | undefined;
  if (rotatingIn) {
    const step = !pushedTarget && userSerial !== target
      ? `backing it up to OpenBao first (PushSecret of Secret ${targetName})`
      : !applied
        ? `waiting for K-ORC to set it in Keystone (User ${input.user?.metadata.name ?? ''} status.resource.appliedPasswordRef)`
        : `the service CR switches to it`;
    rotating = `Rotating the service user's password to Secret ${targetName}: ${step}`;
  }
  return {
    secrets,
    releases,
    backup: { name: targetName, observed: targetObserved },
    userPasswordRef,
    userAnnotations: listed(userSerialNext),
    crSecret,
    ...(rotating !== undefined ? { rotating } : {}),
    ...(blocked !== undefined ? { blocked } : {}),
  };
}

/** Why a requested rotation cannot start now (undefined: it can). */
function startBlocker(input: PasswordInput, currentName: string, userNamesCurrent: boolean, appliedCurrent: boolean, currentObserved: KubeObject | undefined): string | undefined {
  const user = input.user?.metadata.name ?? 'the User';
  if (!input.cr) return `A password rotation is requested; it starts once the service CR exists`;
  if (!userNamesCurrent || !isAvailableUpToDate(input.user)) return `A password rotation is requested; it starts once ${user} is Available with passwordRef ${currentName}`;
  // An empty applied ref makes K-ORC take the next passwordRef as the creation's and send nothing.
  if (!appliedCurrent) {
    return `A password rotation is requested, but K-ORC has not reported the password it applied (${user} status.resource.appliedPasswordRef is not ${currentName}); a K-ORC that reports it (c22784ca or later) is needed`;
  }
  if (!input.pushed(currentName, currentObserved)) return `A password rotation is requested; it starts once the backup of Secret ${currentName} is proven`;
  return undefined;
}
