// The stage of one service beside Keystone (docs/architecture.md §2.13), built from its descriptor:
// a pure function of the request, the clock and the random source like every stage. Declared:
// a DB credential ExternalSecret per database, the service user's password Secret (and, while a
// rotation requested by a CredentialRotation walks, the next one: password-rotation.ts) and its
// PushSecret to OpenBao (eso-round-trip.ts, as the admin credential), the K-ORC account and
// catalog (account.ts); then the service CR and its parts, created only once Keystone is Ready and
// the account exists, kept from then on. Not declared: removal.ts.
import { identity, isReady, isTerminating, type KubeObject } from '../../k8s/observed.js';
import { isAvailableUpToDate, orcDetail, terminalError } from '../../k8s/orc.js';
import { isReadyAsDesired, readinessDetail } from '../../k8s/readiness.js';
import { carries } from '../../k8s/carries.js';
import { GVK } from '../../k8s/kinds.js';
import { CONDITION, REASON, REQUEUE, type Decision } from '../conditions.js';
import { child } from '../children.js';
import { externalSecret } from '../external-secret.js';
import { rotationRequests } from '../credential/rotation-requests.js';
import { pushState, pushTrigger } from '../eso-round-trip.js';
import { sharedServiceAccountNames } from '../names.js';
import { complete, gate, waiting, type Stage, type StageInput, type StageResult } from '../stage.js';
import { invalidSpec } from '../stages/invalid-spec.js';
import { passwordPlan } from './password-rotation.js';
import { servicePolicyErrors, type DeclaredService, type ServiceContext } from './descriptor.js';
import type { Service } from './index.js';
import { account, passwordBackup, sharedAccount } from './account.js';
import { notDeclared } from './removal.js';
import { serviceView, type ServiceView } from './view.js';

const label = (o: KubeObject) => `${o.kind} ${o.metadata.name}`;

/** Whether this service is the first declared one (it emits the shared project and role). */
function firstDeclared(d: Service, input: StageInput, order: readonly Service[]): boolean {
  const services = input.spec.services as Record<string, unknown>;
  return order.find((s) => services[s.name] !== undefined)?.name === d.name;
}

/** One ExternalSecret per database of the service (managed database only: brownfield uses the user's Secret). */
function dbCredentials(v: ServiceView, managedDatabase: boolean): KubeObject[] {
  if (!managedDatabase) return [];
  return v.d.databases.map((db) => {
    const key = v.keys.dbOf(db.infix);
    return externalSecret(v.cp, v.names.dbCredentialsOf(db.infix), [
      { secretKey: 'username', key, property: 'username' },
      { secretKey: 'password', key, property: 'password' },
    ]);
  });
}

export function serviceStage(d: Service, order: readonly Service[]): Stage {
  return {
    name: d.title,
    conditionType: d.conditionType,
    reads: [`spec.services.${d.name}`],
    interval: REQUEUE.service,
    sibling: true,
    run(input): StageResult {
      const v = serviceView(d, input);
      const declared: DeclaredService | undefined = v.declared;
      if (!declared) return notDeclared(v, input);
      const gated = gate(input, CONDITION.Keystone, REASON.WaitingForKeystone, REQUEUE.service);
      if (gated) return gated;
      const { korc, infrastructure } = input.resolved;
      if (!korc.ok) return invalidSpec(korc.errors, REQUEUE.service);
      if (!infrastructure.ok) return invalidSpec(infrastructure.errors, REQUEUE.service);
      const problems = [...servicePolicyErrors(d, declared), ...(d.specErrors?.(declared, input.spec) ?? [])];
      if (problems.length > 0) return invalidSpec(problems, REQUEUE.service);

      const { cp, names: n, observed } = v;
      const databases = dbCredentials(v, infrastructure.value.managedDatabase);

      // The service user's password Secrets, kept once written, and their rotation (password-rotation.ts).
      const observedPush = input.children.get(GVK.PushSecret, cp.namespace, n.passwordBackup);
      const observedCr = v.live(d.kind, n.cr);
      const plan = passwordPlan({
        cp,
        base: n.password,
        children: input.children,
        user: v.live(GVK.User, n.user),
        push: observedPush && !isTerminating(observedPush) ? observedPush : undefined,
        cr: observedCr,
        crSettled: isReadyAsDesired(observedCr),
        pushed: (name, source) => pushState(n.passwordBackup, name, source, observedPush).done,
        requests: rotationRequests(input.related, cp.namespace, n.user),
        random: input.random,
      });
      const backup = passwordBackup(v, plan.backup.name, pushTrigger(plan.backup.observed, observedPush));

      const acct = account(v, declared, korc.value, { ref: plan.userPasswordRef, annotations: plan.userAnnotations });
      const sharedObjects = firstDeclared(d, input, order) ? sharedAccount(cp, korc.value) : [];
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
      const failedAccount = [...acct.identity.map(observed), ...sharedObserved].find((o) => terminalError(o));
      const accountReady = acct.identity.every((o) => isAvailableUpToDate(observed(o)) && carriesSpec(o));
      const pendingDb = databases.find((o) => !isReady(observed(o)));

      // Gates block creation, never existence: the CR once observed stays desired.
      const crObserved = observed(cr) !== undefined;
      const createCr = crObserved || (accountReady && pendingDb === undefined);
      const children = [...databases, ...plan.secrets, backup, ...sharedObjects, ...acct.identity, ...acct.catalog, ...(createCr ? [cr, ...parts] : [])];
      // A part removed from the spec (a Glance backend) is released: left attached it would still
      // configure the service (a second default store). The images stay in the store.
      const wanted = new Set(parts.map(identity));
      const dropped = createCr ? v.parts.filter((o) => !wanted.has(identity(o)) && !isTerminating(o)) : [];
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
      if (pendingDb) {
        return result({ status: 'False', reason: REASON.WaitingForServiceDBCredentials, message: readinessDetail(label(pendingDb), observed(pendingDb)) });
      }
      if (plan.rotating) return result({ status: 'False', reason: REASON.RotatingServicePassword, message: plan.rotating });
      if (!accountReady) {
        const stuck = acct.identity.filter((o) => !isAvailableUpToDate(observed(o)));
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
