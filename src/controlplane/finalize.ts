// POST /controlplane/finalize: ordered teardown (docs/architecture.md §4).
// Metacontroller owns the parent's finalizer and calls this hook instead of sync while the
// ControlPlane is being deleted. The K-ORC objects go first, one dependency group at a time,
// while Keystone and its infrastructure stay up so K-ORC can revoke in OpenStack; only then is
// the parent released and garbage collection removes the rest.
import type { CompositeHookResponse, ControlPlaneHookRequest } from '../api/hooks.js';
import { GVK, type KindInfo } from '../k8s/kinds.js';
import { keepAsIs, identity, isReady, isTerminating, type ObjectIndex, type KubeObject } from '../k8s/observed.js';
import { detached, openstackId, terminalError } from '../k8s/orc.js';
import { at } from '../k8s/read.js';
import { assertKeepsObserved, keepObserved } from '../k8s/invariant.js';
import { decideCondition, secondsSince } from '../k8s/conditions.js';
import { CONDITION, REASON, REQUEUE, TIMEOUT_SECONDS } from './conditions.js';
import { childNames } from './names.js';
import { readRequest } from './request-reading.js';
import { buildStatus } from './status.js';
import { carriedRollout } from './rollout/rollout.js';
import { credentialStatus } from './credential/credential-status.js';
import type { ControlPlaneRef } from './ref.js';
import type { HookEvent } from '../events.js';
import { SERVICES, SERVICE_KINDS } from '../api/services/index.js';

/**
 * Deletion order: the catalog entries and the services' role assignments first (their deletion
 * authenticates with the admin application credential), then the services' managed users, the
 * shared service project and role (the same credential; the latter two detached) and the Regions
 * the rows were registered in (the ControlPlane's detached, the services' imports: each after the
 * Endpoints naming it, which K-ORC holds it for, and before the credential they authenticate with
 * is revoked; neither deletes the region), then the credential (it authenticates with the password
 * cloud), then the unmanaged imports (removing them touches nothing in OpenStack). A managed
 * User, Project or Role is in group 1, an unmanaged one (an import) in group 3.
 */
export const TEARDOWN_GROUPS: readonly (readonly KindInfo[])[] = [
  [GVK.Endpoint, GVK.Service, GVK.RoleAssignment],
  [GVK.User, GVK.Project, GVK.Role, GVK.Region],
  [GVK.ApplicationCredential],
  [GVK.User, GVK.Domain, GVK.Project, GVK.Role],
];

/** The service CRs, removed after every K-ORC object and before Keystone and infrastructure (docs/architecture.md §4.1). */
export const SERVICE_CR_KINDS: readonly KindInfo[] = SERVICE_KINDS;

/**
 * The service CRs (and their parts) in the order they go: the reverse of SERVICES, so a service goes
 * before the services it depends on (Nova before Cinder, Neutron, Placement and Glance).
 */
export const SERVICE_TEARDOWN_ORDER: readonly (readonly KindInfo[])[] = [...SERVICES].reverse().map((d) => [d.kind, ...d.partKinds]);

const sameKind = (k: KindInfo, obj: KubeObject) => k.apiVersion === obj.apiVersion && k.kind === obj.kind;
const isOrcKind = (obj: KubeObject) => TEARDOWN_GROUPS.some((g) => g.some((k) => sameKind(k, obj)));
const groupOf = (obj: KubeObject) => {
  // Managed Users, Projects and Roles (a service account's) authenticate with the admin
  // credential, so they go before it; the unmanaged imports after it.
  if (sameKind(GVK.User, obj) || sameKind(GVK.Project, obj) || sameKind(GVK.Role, obj)) return isManaged(obj) ? 1 : 3;
  return TEARDOWN_GROUPS.findIndex((g) => g.some((k) => sameKind(k, obj)));
};
const isServiceCr = (obj: KubeObject) => SERVICE_CR_KINDS.some((k) => sameKind(k, obj));

export interface FinalizeContext {
  now: () => Date;
  onEvent?: (event: HookEvent) => void;
}

const label = (o: KubeObject) => `${o.kind}/${o.metadata.name}`;

const isManaged = (o: KubeObject) => (at(o, 'spec', 'managementPolicy') ?? 'managed') === 'managed';
const isDetached = (o: KubeObject) => at(o, 'spec', 'managedOptions', 'onDelete') === 'detach';

/**
 * Why K-ORC cannot delete this object, if it cannot: then, and only then, it is detached before it
 * is deleted. K-ORC's deletion path (generic/reconciler/controller.go Reconcile → reconcileDelete,
 * resource_actions.go DeleteResource, c22784ca) does not look at a terminal error (ShouldReconcile
 * gates reconcileNormal only): an object with a status.id is fetched by it and deleted, terminal or
 * not, so it is revoked like any other. An object without an id is looked up by name
 * (getResourceForAdoption, atMostOne); a terminal error on such an object (the ambiguous adoption
 * "found more than one matching OpenStack resource during adoption", or a creation K-ORC gave up
 * on) comes back the same way on every deletion attempt, and nothing of ours exists under an id to
 * revoke. `onDelete: detach` is read before that lookup, so a detached one is released. A
 * Terminating object can no longer be patched through Metacontroller (it never updates a child with
 * a deletionTimestamp), so the detach must be in place before deletion.
 */
function undeletable(o: KubeObject): string | undefined {
  if (!isManaged(o) || isDetached(o) || isTerminating(o) || openstackId(o) !== undefined) return undefined;
  const terminal = terminalError(o);
  return terminal === undefined ? undefined : `it has no OpenStack id and reports ${terminal}`;
}

/**
 * Why K-ORC cannot reach Keystone, if the Keystone child says so. Detaching would not help: K-ORC
 * authenticates before it deletes anything and reads each object's resource by its status id
 * before it looks at managementPolicy or onDelete (scope/provider.go NewProviderClient,
 * generic/reconciler/resource_actions.go DeleteResource, c22784ca), so no K-ORC object is released
 * without Keystone, detached or not; and a detach would leave the credential valid once Keystone
 * answers again. So the teardown waits, and K-ORC revokes when it can (§4.2, §4.3).
 */
function keystoneUnreachable(cp: ControlPlaneRef, children: ObjectIndex): string | undefined {
  const keystone = children.get(GVK.Keystone, cp.namespace, childNames(cp.name).keystone);
  if (!keystone) return `Keystone ${childNames(cp.name).keystone} is gone`;
  return isReady(keystone) ? undefined : `Keystone ${childNames(cp.name).keystone} is not Ready`;
}

/**
 * The identity catalog Service, when it must be detached rather than deleted: K-ORC deletes it
 * with the admin credential, and a credential restricted by access rules cannot see that through.
 * Rules without `DELETE /v3/services/*` get 401 for the deletion; with it, Keystone refuses the
 * credential as soon as the catalog has no identity service ("… not a valid service type in the
 * catalog"), and K-ORC reads the Service back with it. Either way the teardown held for good (found
 * with the real Keystone; e2e scenario 22 hangs without this). The entry is Keystone's own (its
 * bootstrap made it; our Service adopted it), and the Keystone CR goes right after.
 */
function identityServiceToKeep(cp: ControlPlaneRef, children: ObjectIndex): KubeObject | undefined {
  const service = children.get(GVK.Service, cp.namespace, childNames(cp.name).identityService);
  if (!service || !isManaged(service) || isDetached(service) || isTerminating(service)) return undefined;
  const ruled = children.ofKind(GVK.ApplicationCredential).some((ac) => {
    const rules = at(ac, 'spec', 'resource', 'accessRules');
    return Array.isArray(rules) && rules.length > 0;
  });
  return ruled ? service : undefined;
}

export function finalizeControlPlane(request: ControlPlaneHookRequest, context: FinalizeContext): CompositeHookResponse {
  const reading = readRequest(request);
  const { cp, children, previous, spec } = reading;
  const orc = children.all().filter(isOrcKind);
  const korc = (status: 'True' | 'False', reason: string, message: string) =>
    new Map([[CONDITION.KORC, decideCondition(CONDITION.KORC, { status, reason, message }, previous.get(CONDITION.KORC), cp.generation, context.now)]]);
  const status = (decided: ReturnType<typeof korc>) =>
    buildStatus({ cp, spec, credential: credentialStatus(cp, children, reading.previousCredential, context.now), previous, decided, now: context.now, update: carriedRollout(reading.rollout, spec) });
  const everythingAsIs = children.all().map(keepAsIs);

  if (orc.length === 0) {
    // Then the service CRs, while Keystone and the infrastructure they use are still up: one
    // service at a time, each before the services it depends on.
    const serviceCrs = children.all().filter(isServiceCr);
    if (serviceCrs.length > 0) {
      const current = SERVICE_TEARDOWN_ORDER.map((kinds) => serviceCrs.filter((o) => kinds.some((k) => sameKind(k, o)))).find((group) => group.length > 0) ?? serviceCrs;
      const released = new Set(current.filter((o) => !isTerminating(o)).map(identity));
      const out = keepObserved([], children, released);
      assertKeepsObserved(out, children, released);
      const later = serviceCrs.filter((o) => !current.includes(o));
      const message = `Every K-ORC object is gone; deleting the service CRs before Keystone and the infrastructure, each before what it depends on: waiting for ${current.map(label).join(', ')}${later.length > 0 ? `; then ${later.map(label).join(', ')}` : ''}`;
      return { status: status(korc('False', REASON.FinalizingORC, message)), children: out, resyncAfterSeconds: REQUEUE.korc, finalized: false };
    }
    return {
      status: status(korc('False', REASON.FinalizingORC, 'Every K-ORC object is gone; the ControlPlane is released')),
      children: everythingAsIs,
      finalized: true,
    };
  }

  const age = secondsSince(reading.deletionTimestamp, context.now);
  if (age !== undefined && age > TIMEOUT_SECONDS.orcTeardownStall) {
    const objects = orc.map(label);
    const message =
      `K-ORC objects still present ${Math.floor(age / 60)} minutes after deletion: ${objects.join(', ')}; ` +
      'the ControlPlane is released anyway, remove their openstack.k-orc.cloud finalizers by hand';
    context.onEvent?.({ level: 'warn', reason: REASON.ORCTeardownStalled, message, objects });
    return { status: status(korc('False', REASON.ORCTeardownStalled, message)), children: everythingAsIs, finalized: true };
  }

  const current = Math.min(...orc.map(groupOf));
  const unreachable = keystoneUnreachable(cp, children);
  // Detach only what K-ORC cannot delete (docs/architecture.md §4.2): an object without an id in a
  // terminal error, and the identity Service a restricted credential cannot delete. Everything
  // else is deleted normally, so K-ORC revokes it. With Keystone down nothing is detached: K-ORC
  // releases nothing then anyway, and a detach would leave what it holds valid once Keystone
  // answers again. What K-ORC cannot delete is held meanwhile (neither detached nor deleted: once
  // Terminating it could never be detached), and detached once Keystone answers.
  const cannotDelete = new Map<KubeObject, string>();
  for (const o of orc) {
    const why = undeletable(o);
    if (why !== undefined) cannotDelete.set(o, `K-ORC cannot delete it: ${why}`);
  }
  const identityService = identityServiceToKeep(cp, children);
  if (identityService && !cannotDelete.has(identityService)) {
    cannotDelete.set(identityService, "Keystone's own identity entry stays: K-ORC could not delete it with a credential restricted by access rules");
  }
  const detach = unreachable === undefined ? cannotDelete : new Map<KubeObject, string>();
  const held = new Set(cannotDelete.keys());
  // Deletion goes group by group: the current group is released, but for what waits for its detach.
  const released = new Set(orc.filter((o) => groupOf(o) === current && !held.has(o)).map(identity));
  const out = keepObserved([...detach.keys()].map(detached), children, released);
  assertKeepsObserved(out, children, released);

  const waitingFor = orc.filter((o) => groupOf(o) === current).map(label);
  const detaching = [...detach].map(([o, why]) => `detaching ${label(o)} first (${why})`);
  const message = unreachable
    ? `Deleting K-ORC objects before the rest of the ControlPlane: waiting for ${waitingFor.join(', ')}; ${unreachable}, and K-ORC releases none of its objects until it can reach Keystone (it reads each one's resource first, whatever its onDelete), so nothing is detached and they are deleted and revoked once Keystone answers${held.size > 0 ? ` (${[...held].map(label).join(', ')} held until then: K-ORC cannot delete ${held.size === 1 ? 'it' : 'them'}, ${held.size === 1 ? 'it is' : 'they are'} detached first)` : ''}; ${TIMEOUT_SECONDS.orcTeardownStall / 60} minutes after the deletion the ControlPlane is released anyway and what is left needs its openstack.k-orc.cloud finalizer removed by hand`
    : `Deleting K-ORC objects before the rest of the ControlPlane: ${detaching.length > 0 ? `${detaching.join('; ')}; ` : ''}waiting for ${waitingFor.join(', ')}`;
  return {
    status: status(korc('False', REASON.FinalizingORC, message)),
    children: out,
    resyncAfterSeconds: REQUEUE.korc,
    finalized: false,
  };
}
