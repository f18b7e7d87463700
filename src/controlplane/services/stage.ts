// The stage of one service beside Keystone (docs/architecture.md §2.13), built from its descriptor:
// a pure function of the request, the clock and the random source like every stage. Declared:
// a DB credential ExternalSecret per database, per account the password Secret (and, while a
// rotation requested by a CredentialRotation walks, the next one: password-rotation.ts), its
// PushSecret to OpenBao (eso-round-trip.ts, as the admin credential), the User and its role
// assignments (account.ts), the catalog, the bus URL Secret of a service on the bus
// (messaging.ts), the Secrets generated for it; then the service CR and its parts, created only
// once the accounts exist, the databases' credentials are there, the bus URL is known and the
// services and the reference it waits for are Ready, and kept from then on. Not declared: removal.ts.
import { GVK } from '../../k8s/kinds.js';
import { identity, isReady, isTerminating, type KubeObject } from '../../k8s/observed.js';
import { isAvailableUpToDate, orcDetail, terminalError } from '../../k8s/orc.js';
import { isReadyAsDesired, readinessDetail } from '../../k8s/readiness.js';
import { carries } from '../../k8s/carries.js';
import { stringAt } from '../../k8s/read.js';
import { secretString } from '../../k8s/secret.js';
import { CONDITION, REASON, REQUEUE, type Decision } from '../conditions.js';
import { child } from '../children.js';
import { externalSecret } from '../external-secret.js';
import { ownedSecret } from '../credential/round-trip.js';
import { rotationRequests } from '../credential/rotation-requests.js';
import { pushState, pushTrigger } from '../eso-round-trip.js';
import { complete, gate, waiting, type Stage, type StageInput, type StageResult } from '../stage.js';
import { invalidSpec } from '../stages/invalid-spec.js';
import { passwordPlan, type PasswordPlan } from './password-rotation.js';
import { servicePolicyErrors, type DeclaredService, type ServiceContext } from './projection.js';
import { SERVICES, hasReference, referenceCondition, type Service } from '../../api/services/index.js';
import { PROJECTIONS } from './index.js';
import { accountIdentity, catalog, neededAccounts, observedShared, passwordBackup, sharedAccount } from './account.js';
import { messagingSecret, transportUrl } from './messaging.js';
import { notDeclared } from './removal.js';
import { heldDetail, replacedDetail } from '../catalog-region.js';
import { DEFAULTS } from '../../api/controlplane.js';
import { serviceView, type AccountPlan, type ServiceView } from './view.js';

const label = (o: KubeObject) => `${o.kind} ${o.metadata.name}`;
const isOrcObject = (o: KubeObject) => o.apiVersion === GVK.User.apiVersion;

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

/** What admission requires beside the service (other services, the bus), for a spec that bypassed it. */
export function requirementErrors(d: Service, input: Pick<StageInput, 'spec'>, declares: (svc: string) => boolean): string[] {
  const errors = d.requires.services
    .filter((r) => !declares(r.name))
    .map((r) => `spec.services.${r.name}: must be declared when spec.services.${d.name} is: ${r.why}`);
  const bus = 'messaging' in d.requires ? d.requires.messaging : undefined;
  if (bus !== undefined && !input.spec.infrastructure?.messaging) errors.push(`spec.infrastructure.messaging: must be declared when spec.services.${d.name} is: ${bus}`);
  return errors;
}

/** The Secrets the hooks generate for the service: kept as observed, random bytes the first time. */
function generatedSecrets(v: ServiceView, input: StageInput): KubeObject[] {
  return (v.d.generatedSecrets ?? []).map((g) => {
    const name = v.names.generated(g.name);
    const value = secretString(v.live(GVK.Secret, name), g.key) ?? input.random(g.bytes).toString('base64url');
    return ownedSecret(v.cp, name, { [g.key]: value });
  });
}

/**
 * An extra account no longer needed (the service it is for is gone): released once the service CR
 * no longer names its password and is Ready as desired without it, K-ORC objects first (the user
 * is removed from Keystone while Keystone lives), then its Secrets and PushSecret.
 */
function idleReleases(v: ServiceView, idle: AccountPlan[], cr: KubeObject | undefined, desiredCr: KubeObject): KubeObject[] {
  const out: KubeObject[] = [];
  for (const a of idle) {
    const left = [
      v.live(GVK.User, a.names.user),
      ...a.roles.map((r) => v.live(GVK.RoleAssignment, a.names.roleAssignment(r))),
      v.live(GVK.PushSecret, a.names.passwordBackup),
      ...v.passwordFamily(a.names.password),
    ].filter((o): o is KubeObject => o !== undefined);
    if (left.length === 0) continue;
    if (cr !== undefined && (stringAt(cr, ...a.secretRefPath) !== undefined || !isReadyAsDesired(cr, desiredCr))) continue;
    const orc = left.filter(isOrcObject);
    out.push(...(orc.length > 0 ? orc : left));
  }
  return out;
}

/**
 * The release the service's CR carries this pass (docs/architecture.md §6.1): the spec's, or during
 * a rollout the one it allows; in UpdatingServices the services move one by one in SERVICES order,
 * each once every declared service before it is Ready (on the new release, by the same rule), and a
 * CR that already carries the new release never goes back.
 */
export function projectedRelease(d: Service, input: Pick<StageInput, 'spec' | 'rollout' | 'decided'>, declares: (svc: string) => boolean, observedCr: KubeObject | undefined): string {
  const to = input.rollout?.servicesRelease ?? input.spec.openStackRelease;
  const from = input.rollout?.servicesFrom;
  if (from === undefined || stringAt(observedCr, 'spec', 'openStackRelease') === to) return to;
  const before = SERVICES.slice(0, SERVICES.findIndex((s) => s.name === d.name)).filter((s) => declares(s.name));
  return before.every((s) => input.decided.get(s.conditionType)?.status === 'True') ? to : from;
}

export function serviceStage(d: Service): Stage {
  return {
    name: d.title,
    conditionType: d.conditionType,
    reads: [`spec.services.${d.name}`],
    interval: REQUEUE.service,
    sibling: true,
    run(input): StageResult {
      const projection = PROJECTIONS[d.name];
      const v = serviceView(d, input);
      const declared: DeclaredService | undefined = v.declared;
      if (!declared) return notDeclared(v, input);
      const gated = gate(input, CONDITION.Keystone, REASON.WaitingForKeystone, REQUEUE.service);
      if (gated) return gated;
      const { korc, infrastructure } = input.resolved;
      if (!korc.ok) return invalidSpec(korc.errors, REQUEUE.service);
      if (!infrastructure.ok) return invalidSpec(infrastructure.errors, REQUEUE.service);
      const problems = [...servicePolicyErrors(d, declared), ...(projection.specErrors?.(input.spec, input.cp.name) ?? []), ...requirementErrors(d, input, v.declares)];
      if (problems.length > 0) return invalidSpec(problems, REQUEUE.service);

      const { cp, names: n, observed } = v;
      const databases = dbCredentials(v, infrastructure.value.managedDatabase);
      const observedCr = v.live(d.kind, n.cr);

      // Each account's password Secrets, kept once written, and their rotation (password-rotation.ts).
      const { needed, idle } = neededAccounts(v);
      const accounts = needed.map((a) => {
        const observedPush = input.children.get(GVK.PushSecret, cp.namespace, a.names.passwordBackup);
        const plan = passwordPlan({
          cp,
          base: a.names.password,
          children: input.children,
          user: v.live(GVK.User, a.names.user),
          push: v.live(GVK.PushSecret, a.names.passwordBackup),
          cr: observedCr,
          crSecretRef: a.secretRefPath,
          crSettled: isReadyAsDesired(observedCr),
          pushed: (name, source) => pushState(a.names.passwordBackup, name, source, observedPush).done,
          requests: rotationRequests(input.related, cp.namespace, a.names.user),
          random: input.random,
        });
        const backup = passwordBackup(v, a, plan.backup.name, pushTrigger(plan.backup.observed, observedPush));
        const identityObjects = accountIdentity(v, a, korc.value, { ref: plan.userPasswordRef, annotations: plan.userAnnotations });
        return { a, plan, backup, identity: identityObjects, push: () => pushState(a.names.passwordBackup, plan.backup.name, plan.backup.observed, observedPush) };
      });

      const transport = d.messaging ? transportUrl(input) : undefined;
      const bus = transport?.ok ? messagingSecret(input, n.messaging, transport.url) : undefined;
      const release = projectedRelease(d, input, v.declares, observedCr);
      const ctx: ServiceContext = {
        cp,
        spec: input.spec,
        declared,
        infrastructure: infrastructure.value,
        names: n,
        passwordSecret: accounts.find((x) => x.a.key === '')?.plan.crSecret ?? n.password,
        accountSecrets: new Map(accounts.filter((x) => x.a.key !== '').map((x) => [x.a.key, x.plan.crSecret])),
        messagingSecret: d.messaging ? n.messaging : undefined,
        declares: v.declares,
        release,
      };
      const cr = child(d.kind, cp, n.cr, { spec: projection.crSpec(ctx) });
      const parts = projection.parts?.(ctx) ?? [];
      const region = input.spec.region ?? DEFAULTS.region;
      const { service: catalogService, rows } = catalog(v, declared, korc.value, region);
      const catalogObjects = rows.blocked === undefined ? [catalogService, rows.region, ...rows.endpoints] : [catalogService];
      const identityObjects = accounts.flatMap((x) => x.identity);

      const carriesSpec = (o: KubeObject) => {
        const live = observed(o);
        return live !== undefined && carries(live, o, ['spec']);
      };
      // The CR is created once its rows can be registered: every client section of it names spec.region.
      const regionReady = rows.blocked === undefined && isAvailableUpToDate(observed(rows.region)) && carriesSpec(rows.region);
      const failedAccount = [...identityObjects.map(observed), ...observedShared(v)].find((o) => terminalError(o));
      const accountReady = identityObjects.every((o) => isAvailableUpToDate(observed(o)) && carriesSpec(o));
      const pendingDb = databases.find((o) => !isReady(observed(o)));
      const referenceType = hasReference(d) ? referenceCondition(d.reference) : undefined;
      const referenceReady = referenceType === undefined || input.decided.get(referenceType)?.status === 'True';
      const awaited = SERVICES.filter((other) => d.waitsFor.some((name) => name === other.name) && input.decided.get(other.conditionType)?.status !== 'True');

      // Gates block creation, never existence: the CR once observed stays desired.
      const crObserved = observed(cr) !== undefined;
      const createCr = crObserved || (accountReady && regionReady && pendingDb === undefined && (transport === undefined || transport.ok) && referenceReady && awaited.length === 0);
      const children = [
        ...databases,
        ...accounts.flatMap((x) => [...x.plan.secrets, x.backup]),
        ...generatedSecrets(v, input),
        ...(bus ? [bus] : []),
        ...sharedAccount(v, korc.value),
        ...identityObjects,
        catalogService,
        ...rows.children,
        ...(createCr ? [cr, ...parts] : []),
      ];
      // A part removed from the spec (a Glance or Cinder backend) is released: left attached it
      // would still configure the service (a second default store). The data stays in the store.
      const wanted = new Set(parts.map(identity));
      const dropped = createCr ? v.parts.filter((o) => !wanted.has(identity(o)) && !isTerminating(o)) : [];
      const released = [...dropped, ...accounts.flatMap((x) => x.plan.releases), ...idleReleases(v, idle, observedCr, cr)];
      const result = (decision: Decision, done = false): StageResult => ({
        condition: decision,
        outcome: done ? complete() : waiting(REQUEUE.service),
        children,
        ...(released.length + rows.releases.length > 0 ? { releases: [...released.map(identity), ...rows.releases] } : {}),
      });
      const rotation = (pick: (p: PasswordPlan) => string | undefined) => accounts.map((x) => pick(x.plan)).find((m) => m !== undefined);

      if (failedAccount) {
        return result({ status: 'False', reason: REASON.ServiceAccountFailed, message: orcDetail(label(failedAccount), failedAccount) });
      }
      const failedRegion = rows.blocked === undefined ? [observed(rows.region)].find((o) => terminalError(o)) : undefined;
      if (failedRegion) {
        return result({ status: 'False', reason: REASON.ServiceRegionFailed, message: `${orcDetail(label(failedRegion), failedRegion)}: the ${d.title} rows cannot be registered in ${region}, and its CR is created once they can` });
      }
      const failedCatalog = catalogObjects.map(observed).find((o) => terminalError(o));
      if (failedCatalog) return result({ status: 'False', reason: REASON.ServiceCatalogFailed, message: orcDetail(label(failedCatalog), failedCatalog) });
      if (pendingDb) {
        return result({ status: 'False', reason: REASON.WaitingForServiceDBCredentials, message: readinessDetail(label(pendingDb), observed(pendingDb)) });
      }
      if (!referenceReady && hasReference(d)) {
        const why = input.decided.get(referenceCondition(d.reference))?.message;
        return result({ status: 'False', reason: `WaitingFor${d.reference.title}`, message: `${referenceCondition(d.reference)} is not True${why ? ` (${why})` : ''}; the ${d.title} CR is created once it is` });
      }
      const firstAwaited = awaited[0];
      if (firstAwaited) {
        return result({ status: 'False', reason: firstAwaited.reasons.waiting, message: `${firstAwaited.conditionType} is not True; the ${d.title} CR is created once ${firstAwaited.title} is Ready` });
      }
      if (transport && !transport.ok) {
        return result({ status: 'False', reason: transport.invalid ? REASON.ServiceMessagingError : REASON.WaitingForMessagingCredentials, message: `The bus URL of ${d.title} (Secret ${n.messaging}): ${transport.message}` });
      }
      const rotating = rotation((p) => p.rotating);
      if (rotating) return result({ status: 'False', reason: REASON.RotatingServicePassword, message: rotating });
      if (!accountReady) {
        const stuck = identityObjects.filter((o) => !isAvailableUpToDate(observed(o)));
        const detail = stuck.length > 0 ? stuck.map((o) => orcDetail(label(o), observed(o))).join('; ') : `${d.title} account does not carry the desired spec yet`;
        return result({ status: 'False', reason: REASON.WaitingForServiceAccount, message: `${detail} (the ${d.title} CR is created once the account exists)` });
      }
      const push = accounts.map((x) => x.push()).find((p) => !p.done);
      if (push) return result({ status: 'False', reason: REASON.WaitingForServicePasswordBackup, message: push.detail });
      if (rows.blocked !== undefined) return result({ status: 'False', reason: REASON.WaitingForServiceCatalog, message: `The ${d.title} catalog rows: ${rows.blocked}` });
      const pendingCatalog = catalogObjects.filter((o) => !isAvailableUpToDate(observed(o)) || !carriesSpec(o));
      if (pendingCatalog.length > 0) {
        const why = pendingCatalog.map((o) => (observed(o) && !carriesSpec(o) ? `${label(o)} does not carry the desired spec yet` : (heldDetail(rows, o) ?? orcDetail(label(o), observed(o))))).join('; ');
        const crWaits = createCr ? '' : ` (the ${d.title} CR is created once its Region is Available: every client section names ${region})`;
        const replacing = rows.replaced.length > 0 ? `; ${replacedDetail(rows, region)}` : '';
        return result({ status: 'False', reason: REASON.WaitingForServiceCatalog, message: `${why}${crWaits}${replacing}` });
      }
      const notReady = [cr, ...parts].filter((o) => !isReadyAsDesired(observed(o), o));
      if (notReady.length > 0) {
        return result({ status: 'False', reason: d.reasons.waiting, message: notReady.map((o) => readinessDetail(label(o), observed(o), o)).join('; ') });
      }
      if (rows.replaced.length > 0) return result({ status: 'False', reason: REASON.WaitingForServiceCatalog, message: `The ${d.title} catalog: ${replacedDetail(rows, region)}` });
      const blocked = rotation((p) => p.blocked);
      if (blocked) return result({ status: 'False', reason: REASON.RotatingServicePassword, message: blocked });
      return result({ status: 'True', reason: d.reasons.ready, message: `${d.kind.kind} ${n.cr} is Ready and registered in the catalog in region ${region}` }, true);
    },
  };
}
