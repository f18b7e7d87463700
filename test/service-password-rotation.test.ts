// A service user's password rotated through a CredentialRotation (target serviceUserPassword,
// docs/architecture.md §2.14): the simulator end to end (backup before Keystone, Keystone before
// the service CR, the superseded Secret released, a second rotation), the rules of the plan one by
// one (no start without K-ORC's applied ref, never backwards), and the CredentialRotation hook.
import t from 'tap';
import { simulation } from './support/simulation.js';
import { testServer, post, sequence } from './support/server.js';
import { objectMap, orcStatus, readyCondition, secret } from './support/world.js';
import { conditionOf } from './support/sync.js';
import { fixtureControlPlane, type Obj } from './support/shared.js';
import { PHASES, runPhase } from '../src/sim/scenarios.js';
import { healthyStatusOf } from '../src/sim/operators.js';
import { ObjectIndex } from '../src/k8s/observed.js';
import { GVK } from '../src/k8s/kinds.js';
import { passwordPlan, passwordSerial, passwordSecretName, type PasswordInput } from '../src/controlplane/services/password-rotation.js';
import { requestKey } from '../src/controlplane/credential/rotation-requests.js';
import { sourceDigest } from '../src/controlplane/eso-round-trip.js';

const KORC = 'openstack.k-orc.cloud/v1alpha1';
const NS = 'openstack';
const CP = 'controlplane-services';
const BASE = `${CP}-placement-service-user`;
const unb64 = (s: string) => Buffer.from(s, 'base64').toString('utf8');

t.test('names: the first Secret, then -v2, -v3; nothing else is one of the family', async (t) => {
  t.equal(passwordSecretName(BASE, 1), BASE);
  t.equal(passwordSecretName(BASE, 3), `${BASE}-v3`);
  t.equal(passwordSerial(BASE, BASE), 1);
  t.equal(passwordSerial(BASE, `${BASE}-v12`), 12);
  for (const other of [`${BASE}-v1`, `${BASE}-v0`, `${BASE}-v02`, `${BASE}-v`, `${BASE}-backup`, `${BASE}-v2x`, `${CP}-glance-service-user`, undefined, 7]) {
    t.equal(passwordSerial(BASE, other), undefined, String(other));
  }
});

t.test('simulator: a rotation replaces the password in OpenBao, then Keystone, then the CR; a second one too', async (t) => {
  const { sim, cp } = await simulation(t, fixtureControlPlane('controlplane-services.yaml'), 'service-password');
  t.same((await runPhase(sim, cp, PHASES.converge!, 40)).problems, []);
  const ns = cp.namespace!;
  const name = cp.name;
  const get = (kind: string, n: string, apiVersion = 'v1') => sim.cluster.get({ apiVersion, kind, namespace: ns, name: n });
  const password = (n: string) => (get('Secret', n)?.data?.password ? unb64(get('Secret', n)!.data.password) : undefined);
  const base = `${name}-glance-service-user`;
  const first = password(base)!;
  const placementBefore = sim.world.openstack.users.get('placement');
  t.equal(sim.world.openstack.users.get('glance'), first);
  // The HTTP-level tests' healthy service users (test/support/world.ts) carry what K-ORC wrote: the applied ref.
  for (const svc of ['glance', 'placement']) {
    const user = get('User', `${name}-user-${svc}`, KORC)!;
    t.same(healthyStatusOf(user, sim.now, user.status.id), user.status, `User ${svc}: healthyStatusOf is the status K-ORC wrote`);
  }

  const r = await runPhase(sim, cp, PHASES['rotate-service-password']!);
  t.same(r.problems, [], 'OpenBao first, only the old Secret released, no mint, Ready');
  const v2 = password(`${base}-v2`)!;
  t.ok(v2 && v2 !== first, 'a new password in the -v2 Secret');
  t.equal(sim.world.openstack.users.get('glance'), v2, 'Keystone holds it');
  t.notOk(get('Secret', base), 'the superseded Secret is released');
  const user = get('User', `${name}-user-glance`, KORC)!;
  t.equal(user.spec.resource.passwordRef, `${base}-v2`);
  t.equal(user.status.resource.appliedPasswordRef, `${base}-v2`);
  const request = sim.cluster.list((o) => o.kind === 'CredentialRotation')[0]!;
  t.equal(user.metadata.annotations['c5c3.io/rotation-requests'], requestKey(request.metadata.uid, 1), 'the User lists the request');
  t.equal(get('PushSecret', `${base}-backup`, GVK.PushSecret.apiVersion)!.spec.selector.secret.name, `${base}-v2`);
  t.equal(sim.cluster.list((o) => o.kind === 'Glance')[0]!.spec.serviceUser.secretRef.name, `${base}-v2`);
  t.equal(sim.world.openstack.users.get('placement'), placementBefore, 'Placement untouched');
  t.ok(password(`${name}-placement-service-user`), 'Placement keeps its first Secret');

  // A second request (another CredentialRotation): -v3, and -v2 released.
  sim.createCredentialRotation({ metadata: { name: 'again', namespace: ns }, spec: { target: 'serviceUserPassword', targetServiceUser: `${name}-user-glance`, reMint: true } });
  const done = await sim.runUntil(() => {
    const cr = sim.cluster.list((o) => o.kind === 'CredentialRotation' && o.metadata.name === 'again')[0];
    return conditionOf(cr?.status ?? {}, 'RotationComplete')?.status === 'True' && !get('Secret', `${base}-v2`) && sim.world.openstack.users.get('glance') === password(`${base}-v3`);
  }, 60);
  t.ok(done, 'the second rotation completes');
  t.not(password(`${base}-v3`), v2);
  t.match(conditionOf(sim.get(cp)!.status, 'GlanceReady'), { status: 'True' });
});

/** A settled Placement account as observed: the User applied `ref`, its push proven, the CR Ready. */
function observedAccount(ref: string, opts: { applied?: string | null; crRef?: string } = {}): { objects: Obj[]; input: (over?: Obj) => PasswordInput } {
  const pw = secret(NS, ref, { password: `pw-${ref}` }, { creationTimestamp: '2026-11-20T00:00:00Z' });
  const applied = opts.applied === undefined ? ref : opts.applied;
  const user: Obj = {
    apiVersion: KORC, kind: 'User', metadata: { name: `${CP}-user-placement`, namespace: NS, generation: 1 },
    spec: { resource: { passwordRef: ref } },
    status: { ...orcStatus(1, { id: 'u-1' }), ...(applied !== null ? { resource: { appliedPasswordRef: applied } } : {}) },
  };
  const push: Obj = {
    apiVersion: 'external-secrets.io/v1alpha1', kind: 'PushSecret', metadata: { name: `${BASE}-backup`, namespace: NS, annotations: { 'c5c3.io/source-sha256': sourceDigest(pw) } },
    spec: { selector: { secret: { name: ref } } },
  };
  const cr: Obj = { apiVersion: 'placement.openstack.c5c3.io/v1alpha1', kind: 'Placement', metadata: { name: `${CP}-placement`, namespace: NS, generation: 1 }, spec: { serviceUser: { secretRef: { name: opts.crRef ?? ref } } }, status: { conditions: [{ ...readyCondition(true), observedGeneration: 1 }] } };
  const objects = [pw, user, push, cr];
  return {
    objects,
    input: (over = {}) => ({
      cp: { name: CP, namespace: NS, uid: 'uid-cp', generation: 1 },
      base: BASE,
      children: new ObjectIndex(objectMap(objects)),
      user,
      push,
      cr,
      crSecretRef: ['spec', 'serviceUser', 'secretRef', 'name'],
      crSettled: true,
      pushed: () => true,
      requests: [{ key: 'uid-r/1', legacyKey: 'r/1', name: 'r', generation: 1, latchedAt: '2026-11-25T00:00:00Z' }],
      random: sequence(),
      ...over,
    }) as unknown as PasswordInput,
  };
}

t.test('plan: a request after the Secret was made starts a rotation from a settled account, OpenBao first', async (t) => {
  const { input } = observedAccount(BASE);
  const plan = passwordPlan(input());
  t.same(plan.secrets.map((s) => s.metadata.name), [BASE, `${BASE}-v2`], 'the one in use and the next');
  t.same(plan.secrets[1]!.metadata.annotations, { 'c5c3.io/rotation-requests': 'uid-r/1' }, 'the next lists the request');
  t.equal(plan.backup.name, `${BASE}-v2`, 'the backup moves to the next first');
  t.equal(plan.userPasswordRef, BASE, 'the User is not repointed before the push is proven');
  t.equal(plan.crSecret, BASE);
  t.match(plan.rotating, /backing it up to OpenBao first/);
  t.same(plan.releases, []);

  // A request latched before the Secret existed is honoured by it: nothing starts.
  const early = passwordPlan(input({ requests: [{ key: 'uid-r/1', legacyKey: 'r/1', name: 'r', generation: 1, latchedAt: '2026-11-19T00:00:00Z' }] }));
  t.same(early.secrets.map((s) => s.metadata.name), [BASE]);
  t.equal(early.rotating, undefined);
  t.equal(early.blocked, undefined);
});

t.test('plan: no rotation while K-ORC has not reported the applied password (it would take the next ref as the creation\'s)', async (t) => {
  const { input } = observedAccount(BASE, { applied: null });
  const plan = passwordPlan(input());
  t.same(plan.secrets.map((s) => s.metadata.name), [BASE], 'no next Secret');
  t.match(plan.blocked, /K-ORC has not reported the password it applied .*appliedPasswordRef is not controlplane-services-placement-service-user/);
  const unproven = passwordPlan(observedAccount(BASE).input({ pushed: () => false }));
  t.match(unproven.blocked, /once the backup of Secret controlplane-services-placement-service-user is proven/);
  const noCr = passwordPlan(observedAccount(BASE).input({ cr: undefined }));
  t.match(noCr.blocked, /once the service CR exists/);
});

t.test('plan: each step waits for the one before, and nothing moves backwards', async (t) => {
  // Push of -v2 proven (the observed PushSecret selects it): the User moves, the CR does not yet.
  const a = observedAccount(BASE);
  const v2 = secret(NS, `${BASE}-v2`, { password: 'pw-2' }, { annotations: { 'c5c3.io/rotation-requests': 'uid-r/1' } });
  const push = { ...a.objects[2]!, spec: { selector: { secret: { name: `${BASE}-v2` } } } };
  const children = new ObjectIndex(objectMap([...a.objects, v2]));
  const step2 = passwordPlan(a.input({ children, push }));
  t.equal(step2.userPasswordRef, `${BASE}-v2`);
  t.same(step2.userAnnotations, { 'c5c3.io/rotation-requests': 'uid-r/1' });
  t.equal(step2.crSecret, BASE, 'the CR waits for K-ORC');
  t.match(step2.rotating, /waiting for K-ORC to set it in Keystone/);

  // The User names -v2 but K-ORC has not applied it: the CR still waits; the User is not moved back even if the push proof is gone.
  const user = { ...a.objects[1]!, metadata: { ...a.objects[1]!.metadata, generation: 2 }, spec: { resource: { passwordRef: `${BASE}-v2` } } };
  const step3 = passwordPlan(a.input({ children, push, user, pushed: () => false }));
  t.equal(step3.userPasswordRef, `${BASE}-v2`, 'never back to the old Secret');
  t.equal(step3.crSecret, BASE);

  // Applied at the User's generation: the CR moves; the old Secret is kept until the CR is Ready on the new one.
  const appliedUser = { ...user, status: { ...orcStatus(2, { id: 'u-1' }), resource: { appliedPasswordRef: `${BASE}-v2` } } };
  const step4 = passwordPlan(a.input({ children, push, user: appliedUser }));
  t.equal(step4.crSecret, `${BASE}-v2`);
  const cr = { ...a.objects[3]!, metadata: { ...a.objects[3]!.metadata, generation: 2 }, spec: { serviceUser: { secretRef: { name: `${BASE}-v2` } } } };
  const step5 = passwordPlan(a.input({ children, push, user: appliedUser, cr, crSettled: false }));
  t.same(step5.secrets.map((s) => s.metadata.name), [`${BASE}-v2`, BASE], 'the superseded Secret kept while the CR is not Ready on the new one');
  t.same(step5.releases, []);
  t.equal(step5.rotating, undefined);
  const step6 = passwordPlan(a.input({ children, push, user: appliedUser, cr, crSettled: true }));
  t.same(step6.secrets.map((s) => s.metadata.name), [`${BASE}-v2`]);
  t.same(step6.releases.map((o) => o.metadata.name), [BASE], 'released once it is');
  t.same(step6.secrets[0]!.data, v2.data, 'the password is kept as observed');
});

t.test('a ControlPlane whose service users are never rotated: the User, the PushSecret and the CR are as before', async (t) => {
  const { input } = observedAccount(BASE);
  const plan = passwordPlan(input({ requests: [] }));
  t.same(plan.secrets.map((s) => s.metadata.name), [BASE]);
  t.equal(plan.secrets[0]!.metadata.annotations, undefined, 'the first Secret carries no list');
  t.equal(plan.userAnnotations, undefined);
  t.equal(plan.backup.name, BASE);
  t.equal(plan.userPasswordRef, BASE);
  t.equal(plan.crSecret, BASE);
});

const cpWithServices = (): Obj => ({ apiVersion: 'c5c3.io/v1alpha1', kind: 'ControlPlane', metadata: { name: CP, namespace: NS, uid: 'uid-cp' }, spec: { services: { placement: {} } }, status: {} });
const rotation = (spec: Obj, generation = 1, status?: Obj): Obj => ({
  apiVersion: 'c5c3.io/v1alpha1', kind: 'CredentialRotation', metadata: { name: 'rotate-placement', namespace: NS, uid: 'uid-rp', generation }, spec, ...(status ? { status } : {}),
});
const serviceUser = (annotations?: Obj, applied = true): Obj => ({
  apiVersion: KORC, kind: 'User', metadata: { name: `${CP}-user-placement`, namespace: NS, generation: 2, creationTimestamp: '2026-11-20T00:00:00Z', ...(annotations ? { annotations } : {}) },
  spec: { resource: { passwordRef: `${BASE}-v2` } }, status: { ...orcStatus(2, { id: 'u' }), resource: { appliedPasswordRef: applied ? `${BASE}-v2` : BASE } },
});

t.test('CredentialRotation hook: target serviceUserPassword is latched once the User exists and completes when K-ORC applied it', async (t) => {
  const { app } = await testServer();
  t.teardown(() => app.close());
  const call = async (object: Obj, related: Obj[]) => (await post(app, '/credentialrotation/sync', { controller: {}, object, related: objectMap(related), attachments: {} })).json as { status: Obj };
  const ready = (a: { status: Obj }) => conditionOf(a.status, 'Ready');
  const spec = { target: 'serviceUserPassword', targetServiceUser: `${CP}-user-placement`, reMint: true };

  t.match(ready(await call(rotation(spec), [cpWithServices()])), { status: 'False', reason: 'WaitingForServiceUser' });
  const latched = await call(rotation(spec), [cpWithServices(), serviceUser()]);
  t.match(ready(latched), { status: 'True', reason: 'RotationTriggered' });
  t.equal(latched.status.lastTriggeredGeneration, 1);
  t.match(conditionOf(latched.status, 'RotationComplete'), { status: 'False', reason: 'RotationInProgress' });

  const after = { lastTriggeredGeneration: 1, lastTriggeredTime: '2026-11-21T00:00:00Z', conditions: latched.status.conditions };
  const listing = { 'c5c3.io/rotation-requests': requestKey('uid-rp', 1) };
  t.match(conditionOf((await call(rotation(spec, 1, after), [cpWithServices(), serviceUser(listing, false)])).status, 'RotationComplete'), { status: 'False' }, 'listed but not applied yet');
  t.match(conditionOf((await call(rotation(spec, 1, after), [cpWithServices(), serviceUser(listing)])).status, 'RotationComplete'), { status: 'True', reason: 'RotationCompleted', message: /K-ORC set the password of Secret controlplane-services-placement-service-user-v2 in Keystone/ });

  // Not a service user of the ControlPlane; no targetServiceUser; a schedule (admission bypassed).
  t.match(ready(await call(rotation({ ...spec, targetServiceUser: `${CP}-user-admin` }), [cpWithServices()])), { status: 'False', reason: 'UnsupportedTarget', message: /is not a service user of ControlPlane controlplane-services \(its service users are controlplane-services-user-placement\)/ });
  t.match(ready(await call(rotation({ target: 'serviceUserPassword', reMint: true }), [cpWithServices()])), { reason: 'UnsupportedTarget', message: /needs spec.targetServiceUser/ });
  t.match(ready(await call(rotation({ ...spec, intervalDays: 30 }), [cpWithServices()])), { reason: 'UnsupportedTarget', message: /one-shot reMint/ });

  const customize = (await post(app, '/credentialrotation/customize', { controller: {}, parent: rotation(spec) })).json as { relatedResources: Obj[] };
  t.ok(customize.relatedResources.some((r) => r.resource === 'users' && r.names?.[0] === `${CP}-user-placement` && r.namespace === NS), 'customize relates the User by name');
});
