// The stage of one service beside Keystone (docs/architecture.md §2.13), built from its descriptor:
// a pure function of the request, the clock and the random source like every stage. Declared:
// the DB credential ExternalSecret, the service user's password Secret (and, while a rotation
// requested by a CredentialRotation walks, the next one: password-rotation.ts) and its PushSecret
// to OpenBao (eso-round-trip.ts, as the admin credential), the K-ORC account (managed User, the
// shared `service` project and role, a RoleAssignment), the catalog Service and its public
// and internal Endpoints; then the service CR, created only once Keystone is Ready and the
// account exists, kept from then on. Not declared: True/<Svc>NotManaged, nothing emitted; the
// children of a service removed from the spec are kept until the ControlPlane carries
// `c5c3.io/allow-<svc>-deletion: "true"`, then released, K-ORC objects first.
import { GVK, type KindInfo } from '../../k8s/kinds.js';
import { identity, isTerminating, type KubeObject } from '../../k8s/observed.js';
import { isAvailableUpToDate, orcDetail, terminalError } from '../../k8s/orc.js';
import { isReadyAsDesired, readinessDetail } from '../../k8s/readiness.js';
import { carries } from '../../k8s/carries.js';
import { isReady } from '../../k8s/observed.js';
import { CONDITION, REASON, REQUEUE, type Decision } from '../conditions.js';
import { child } from '../children.js';
import { externalSecret } from '../external-secret.js';
import { rotationRequests } from '../credential/rotation-requests.js';
import { pushState, pushTrigger } from '../eso-round-trip.js';
import {
  CLUSTER_SECRET_STORE,
  OPENSTACK_SERVICE_ACCOUNT,
  allowDeletionAnnotation,
  childNames,
  sharedServiceAccountNames,
  serviceChildNames,
  serviceRemoteKeys,
} from '../names.js';
import type { ControlPlaneRef } from '../ref.js';
import { complete, gate, waiting, type Stage, type StageInput, type StageResult } from '../stage.js';
import { invalidSpec } from '../stages/invalid-spec.js';
import type { KorcSettings } from '../spec.js';
import { observedPasswordSecrets, passwordPlan } from './password-rotation.js';
import { internalUrl, notManaged, publicUrl, servicePolicyErrors, type DeclaredService, type ServiceContext, type ServiceDescriptor } from './descriptor.js';

const label = (o: KubeObject) => `${o.kind} ${o.metadata.name}`;
const isOrcObject = (o: KubeObject) => o.apiVersion === GVK.User.apiVersion;

/** The service's own children as they would be named (to find them once it is no longer declared). */
function ownedIdentities(d: ServiceDescriptor, cp: ControlPlaneRef): { kind: KindInfo; name: string }[] {
  const n = serviceChildNames(cp.name, d.name);
  return [
    { kind: GVK.Endpoint, name: n.publicEndpoint },
    { kind: GVK.Endpoint, name: n.internalEndpoint },
    { kind: GVK.Service, name: n.service },
    { kind: GVK.RoleAssignment, name: n.roleAssignment },
    { kind: GVK.User, name: n.user },
    { kind: d.kind, name: n.cr },
    { kind: GVK.ExternalSecret, name: n.dbCredentials },
    { kind: GVK.PushSecret, name: n.passwordBackup },
    { kind: GVK.Secret, name: n.password },
  ];
}

/** Every observed child of the service: its named ones and its parts (labelled, e.g. GlanceBackends). */
export function observedServiceChildren(d: ServiceDescriptor, input: Pick<StageInput, 'cp' | 'children'>): KubeObject[] {
  const named = ownedIdentities(d, input.cp).flatMap(({ kind, name }) => {
    const o = input.children.get(kind, input.cp.namespace, name);
    return o ? [o] : [];
  });
  const n = serviceChildNames(input.cp.name, d.name);
  const prefix = `${n.cr}-`;
  const partKind = d.partKind;
  const parts = partKind ? input.children.all().filter((o) => o.apiVersion === partKind.apiVersion && o.kind === partKind.kind && o.metadata.name.startsWith(prefix)) : [];
  // The rotated password Secrets (`…-service-user-v2`, …; the first is named above).
  const rotated = [...observedPasswordSecrets(input.children, input.cp.namespace, n.password)].filter(([serial]) => serial > 1).map(([, o]) => o);
  return [...named, ...rotated, ...parts];
}

/** The service is not declared: NotManaged, or the guarded removal of what it left behind. */
function notDeclared(d: ServiceDescriptor, input: StageInput): StageResult {
  const left = observedServiceChildren(d, input);
  if (left.length === 0) {
    return { condition: notManaged(d), outcome: complete(), children: [] };
  }
  const annotation = allowDeletionAnnotation(d.name);
  if (input.parentAnnotations?.[annotation] !== 'true') {
    return {
      condition: {
        status: 'False',
        reason: REASON.ServiceDeletionBlocked,
        message: `${d.title} was removed from spec.services; its children (${left.map(label).join(', ')}) are kept until the ControlPlane carries the annotation ${annotation}: "true"`,
      },
      outcome: complete(),
      children: [],
    };
  }
  // K-ORC objects first (Keystone is alive: the account and the catalog entries are removed in
  // OpenStack), then everything else once none is observed. The PushSecret keeps OpenBao's copy.
  const live = left.filter((o) => !isTerminating(o));
  const orc = left.filter(isOrcObject);
  const releases = (orc.length > 0 ? orc : left).filter((o) => !isTerminating(o)).map(identity);
  return {
    condition: {
      status: 'False',
      reason: REASON.ServiceDeleting,
      message: `${d.title} was removed from spec.services and ${annotation} is set: deleting ${(orc.length > 0 ? orc : live).map(label).join(', ') || 'nothing more'}${orc.length > 0 ? ' first' : ''}`,
    },
    outcome: waiting(REQUEUE.service),
    children: [],
    releases,
  };
}

/**
 * The `service` project and role, emitted by the first declared service in descriptor order (one
 * owner per child): managed, so K-ORC creates them when Keystone lacks them (its bootstrap makes
 * no `service` project) and adopts them when it has them; detached on delete, so removing them
 * never deletes what other users of that Keystone may hold.
 */
function sharedAccount(cp: ControlPlaneRef, credentials: { cloudName: string; secretName: string }): KubeObject[] {
  const names = childNames(cp.name);
  const shared = sharedServiceAccountNames(cp.name);
  const keep = { cloudCredentialsRef: credentials, managementPolicy: 'managed', managedOptions: { onDelete: 'detach' } };
  return [
    child(GVK.Project, cp, shared.project, { spec: { ...keep, resource: { name: OPENSTACK_SERVICE_ACCOUNT.project, domainRef: names.domain, enabled: true } } }),
    child(GVK.Role, cp, shared.role, { spec: { ...keep, resource: { name: OPENSTACK_SERVICE_ACCOUNT.role } } }),
  ];
}

interface Account {
  user: KubeObject;
  roleAssignment: KubeObject;
  catalog: KubeObject[];
}

function account(d: ServiceDescriptor, cp: ControlPlaneRef, declared: DeclaredService, korc: KorcSettings, password: { ref: string; annotations: Record<string, string> | undefined }): Account {
  const n = serviceChildNames(cp.name, d.name);
  const shared = sharedServiceAccountNames(cp.name);
  const cloudCredentialsRef = { cloudName: korc.cloudName, secretName: korc.secretName };
  const managed = { cloudCredentialsRef, managementPolicy: 'managed' };
  const endpoint = (name: string, iface: 'public' | 'internal', url: string) =>
    child(GVK.Endpoint, cp, name, { spec: { ...managed, resource: { interface: iface, url, serviceRef: n.service, enabled: true } } });
  return {
    user: child(
      GVK.User,
      cp,
      n.user,
      {
        spec: {
          ...managed,
          resource: { name: d.name, domainRef: childNames(cp.name).domain, defaultProjectRef: shared.project, passwordRef: password.ref, enabled: true },
        },
      },
      { annotations: password.annotations },
    ),
    roleAssignment: child(GVK.RoleAssignment, cp, n.roleAssignment, {
      spec: { ...managed, resource: { roleRef: shared.role, userRef: n.user, projectRef: shared.project } },
    }),
    catalog: [
      child(GVK.Service, cp, n.service, { spec: { ...managed, resource: { name: d.name, type: d.serviceType, enabled: true } } }),
      endpoint(n.publicEndpoint, 'public', publicUrl(d, cp, declared)),
      endpoint(n.internalEndpoint, 'internal', internalUrl(d, cp)),
    ],
  };
}

function pushSecret(cp: ControlPlaneRef, d: ServiceDescriptor, source: string, annotations: Record<string, string> | undefined): KubeObject {
  const n = serviceChildNames(cp.name, d.name);
  return child(
    GVK.PushSecret,
    cp,
    n.passwordBackup,
    {
      spec: {
        deletionPolicy: 'None',
        secretStoreRefs: [{ kind: 'ClusterSecretStore', name: CLUSTER_SECRET_STORE }],
        selector: { secret: { name: source } },
        data: [{ conversionStrategy: 'None', match: { remoteRef: { remoteKey: serviceRemoteKeys(cp.namespace, cp.name, d.name).password } } }],
      },
    },
    { annotations },
  );
}

/** Whether this service is the first declared one (it emits the shared project and role). */
function firstDeclared(d: ServiceDescriptor, input: StageInput, order: readonly ServiceDescriptor[]): boolean {
  return order.find((s) => input.spec.services[s.name] !== undefined)?.name === d.name;
}

export function serviceStage(d: ServiceDescriptor, order: readonly ServiceDescriptor[]): Stage {
  return {
    name: d.title,
    conditionType: d.conditionType,
    reads: [`spec.services.${d.name}`],
    interval: REQUEUE.service,
    sibling: true,
    run(input): StageResult {
      const declared: DeclaredService | undefined = input.spec.services?.[d.name];
      if (!declared) return notDeclared(d, input);
      const gated = gate(input, CONDITION.Keystone, REASON.WaitingForKeystone, REQUEUE.service);
      if (gated) return gated;
      const { korc, infrastructure } = input.resolved;
      if (!korc.ok) return invalidSpec(korc.errors, REQUEUE.service);
      if (!infrastructure.ok) return invalidSpec(infrastructure.errors, REQUEUE.service);
      const problems = [...servicePolicyErrors(d, declared), ...(d.specErrors?.(declared, input.spec) ?? [])];
      if (problems.length > 0) return invalidSpec(problems, REQUEUE.service);

      const cp = input.cp;
      const n = serviceChildNames(cp.name, d.name);
      const observed = (o: KubeObject) => input.children.getById(identity(o));

      // The DB credential: managed database only (brownfield: the user's Secret, nothing projected).
      const keys = serviceRemoteKeys(cp.namespace, cp.name, d.name);
      const dbCredentials = infrastructure.value.managedDatabase
        ? externalSecret(cp, n.dbCredentials, [
            { secretKey: 'username', key: keys.db, property: 'username' },
            { secretKey: 'password', key: keys.db, property: 'password' },
          ])
        : undefined;

      // The service user's password Secrets, kept once written, and their rotation (password-rotation.ts).
      const live = (o: KubeObject | undefined) => (o && !isTerminating(o) ? o : undefined);
      const observedPush = input.children.get(GVK.PushSecret, cp.namespace, n.passwordBackup);
      const observedCr = live(input.children.get(d.kind, cp.namespace, n.cr));
      const plan = passwordPlan({
        cp,
        base: n.password,
        children: input.children,
        user: live(input.children.get(GVK.User, cp.namespace, n.user)),
        push: live(observedPush),
        cr: observedCr,
        crSettled: isReadyAsDesired(observedCr),
        pushed: (name, source) => pushState(n.passwordBackup, name, source, observedPush).done,
        requests: rotationRequests(input.related, cp.namespace, n.user),
        random: input.random,
      });
      const backup = pushSecret(cp, d, plan.backup.name, pushTrigger(plan.backup.observed, observedPush));

      const acct = account(d, cp, declared, korc.value, { ref: plan.userPasswordRef, annotations: plan.userAnnotations });
      const sharedObjects = firstDeclared(d, input, order) ? sharedAccount(cp, { cloudName: korc.value.cloudName, secretName: korc.value.secretName }) : [];
      const release = input.rollout?.servicesRelease ?? input.spec.openStackRelease;
      const ctx: ServiceContext = { cp, spec: input.spec, declared, infrastructure: infrastructure.value, names: n, passwordSecret: plan.crSecret, release };
      const cr = child(d.kind, cp, n.cr, { spec: d.crSpec(ctx) });
      const parts = d.parts?.(ctx) ?? [];

      const shared = sharedServiceAccountNames(cp.name);
      const sharedObserved = [input.children.get(GVK.Project, cp.namespace, shared.project), input.children.get(GVK.Role, cp.namespace, shared.role)].filter(
        (o): o is KubeObject => o !== undefined,
      );
      const carriesSpec = (o: KubeObject) => {
        const live = observed(o);
        return live !== undefined && carries(live, o, ['spec']);
      };
      const accountObjects = [acct.user, acct.roleAssignment];
      const failedAccount = [...accountObjects.map(observed), ...sharedObserved].find((o) => terminalError(o));
      const accountReady = accountObjects.every((o) => isAvailableUpToDate(observed(o)) && carriesSpec(o));
      const dbReady = dbCredentials === undefined || isReady(observed(dbCredentials));

      // Gates block creation, never existence: the CR once observed stays desired.
      const crObserved = observed(cr) !== undefined;
      const createCr = crObserved || (accountReady && dbReady);
      const children = [
        ...(dbCredentials ? [dbCredentials] : []),
        ...plan.secrets,
        backup,
        ...sharedObjects,
        ...accountObjects,
        ...acct.catalog,
        ...(createCr ? [cr, ...parts] : []),
      ];
      // A part removed from the spec (a Glance backend) is released: left attached it would still
      // configure the service (a second default store). The images stay in the store.
      const wanted = new Set(parts.map(identity));
      const partKind = d.partKind;
      const dropped = createCr && partKind
        ? observedServiceChildren(d, input).filter((o) => o.apiVersion === partKind.apiVersion && o.kind === partKind.kind && !wanted.has(identity(o)) && !isTerminating(o))
        : [];
      const released = [...dropped, ...plan.releases];
      const result = (decision: Decision, done = false): StageResult => ({
        condition: decision,
        outcome: done ? complete() : waiting(REQUEUE.service),
        children,
        ...(released.length > 0 ? { releases: released.map(identity) } : {}),
      });

      if (failedAccount) {
        return result({ status: 'False', reason: REASON.ServiceAccountFailed, message: orcDetail(label(failedAccount), failedAccount) });
      }
      const failedCatalog = acct.catalog.map(observed).find((o) => terminalError(o));
      if (failedCatalog) return result({ status: 'False', reason: REASON.ServiceCatalogFailed, message: orcDetail(label(failedCatalog), failedCatalog) });
      if (dbCredentials && !dbReady) {
        return result({ status: 'False', reason: REASON.WaitingForServiceDBCredentials, message: readinessDetail(label(dbCredentials), observed(dbCredentials)) });
      }
      if (plan.rotating) return result({ status: 'False', reason: REASON.RotatingServicePassword, message: plan.rotating });
      if (!accountReady) {
        const stuck = accountObjects.filter((o) => !isAvailableUpToDate(observed(o)));
        const detail = stuck.length > 0 ? stuck.map((o) => orcDetail(label(o), observed(o))).join('; ') : `${d.title} account does not carry the desired spec yet`;
        return result({ status: 'False', reason: REASON.WaitingForServiceAccount, message: `${detail} (the ${d.title} CR is created once the account exists)` });
      }
      const push = pushState(n.passwordBackup, plan.backup.name, plan.backup.observed, observedPush);
      if (!push.done) return result({ status: 'False', reason: REASON.WaitingForServicePasswordBackup, message: push.detail });
      const pendingCatalog = acct.catalog.filter((o) => !isAvailableUpToDate(observed(o)) || !carriesSpec(o));
      if (pendingCatalog.length > 0) {
        return result({ status: 'False', reason: REASON.WaitingForServiceCatalog, message: pendingCatalog.map((o) => orcDetail(label(o), observed(o))).join('; ') });
      }
      const notReady = [cr, ...parts].filter((o) => !isReadyAsDesired(observed(o), o));
      if (notReady.length > 0) {
        return result({ status: 'False', reason: d.reasons.waiting, message: notReady.map((o) => readinessDetail(label(o), observed(o), o)).join('; ') });
      }
      if (plan.blocked) return result({ status: 'False', reason: REASON.RotatingServicePassword, message: plan.blocked });
      return result({ status: 'True', reason: d.reasons.ready, message: `${d.kind.kind} ${n.cr} is Ready and registered in the catalog` }, true);
    },
  };
}
