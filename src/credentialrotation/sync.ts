// POST /credentialrotation/sync (DecoratorController): the rotation handshake of docs/architecture.md §3.6 and
// §3.7. The admin ApplicationCredential has one writer, the ControlPlane sync hook, so this hook
// never touches it: it latches an explicit `reMint` on its own status (`lastTriggeredGeneration`
// and `lastTriggeredTime`, once per spec generation, and only once an admin AC exists) and the
// ControlPlane, which relates every CredentialRotation of its namespace, re-mints for the request
// `uid/generation` and lists it on the new AC. This hook reads the ControlPlane's conditions and
// the labelled AC to report; it reads no Secret. While a request is pending it does not poll:
// the AC and the ControlPlane are related objects, so their changes resync it.
import type { CredentialRotationParent, CredentialRotationSyncRequest, DecoratorHookResponse} from '../api/hooks.js';
import { decideCondition, findCondition, previousConditions, type Condition, type ConditionDecision } from '../k8s/conditions.js';
import { GVK } from '../k8s/kinds.js';
import { isTerminating, ObjectIndex, type KubeObject } from '../k8s/observed.js';
import { isAvailable } from '../k8s/orc.js';
import { at, stringAt } from '../k8s/read.js';
import { CONDITION, REASON as CP_REASON } from '../controlplane/conditions.js';
import { childNames } from '../controlplane/names.js';
import { publishedCredential } from '../controlplane/credential/slots.js';
import { ADMIN_AC_TARGET, SERVICE_USER_TARGET, honours, latchedAt, lists, requestKey, type LatchedRequest } from '../controlplane/credential/rotation-requests.js';
import { isAvailableUpToDate } from '../k8s/orc.js';
import { accountNames } from '../api/child-names.js';
import { SERVICES } from '../api/services/index.js';
import { formatTime } from '../k8s/conditions.js';
import type { HookEvent } from '../events.js';
import { ROTATION_CONDITION, ROTATION_REASON, ROTATION_WAIT_SECONDS } from './conditions.js';



export interface RotationContext {
  now: () => Date;
  onEvent?: (event: HookEvent) => void;
}

interface Verdict {
  ready: ConditionDecision;
  requeue?: number;
  latch?: number;
}

/** The request of this CredentialRotation at `generation`, latched at `latchedAt`. */
function requestOf(cr: CredentialRotationParent, generation: number, latchedAt: string | undefined): LatchedRequest {
  return { key: requestKey(cr.metadata.uid ?? '', generation), legacyKey: `${cr.metadata.name}/${generation}`, name: cr.metadata.name, generation, latchedAt };
}

const wait = (reason: string, message: string, requeue: number | null = ROTATION_WAIT_SECONDS): Verdict => ({ ready: { status: 'False', reason, message }, requeue: requeue ?? undefined });
const done = (reason: string, message: string, latch?: number): Verdict => ({ ready: { status: 'True', reason, message }, latch });

/** The one ControlPlane of the namespace, or the verdict that there is none to act on. */
function theControlPlane(cr: CredentialRotationParent, cps: KubeObject[]): KubeObject | Verdict {
  if (cps.length === 0) return wait(ROTATION_REASON.NoControlPlane, `No ControlPlane in namespace ${cr.metadata.namespace}`);
  if (cps.length > 1) {
    const names = cps.map((c) => c.metadata.name).sort().join(', ');
    return wait(ROTATION_REASON.AmbiguousControlPlane, `More than one ControlPlane in namespace ${cr.metadata.namespace} (${names}): refusing to pick one`, null);
  }
  return cps[0]!;
}

const isVerdict = (x: KubeObject | Verdict): x is Verdict => 'ready' in x;

/** The K-ORC User names of the accounts of the services the ControlPlane declares (an extra account while the service it is for is declared). */
function serviceUsers(cp: KubeObject): string[] {
  const services = (at(cp, 'spec', 'services') ?? {}) as Record<string, unknown>;
  const declared = (svc: string) => services[svc] !== undefined && services[svc] !== null;
  return SERVICES.filter((d) => declared(d.name)).flatMap((d) => [
    accountNames(cp.metadata.name, d.name, '').user,
    ...(d.extraAccounts ?? []).filter((a) => declared(a.whileService)).map((a) => accountNames(cp.metadata.name, d.name, a.key).user),
  ]);
}

/**
 * target serviceUserPassword (docs/architecture.md §2.14): the request is latched once the
 * service's User exists; the ControlPlane replaces the password and lists the request on the User.
 */
function decideServiceUser(cr: CredentialRotationParent, generation: number, latched: number, cps: KubeObject[], user: KubeObject | undefined): Verdict {
  const spec = (cr.spec ?? {}) as Record<string, unknown>;
  const target = spec.targetServiceUser;
  if (typeof target !== 'string' || target.length === 0) {
    return wait(ROTATION_REASON.UnsupportedTarget, `The target ${SERVICE_USER_TARGET} needs spec.targetServiceUser: the K-ORC User of a service`, null);
  }
  if (spec.bootstrap !== undefined || spec.intervalDays !== undefined) {
    return wait(ROTATION_REASON.UnsupportedTarget, `The target ${SERVICE_USER_TARGET} is a one-shot reMint: bootstrap and intervalDays apply to ${ADMIN_AC_TARGET} only`, null);
  }
  const found = theControlPlane(cr, cps);
  if (isVerdict(found)) return found;
  const cp = found;
  const users = serviceUsers(cp);
  if (!users.includes(target)) {
    const known = users.length > 0 ? `its service users are ${users.join(', ')}` : 'it declares no service';
    return wait(ROTATION_REASON.UnsupportedTarget, `User ${target} is not a service user of ControlPlane ${cp.metadata.name} (${known})`, null);
  }
  const live = user && !isTerminating(user) ? user : undefined;
  if (spec.reMint === true && latched !== generation) {
    if (!live) return wait(ROTATION_REASON.WaitingForServiceUser, `User ${target} does not exist yet; the password rotation is requested once it does`);
    if (lists(live, requestKey(cr.metadata.uid ?? '', generation))) {
      return done(ROTATION_REASON.NoRotationNeeded, `The password of User ${target} was already replaced for this request`, generation);
    }
    return done(ROTATION_REASON.RotationTriggered, `Password rotation of User ${target} requested from ControlPlane ${cp.metadata.name} (generation ${generation})`, generation);
  }
  return done(ROTATION_REASON.NoRotationNeeded, latched === generation ? `The password rotation of generation ${generation} was already requested` : 'No password rotation requested');
}

function decide(cr: CredentialRotationParent, generation: number, latched: number, cps: KubeObject[], ac: KubeObject | undefined): Verdict {
  const spec = (cr.spec ?? {}) as Record<string, unknown>;
  if (spec.target !== ADMIN_AC_TARGET) {
    return wait(ROTATION_REASON.UnsupportedTarget, `The target ${JSON.stringify(spec.target)} is not supported: only ${ADMIN_AC_TARGET} and ${SERVICE_USER_TARGET}`, null);
  }
  const found = theControlPlane(cr, cps);
  if (isVerdict(found)) return found;
  const cp = found;
  const acName = childNames(cp.metadata.name).adminAppCredential;
  const live = ac && !isTerminating(ac) ? ac : undefined;
  if (spec.bootstrap === true) {
    return live
      ? done(ROTATION_REASON.BootstrapComplete, `ApplicationCredential ${acName} exists`)
      : wait(ROTATION_REASON.WaitingForBootstrap, `Waiting for ControlPlane ${cp.metadata.name} to mint ApplicationCredential ${acName}`);
  }
  const korcReason = findCondition(cp, CONDITION.KORC)?.reason;
  const cannotAct = korcReason === CP_REASON.WaitingForAdminPassword || korcReason === CP_REASON.AdminPasswordError;
  if (spec.reMint === true && latched !== generation) {
    if (cannotAct) return wait(ROTATION_REASON.WaitingForAdminPassword, `ControlPlane ${cp.metadata.name} is waiting for the admin password; the re-mint is requested once it can act`);
    // The handshake table (docs/architecture.md §3.7), "no AC at all": nothing to rotate yet; latched once an AC exists (one
    // being deleted for a re-mint counts: the next mint lists the request).
    if (!ac) return wait(ROTATION_REASON.WaitingForApplicationCredential, `ApplicationCredential ${acName} does not exist yet; the re-mint is requested once it does`);
    if (live && lists(live, requestKey(cr.metadata.uid ?? '', generation))) {
      return done(ROTATION_REASON.NoRotationNeeded, `ApplicationCredential ${acName} was already minted for this request`, generation);
    }
    return done(ROTATION_REASON.RotationTriggered, `Re-mint of ApplicationCredential ${acName} requested from ControlPlane ${cp.metadata.name} (generation ${generation})`, generation);
  }
  if (!cannotAct && !live) return wait(ROTATION_REASON.WaitingForApplicationCredential, `ApplicationCredential ${acName} does not exist yet`);
  return done(ROTATION_REASON.NoRotationNeeded, latched === generation ? `The re-mint of generation ${generation} was already requested` : 'No re-mint requested');
}

/**
 * RotationComplete: the latched request is listed by a live, Available admin AC. Once True it
 * stays True until a new request is latched: a later outage or re-mint does not undo a rotation
 * that happened.
 */
function completion(request: LatchedRequest | undefined, ac: KubeObject | undefined, before: Condition | undefined): ConditionDecision | undefined {
  if (!request) return undefined;
  if (before?.status === 'True') return { status: 'True', reason: before.reason, message: before.message };
  if (ac && !isTerminating(ac) && honours(ac, request) && isAvailable(ac)) {
    return { status: 'True', reason: ROTATION_REASON.RotationCompleted, message: `ApplicationCredential ${ac.metadata.name} was minted for request ${request.key} and is Available` };
  }
  return { status: 'False', reason: ROTATION_REASON.RotationInProgress, message: `Waiting for an Available ApplicationCredential minted for request ${request.key}` };
}

/**
 * RotationComplete of a service user's password: the User lists the latched request, K-ORC
 * applied the Secret it names (appliedPasswordRef) and is Available at its generation. Sticky
 * like the admin AC's.
 */
function userCompletion(request: LatchedRequest | undefined, user: KubeObject | undefined, before: Condition | undefined): ConditionDecision | undefined {
  if (!request) return undefined;
  if (before?.status === 'True') return { status: 'True', reason: before.reason, message: before.message };
  const ref = stringAt(user, 'spec', 'resource', 'passwordRef');
  if (user && !isTerminating(user) && honours(user, request) && ref !== undefined && stringAt(user, 'status', 'resource', 'appliedPasswordRef') === ref && isAvailableUpToDate(user)) {
    return { status: 'True', reason: ROTATION_REASON.RotationCompleted, message: `K-ORC set the password of Secret ${ref} in Keystone for User ${user.metadata.name} (request ${request.key})` };
  }
  return { status: 'False', reason: ROTATION_REASON.RotationInProgress, message: `Waiting for K-ORC to set a password replaced for request ${request.key} in Keystone` };
}

/**
 * Scheduled rotation as this CredentialRotation sees it (issue 19): when it declares intervalDays,
 * the ControlPlane's next and last rotation (its status.adminApplicationCredential), or why the
 * schedule does not apply. The ControlPlane acts on it; this hook only reports.
 */
function scheduleReport(cr: CredentialRotationParent, cps: KubeObject[]): { note?: string; nextRotationTime?: string; lastRotationTime?: string } {
  // preRotationDays and gracePeriodDays have CRD defaults: only intervalDays declares a schedule.
  if ((cr.spec as Record<string, unknown> | undefined)?.intervalDays === undefined || cps.length !== 1) return {};
  const cp = cps[0]!;
  const mode = stringAt(cp, 'spec', 'korc', 'adminCredential', 'applicationCredential', 'rotation', 'mode') ?? 'PasswordDriven';
  if (mode !== 'Scheduled') return { note: `the schedule applies once ControlPlane ${cp.metadata.name} has rotation mode Scheduled (it has ${mode})` };
  const nextRotationTime = stringAt(cp, 'status', 'adminApplicationCredential', 'rotationEligibleAt');
  const lastRotationTime = stringAt(cp, 'status', 'adminApplicationCredential', 'lastRotation');
  return {
    note: nextRotationTime ? `ControlPlane ${cp.metadata.name} rotates the credential on this schedule, next at ${nextRotationTime}` : `ControlPlane ${cp.metadata.name} rotates the credential on this schedule`,
    nextRotationTime,
    lastRotationTime,
  };
}

export function syncCredentialRotation(request: CredentialRotationSyncRequest, context: RotationContext): DecoratorHookResponse {
  const cr = request.object;
  const ns = cr.metadata.namespace;
  const generation = cr.metadata.generation ?? 0;
  const previousStatus = cr.status as Record<string, unknown> | undefined;
  const latchedBefore = at(previousStatus, 'lastTriggeredGeneration');
  const related = new ObjectIndex(request.related, ns);
  const cps = related.ofKind(GVK.ControlPlane).filter((c) => c.metadata.namespace === ns);
  const spec = (cr.spec ?? {}) as Record<string, unknown>;
  const forUser = spec.target === SERVICE_USER_TARGET;
  // The published admin AC: slot A's, or under scheduled rotation either slot's (credential/slots.ts).
  const ac = !forUser && cps.length === 1 ? publishedCredential({ name: cps[0]!.metadata.name, namespace: ns }, related).ac : undefined;
  const user = forUser && typeof spec.targetServiceUser === 'string' ? related.get(GVK.User, ns, spec.targetServiceUser) : undefined;

  const latchedNumber = typeof latchedBefore === 'number' ? latchedBefore : 0;
  const verdict = forUser ? decideServiceUser(cr, generation, latchedNumber, cps, user) : decide(cr, generation, latchedNumber, cps, ac);
  const latched = verdict.latch ?? (typeof latchedBefore === 'number' ? latchedBefore : 0);
  const newlyLatched = verdict.latch !== undefined && verdict.latch !== latchedBefore;
  const latchTime = newlyLatched ? formatTime(context.now()) : latchedAt(cr as KubeObject);
  const latch: LatchedRequest | undefined =
    latched > 0 ? requestOf(cr, latched, latchTime) : undefined;
  const ready = { ...verdict.ready };
  const schedule = forUser ? {} : scheduleReport(cr, cps);
  if (schedule.note) ready.message += `; ${schedule.note}`;
  if (verdict.ready.reason === ROTATION_REASON.RotationTriggered) {
    context.onEvent?.({ level: 'info', reason: 'RotationNudged', message: verdict.ready.message, objects: [`CredentialRotation/${cr.metadata.name}`] });
  }

  const previous = previousConditions(previousStatus);
  const conditions: Condition[] = [decideCondition(ROTATION_CONDITION.Ready, ready, previous.get(ROTATION_CONDITION.Ready), generation, context.now)];
  const sameRequest = typeof latchedBefore === 'number' && latchedBefore === latched;
  const before = sameRequest ? previous.get(ROTATION_CONDITION.Complete) : undefined;
  const complete = forUser ? userCompletion(latch, user, before) : completion(latch, ac, before);
  if (complete) conditions.push(decideCondition(ROTATION_CONDITION.Complete, complete, previous.get(ROTATION_CONDITION.Complete), generation, context.now));

  const status: Record<string, unknown> = { conditions, observedGeneration: generation };
  if (latched > 0) status.lastTriggeredGeneration = latched;
  const ownTime = stringAt(previousStatus, 'lastTriggeredTime');
  if (newlyLatched) status.lastTriggeredTime = latchTime;
  else if (ownTime !== undefined) status.lastTriggeredTime = ownTime;
  if (schedule.nextRotationTime) status.nextRotationTime = schedule.nextRotationTime;
  if (schedule.lastRotationTime) status.lastRotationTime = schedule.lastRotationTime;
  const response: DecoratorHookResponse = { status, attachments: [] };
  // No poll while a request is pending: the AC and the ControlPlane are related objects.
  const requeue = verdict.requeue;
  if (requeue !== undefined) response.resyncAfterSeconds = requeue;
  return response;
}
