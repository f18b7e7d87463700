// POST /controlplane/finalize: K-ORC first, group by group, never wedged (docs/architecture.md §4).
import t, { type Test } from 'tap';
import { testServer, post } from './support/server.js';
import { applyResponse, healthy, orcStatus, readyCondition, syncRequest } from './support/world.js';
import { brownfieldCP, converge, conditionOf, ids, managedCP, sync, type World } from './support/sync.js';
import { find, withChild } from './support/korc.js';
import { admission } from './support/crd.js';
import { conformance, upstreamSchema, type Obj } from './support/shared.js';
import type { HooksServer } from '../src/server.js';

type Response = { status: Obj; children: Obj[]; resyncAfterSeconds?: number; finalized?: boolean };
const ORC = ['ApplicationCredential', 'Service', 'Endpoint', 'Region', 'User', 'Domain'];
const isOrc = (c: Obj) => ORC.includes(c.kind);

async function finalize(app: HooksServer, parent: Obj, children: Obj[], related: Obj[] = []): Promise<Response> {
  const res = await post(app, '/controlplane/finalize', syncRequest(parent, children, related, true));
  if (res.status !== 200) throw new Error(`finalize answered ${res.status}: ${res.body}`);
  return res.json as Response;
}

const deleting = (world: World, at = '2026-11-21T11:59:00Z'): Obj => ({ ...world.parent, metadata: { ...world.parent.metadata, deletionTimestamp: at } });

/** Metacontroller's reading of a finalize answer: returned children applied, the rest deleted (K-ORC finalizers hold them Terminating). */
function apply(parent: Obj, observed: Obj[], res: Response): Obj[] {
  const returned = applyResponse(res.children, parent, (c, g) => healthy(c, g), observed);
  const omitted = observed.filter((o) => !res.children.some((c) => c.kind === o.kind && c.metadata.name === o.metadata.name));
  const terminating = omitted.filter((o) => !o.metadata.deletionTimestamp).map((o) => ({ ...o, metadata: { ...o.metadata, deletionTimestamp: '2026-11-21T12:00:00Z' } }));
  return [...returned, ...terminating];
}

type Checks = Test;

/** Checks every finalize answer keeps: nothing new, nothing but the current K-ORC group left out. */
function checkAnswer(t: Checks, observed: Obj[], res: Response, step: string) {
  for (const c of res.children) t.ok(observed.some((o) => o.kind === c.kind && o.metadata.name === c.metadata.name), `${step}: ${c.kind}/${c.metadata.name} was observed (nothing recreated)`);
  if (res.finalized) return;
  const omitted = observed.filter((o) => !res.children.some((c) => c.kind === o.kind && c.metadata.name === o.metadata.name));
  t.same(omitted.filter((o) => !isOrc(o)), [], `${step}: no infrastructure, Keystone or credential child is left out`);
  const push = find(res.children, 'PushSecret');
  if (push) t.equal(push.spec.deletionPolicy, 'None', `${step}: the PushSecret keeps deletionPolicy None`);
}

t.test('ordered teardown: Endpoint and Service, then the Region they named, then the AC, then the imports, then released', async (t) => {
  const { app } = await testServer();
  t.teardown(() => app.close());
  const world = await converge(app, managedCP());
  const parent = deleting(world);
  let observed = world.children;
  const expected = [['Endpoint', 'Service'], ['Region'], ['ApplicationCredential'], ['Domain', 'User']];
  for (const group of expected) {
    const res = await finalize(app, parent, observed);
    checkAnswer(t, observed, res, `${group.join('+')} first call`);
    t.same(ORC.filter((k) => find(observed, k) && !find(res.children, k)).sort(), [...group].sort(), `${group.join('+')}: only this group is left out`);
    t.equal(res.finalized, false);
    t.equal(res.resyncAfterSeconds, 10);
    t.match(conditionOf(res.status, 'KORCReady'), { status: 'False', reason: 'FinalizingORC', message: new RegExp(`waiting for ${group.length > 1 ? '' : group[0]}`) });
    t.match(conditionOf(res.status, 'Ready'), { status: 'False', reason: 'NotAllReady' });
    // Metacontroller deletes them; K-ORC's finalizers keep them Terminating for a while.
    observed = apply(parent, observed, res);
    const still = await finalize(app, parent, observed);
    checkAnswer(t, observed, still, `${group.join('+')} while Terminating`);
    t.same(ids(still.children), ids(res.children), `${group.join('+')}: still left out while Terminating, the next group waits`);
    observed = observed.filter((o) => !group.includes(o.kind));
  }
  const done = await finalize(app, parent, observed);
  t.equal(done.finalized, true, 'released once no K-ORC object is observed');
  t.notOk(done.children.some(isOrc));
  t.same(ids(done.children), ids(observed), 'the rest is left to garbage collection');
  const again = await finalize(app, parent, observed);
  t.same(again, done, 'idempotent');
  const syncWhileDeleting = await sync(app, parent, observed, world.related);
  t.notOk(syncWhileDeleting.finalized, 'the sync hook never returns finalized');
});

t.test('a credential restricted by access rules: the identity catalog Service is detached before it is deleted, the rest as usual', async (t) => {
  // K-ORC deletes it with that credential, which may not delete services (401) or is refused once
  // the catalog has no identity service (e2e scenario 22): the teardown would hold for good.
  const { app } = await testServer();
  t.teardown(() => app.close());
  const world = await converge(app, managedCP());
  const parent = deleting(world);
  const rules = [{ serviceRef: 'identity', method: 'GET', path: '/v3/users' }];
  const observed = world.children.map((c) =>
    c.kind === 'ApplicationCredential' ? { ...c, spec: { ...c.spec, resource: { ...c.spec.resource, accessRules: rules } } } : c,
  );
  const first = await finalize(app, parent, observed);
  checkAnswer(t, observed, first, 'first call');
  const service = find(first.children, 'Service');
  t.ok(service, 'the identity Service is kept in this answer');
  t.equal(service?.spec.managedOptions?.onDelete, 'detach', 'and detached');
  t.notOk(find(first.children, 'Endpoint'), 'the Endpoint is deleted as usual');
  t.equal(find(first.children, 'ApplicationCredential')?.spec.managedOptions?.onDelete, undefined, 'the credential is not detached: it is revoked');
  t.match(conditionOf(first.status, 'KORCReady'), { reason: 'FinalizingORC', message: /detaching Service\/\S+ first \(Keystone's own identity entry stays: K-ORC could not delete it/ });
  const next = apply(parent, observed, first);
  const second = await finalize(app, parent, next);
  t.notOk(find(second.children, 'Service'), 'once detached, it is deleted (K-ORC leaves the entry in Keystone)');
  const without = await finalize(app, parent, world.children);
  t.notOk(find(without.children, 'Service'), 'without access rules the identity Service is deleted at once');
});

t.test('a dead Keystone: nothing detached (K-ORC releases nothing without Keystone), deletion waits and says why', async (t) => {
  // The real K-ORC authenticates and reads each object's resource before it looks at onDelete
  // (e2e scenario 20): a detach would free nothing while Keystone is down and would leave the
  // credential valid once it answers again.
  const { app } = await testServer();
  t.teardown(() => app.close());
  const world = await converge(app, managedCP());
  const parent = deleting(world);
  const deadKeystone = world.children.map((c) => (c.kind === 'Keystone' ? { ...c, status: { conditions: [readyCondition(false)] } } : c));
  const res = await finalize(app, parent, deadKeystone);
  checkAnswer(t, deadKeystone, res, 'dead Keystone');
  t.equal(res.finalized, false);
  t.notOk(res.children.some((c) => c.kind !== 'Region' && c.spec?.managedOptions?.onDelete === 'detach'), 'nothing detached');
  t.same(ORC.filter((k) => find(deadKeystone, k) && !find(res.children, k)).sort(), ['Endpoint', 'Service'], 'the first group is deleted as usual (K-ORC holds it until Keystone answers)');
  t.ok(find(res.children, 'ApplicationCredential'), 'the credential waits for its group');
  t.match(conditionOf(res.status, 'KORCReady'), {
    reason: 'FinalizingORC',
    message: /Keystone controlplane-keystone-keystone is not Ready, and K-ORC releases none of its objects until it can reach Keystone .* 5 minutes after the deletion the ControlPlane is released anyway/,
  });
  const gone = await finalize(app, parent, world.children.filter((c) => c.kind !== 'Keystone'));
  t.notOk(gone.children.some((c) => c.kind !== 'Region' && c.spec?.managedOptions?.onDelete === 'detach'), 'Keystone absent: nothing detached either');
  t.match(conditionOf(gone.status, 'KORCReady'), { message: /Keystone controlplane-keystone-keystone is gone, and K-ORC releases none/ });
});

// K-ORC's deletion path (generic/reconciler/controller.go Reconcile → reconcileDelete → DeleteResource
// in resource_actions.go, c22784ca): a terminal error does not gate deletion (ShouldReconcile is
// checked in reconcileNormal only), so an object with a status.id is fetched by it and deleted like
// any other. Only an object without an id is looked up by name (getResourceForAdoption), and an
// ambiguous lookup fails the same way every time: that one K-ORC cannot delete, and only that one
// is detached (the policy is read before the lookup).
const terminalWith = (c: Obj, reason: string, message: string, id?: string): Obj => ({ ...c, status: orcStatus(c.metadata.generation, { available: false, reason, message, id }) });
const AMBIGUOUS = 'found more than one matching OpenStack resource during adoption';

t.test('a terminal K-ORC error on an object with an OpenStack id: nothing is detached, everything is deleted and revoked group by group', async (t) => {
  const { app } = await testServer();
  t.teardown(() => app.close());
  const world = await converge(app, managedCP());
  const parent = deleting(world);
  const endpoint = find(world.children, 'Endpoint')!;
  let observed = withChild(world.children, 'Endpoint', (c) => terminalWith(c, 'UnrecoverableError', 'the endpoint cannot be updated', endpoint.status.id));
  const expected = [['Endpoint', 'Service'], ['Region'], ['ApplicationCredential'], ['Domain', 'User']];
  for (const group of expected) {
    const res = await finalize(app, parent, observed);
    checkAnswer(t, observed, res, `${group.join('+')}`);
    const detachedNow = (c: Obj) => c.spec?.managedOptions?.onDelete === 'detach' && find(observed, c.kind, c.metadata.name)?.spec?.managedOptions?.onDelete !== 'detach';
    t.same(res.children.filter(detachedNow).map((c) => c.kind), [], `${group.join('+')}: nothing detached (the Region is detached as desired all along)`);
    t.same(ORC.filter((k) => find(observed, k) && !find(res.children, k)).sort(), [...group].sort(), `${group.join('+')}: only this group is left out (deleted normally)`);
    observed = apply(parent, observed, res).filter((o) => !group.includes(o.kind));
  }
  t.equal((await finalize(app, parent, observed)).finalized, true, 'released once every K-ORC object is gone');
});

t.test('an object K-ORC cannot delete (terminal, no OpenStack id): only it is detached before deletion; the credential is revoked', async (t) => {
  const { app } = await testServer();
  t.teardown(() => app.close());
  const world = await converge(app, managedCP());
  const parent = deleting(world);
  const observed = withChild(world.children, 'Endpoint', (c) => terminalWith(c, 'InvalidConfiguration', AMBIGUOUS));
  const first = await finalize(app, parent, observed);
  checkAnswer(t, observed, first, 'detach');
  t.same(first.children.filter((c) => c.kind !== 'Region' && c.spec?.managedOptions?.onDelete === 'detach').map((c) => c.kind), ['Endpoint'], 'only the Endpoint is detached');
  t.ok(find(first.children, 'Endpoint'), 'kept until its detach is observed');
  t.notOk(find(first.children, 'Service'), 'the rest of its group is deleted as usual');
  t.equal(find(first.children, 'ApplicationCredential')!.spec.managedOptions, undefined, 'the credential is not detached: it is revoked in its group');
  t.match(conditionOf(first.status, 'KORCReady'), { reason: 'FinalizingORC', message: new RegExp(`detaching Endpoint/\\S+ first \\(K-ORC cannot delete it: it has no OpenStack id and reports InvalidConfiguration: ${AMBIGUOUS}\\)`) });
  t.test('the detached Endpoint validates against the upstream K-ORC CRD', conformance, async (t) => {
    const admit = admission(upstreamSchema('../third_party/k-orc-482412c0/config/crd/bases/openstack.k-orc.cloud_endpoints.yaml', 'v1alpha1'));
    t.same(admit(find(first.children, 'Endpoint')!).errors, [], 'the detached Endpoint validates');
  });
  const next = apply(parent, observed, first);
  const second = await finalize(app, parent, next);
  t.notOk(find(second.children, 'Endpoint'), 'detached: now deleted');
  t.equal(find(second.children, 'ApplicationCredential')!.spec.managedOptions, undefined, 'the credential still waits for its group, not detached');
});

t.test('Keystone down: nothing is detached, terminal error or not, with an id or without', async (t) => {
  const { app } = await testServer();
  t.teardown(() => app.close());
  const world = await converge(app, managedCP());
  const parent = deleting(world);
  const down = (children: Obj[]) => children.map((c) => (c.kind === 'Keystone' ? { ...c, status: { conditions: [readyCondition(false)] } } : c));
  const rules = [{ serviceRef: 'identity', method: 'GET', path: '/v3/users' }];
  const variants: [string, Obj[]][] = [
    ['a terminal Endpoint with an id', withChild(world.children, 'Endpoint', (c) => terminalWith(c, 'UnrecoverableError', 'gone', c.status.id))],
    ['a terminal Endpoint without an id', withChild(world.children, 'Endpoint', (c) => terminalWith(c, 'InvalidConfiguration', AMBIGUOUS))],
    ['a terminal credential without an id', withChild(world.children, 'ApplicationCredential', (c) => terminalWith(c, 'InvalidConfiguration', AMBIGUOUS))],
    ['a credential with access rules', withChild(world.children, 'ApplicationCredential', (c) => ({ ...c, spec: { ...c.spec, resource: { ...c.spec.resource, accessRules: rules } } }))],
  ];
  for (const [what, children] of variants) {
    for (const [state, observed] of [['not Ready', down(children)], ['gone', children.filter((c) => c.kind !== 'Keystone')]] as const) {
      const res = await finalize(app, parent, observed);
      checkAnswer(t, observed, res, `${what}, Keystone ${state}`);
      t.same(res.children.filter((c) => c.kind !== 'Region' && c.spec?.managedOptions?.onDelete === 'detach').map((c) => c.kind), [], `${what}, Keystone ${state}: nothing detached`);
      t.equal(res.finalized, false, `${what}, Keystone ${state}: held`);
      t.match(conditionOf(res.status, 'KORCReady'), { reason: 'FinalizingORC', message: new RegExp(`Keystone \\S+ is ${state === 'gone' ? 'gone' : 'not Ready'}, and K-ORC releases none`) });
    }
  }
  // The identity Service a restricted credential cannot delete is held, neither detached nor
  // deleted, until Keystone answers; then it is detached and deleted.
  const ruled = variants[3]![1];
  const held = await finalize(app, parent, down(ruled));
  t.ok(find(held.children, 'Service'), 'the identity Service is held while Keystone is down');
  t.notOk(find(held.children, 'Endpoint'), 'the Endpoint is deleted as usual (K-ORC holds it until Keystone answers)');
  const back = await finalize(app, parent, ruled);
  t.equal(find(back.children, 'Service')?.spec.managedOptions?.onDelete, 'detach', 'Keystone back: the identity Service is detached');
});

t.test('stalled teardown: released after 5 minutes from the ControlPlane deletion, loudly', async (t) => {
  const { app, logs } = await testServer();
  t.teardown(() => app.close());
  const world = await converge(app, managedCP());
  const stuck = world.children.map((c) => (isOrc(c) ? { ...c, metadata: { ...c.metadata, deletionTimestamp: '2026-11-21T11:55:00Z' } } : c));
  const under = await finalize(app, deleting(world, '2026-11-21T11:55:00Z'), stuck);
  t.equal(under.finalized, false, 'exactly 5 minutes: still waiting');
  const over = await finalize(app, deleting(world, '2026-11-21T11:54:59Z'), stuck);
  t.equal(over.finalized, true, 'past 5 minutes: released anyway');
  t.match(conditionOf(over.status, 'KORCReady'), { status: 'False', reason: 'ORCTeardownStalled', message: /5 minutes after deletion: .*ApplicationCredential\/controlplane-keystone-admin-app-credential/ });
  const warn = logs.map((l) => JSON.parse(l)).find((l) => l.reason === 'ORCTeardownStalled');
  t.ok(warn, 'a warning log line');
  t.equal(warn.level, 'warn');
  t.equal(warn.parent, 'openstack/controlplane-keystone', 'naming the ControlPlane, as every line of the call does (http/parent-of.ts)');
  t.same([...warn.objects].sort(), stuck.filter(isOrc).map((c) => `${c.kind}/${c.metadata.name}`).sort(), 'naming each stuck object');
  checkAnswer(t, stuck, over, 'stalled');
});

t.test('brownfield teardown, and a teardown where nothing K-ORC ever existed', async (t) => {
  const { app } = await testServer();
  t.teardown(() => app.close());
  const cp = brownfieldCP();
  const world = await converge(app, cp);
  let observed = world.children;
  const parent = deleting(world);
  let res = await finalize(app, parent, observed);
  let calls = 1;
  while (!res.finalized && calls < 10) {
    checkAnswer(t, observed, res, `brownfield call ${calls}`);
    observed = apply(parent, observed, res).filter((o) => !o.metadata.deletionTimestamp);
    res = await finalize(app, parent, observed);
    calls++;
  }
  t.equal(res.finalized, true);
  t.equal(calls, 5, 'four groups (the Region after the rows), then released');

  const early = await converge(app, managedCP(), undefined, (c, g) => (c.kind === 'Keystone' ? { conditions: [readyCondition(false)] } : healthy(c, g)));
  t.notOk(early.children.some(isOrc), 'the chain never reached K-ORC');
  const immediate = await finalize(app, deleting(early), early.children);
  t.equal(immediate.finalized, true, 'released at once');
  t.same(ids(immediate.children), ids(early.children));
  const empty = await finalize(app, deleting(early), []);
  t.same({ finalized: empty.finalized, children: empty.children }, { finalized: true, children: [] }, 'no children at all');
});
