// The leg every service beside Keystone shares (docs/architecture.md §2.13), run for every entry
// of SERVICES: a new service is tested by being added. For each: declared with what it requires
// (the services and the bus its facts name), it converges to True/<Svc>Ready with its account,
// roles, databases' credentials, bus URL, catalog rows and CR; not declared it is NotManaged and
// emits nothing; its CR waits for its account and for the services it waits for; its removal needs
// the annotation and goes K-ORC first; a refused CR or part reports its kind's error; the teardown
// releases its CR after every K-ORC object, and the services' CRs one service at a time in reverse
// SERVICES order.
import t from 'tap';
import { SERVICES, hasReference, referenceCondition, type Service } from '../src/api/services/index.js';
import { accountNames, serviceChildNames, serviceRemoteKeys } from '../src/controlplane/names.js';
import { testServer, post } from './support/server.js';
import { healthy, orcStatus, syncRequest, type StatusOf } from './support/world.js';
import { sync, converge, managedCP, conditionOf, ids } from './support/sync.js';
import { fixtureControlPlane, type Obj } from './support/shared.js';

const CLOUD = fixtureControlPlane('controlplane-cloud.yaml').spec.services;

/** A managed ControlPlane declaring `d` and what it requires (the services it names, the bus). */
function declaring(d: Service): Obj {
  const cp = managedCP();
  const names = new Set<string>([d.name, ...d.requires.services.map((r) => r.name)]);
  for (const name of names) cp.spec.services[name] = structuredClone(CLOUD[name]);
  if ('messaging' in d.requires || d.messaging) cp.spec.infrastructure.messaging = { replicas: 1 };
  return cp;
}

const find = (children: Obj[], kind: string, name: string) => children.find((c) => c.kind === kind && c.metadata.name === name);
const cpName = (cp: Obj) => cp.metadata.name as string;

for (const d of SERVICES) {
  t.test(`${d.title}: declared, it converges with its account, databases, catalog and CR`, async (t) => {
    const { app } = await testServer();
    t.teardown(() => app.close());
    const parent = declaring(d);
    const world = await converge(app, parent, undefined, undefined, undefined, [], 40);
    const { children } = world;
    const cp = cpName(parent);
    const ns = parent.metadata.namespace;
    const n = serviceChildNames(cp, d.name);
    t.match(conditionOf(world.response.status, d.conditionType), { status: 'True', reason: d.reasons.ready });
    if (hasReference(d)) t.match(conditionOf(world.response.status, referenceCondition(d.reference)), { status: 'True', reason: d.reference.reasons.ready });
    t.match(conditionOf(world.response.status, 'Ready'), { status: 'True' });
    t.ok(find(children, d.kind.kind, n.cr), `${d.kind.kind} ${n.cr}`);
    for (const db of d.databases) {
      const es = find(children, 'ExternalSecret', n.dbCredentialsOf(db.infix));
      t.equal(es?.spec.data[0].remoteRef.key, serviceRemoteKeys(ns, cp, d.name).dbOf(db.infix), `the ${db.name} credential from OpenBao`);
      t.match(find(children, d.kind.kind, n.cr)!.spec[db.field], { database: db.name, secretRef: { name: n.dbCredentialsOf(db.infix) } }, `spec.${db.field}`);
    }
    const own = accountNames(cp, d.name, '');
    t.match(find(children, 'User', own.user)?.spec.resource, { name: d.name });
    for (const role of d.roles) t.match(find(children, 'RoleAssignment', own.roleAssignment(role))?.spec.resource, { roleRef: `${cp}-role-${role}`, userRef: own.user }, `role ${role}`);
    t.match(find(children, 'Service', n.service)?.spec.resource, { name: d.name, type: d.serviceType });
    t.equal(find(children, 'Endpoint', n.regionEndpointOf('a', 'internal'))?.spec.resource.url, `http://${n.cr}.${ns}.svc:${d.port}${d.path}`);
    const messaging = find(children, 'Secret', n.messaging);
    t.equal(messaging !== undefined, d.messaging, d.messaging ? 'the bus URL Secret' : 'no bus URL Secret');
    if (messaging) {
      t.match(Buffer.from(messaging.data.transport_url, 'base64').toString(), /^rabbit:\/\/[^:]+:[^@]+@[^:]+:5672\/$/);
      t.same(find(children, d.kind.kind, n.cr)!.spec.messaging, { secretRef: { name: n.messaging, key: 'transport_url' } });
    }
    for (const k of d.partKinds) t.ok(children.some((c) => c.kind === k.kind && c.spec[k.ref]?.name === n.cr), `a ${k.kind} attached by ${k.ref}`);
    t.notOk(JSON.stringify(world.response.status).match(/rabbit:\/\//), 'the bus URL is nowhere in status');
  });

  t.test(`${d.title}: not declared, NotManaged and nothing of it emitted`, async (t) => {
    const { app } = await testServer();
    t.teardown(() => app.close());
    const world = await converge(app, managedCP());
    t.match(conditionOf(world.response.status, d.conditionType), { status: 'True', reason: d.reasons.notManaged });
    if (hasReference(d)) t.match(conditionOf(world.response.status, referenceCondition(d.reference)), { status: 'True', reason: d.reference.reasons.notManaged });
    const kinds = new Set([d.kind.kind, ...d.partKinds.map((k) => k.kind)]);
    t.notOk(world.children.some((c) => kinds.has(c.kind) || c.metadata.name.includes(`-${d.name}-`)), 'no child of it');
  });

  t.test(`${d.title}: its CR waits for its account and the services it waits for; once there it stays`, async (t) => {
    const { app } = await testServer();
    t.teardown(() => app.close());
    const parent = declaring(d);
    const user = accountNames(cpName(parent), d.name, '').user;
    const userDown: StatusOf = (c, g) => (c.kind === 'User' && c.metadata.name === user ? orcStatus(g, { available: false }) : healthy(c, g));
    const waiting = await converge(app, parent, undefined, userDown, undefined, [], 40);
    t.notOk(find(waiting.children, d.kind.kind, serviceChildNames(cpName(parent), d.name).cr), 'no CR without the account');
    t.match(conditionOf(waiting.response.status, d.conditionType), { status: 'False', reason: 'WaitingForServiceAccount' });
    for (const other of SERVICES.filter((s) => d.waitsFor.some((w) => w === s.name))) {
      const otherDown: StatusOf = (c, g) => (c.kind === other.kind.kind ? { conditions: [{ type: 'Ready', status: 'False', reason: 'Deploying', message: 'x', observedGeneration: g, lastTransitionTime: '2026-11-21T12:00:00Z' }] } : healthy(c, g));
      const held = await converge(app, parent, undefined, otherDown, undefined, [], 40);
      t.notOk(find(held.children, d.kind.kind, serviceChildNames(cpName(parent), d.name).cr), `no CR while ${other.title} is not Ready`);
      t.match(conditionOf(held.response.status, d.conditionType), { status: 'False', reason: other.reasons.waiting, message: new RegExp(other.conditionType) });
    }
    const healthyWorld = await converge(app, parent, undefined, undefined, undefined, [], 40);
    const regressed = healthyWorld.children.map((c) => (c.kind === 'User' && c.metadata.name === user ? { ...c, status: orcStatus(1, { available: false }) } : c));
    const res = await sync(app, healthyWorld.parent, regressed, healthyWorld.related);
    t.same(ids(res.children), ids(healthyWorld.children), 'a lost account drops nothing: the CR stays');
  });

  t.test(`${d.title}: removed, kept until c5c3.io/allow-${d.name}-deletion, then K-ORC objects first`, async (t) => {
    const { app } = await testServer();
    t.teardown(() => app.close());
    const world = await converge(app, declaring(d), undefined, undefined, undefined, [], 40);
    const removed = structuredClone(world.parent);
    delete removed.spec.services[d.name];
    removed.metadata.generation = 2;
    const blocked = await sync(app, removed, world.children, world.related);
    t.same(ids(blocked.children), ids(world.children), 'every observed child kept');
    t.match(conditionOf(blocked.status, d.conditionType), { status: 'False', reason: 'ServiceDeletionBlocked', message: new RegExp(`c5c3\\.io/allow-${d.name}-deletion`) });
    removed.metadata.annotations = { [`c5c3.io/allow-${d.name}-deletion`]: 'true' };
    const first = await sync(app, removed, world.children, world.related);
    const gone = world.children.filter((c) => !ids(first.children).includes(`${c.kind}/${c.metadata.name}`));
    t.ok(gone.length > 0 && gone.every((c) => c.apiVersion === 'openstack.k-orc.cloud/v1alpha1'), `K-ORC objects first: ${gone.map((c) => c.kind).join(', ')}`);
    t.ok(gone.some((c) => c.kind === 'User' && c.spec.resource.name === d.name), 'its user among them');
  });

  t.test(`${d.title}: a CR or part the API server keeps refusing reports its kind's error`, async (t) => {
    const { app } = await testServer();
    t.teardown(() => app.close());
    const world = await converge(app, declaring(d), undefined, undefined, undefined, [], 40);
    const gen = world.parent.metadata.generation ?? 1;
    const refused = world.children.filter((c) => c.kind === d.kind.kind || d.partKinds.some((k) => k.kind === c.kind));
    t.ok(refused.length > 0);
    for (const live of refused) {
      const children = world.children.map((c) => (c === live ? { ...c, spec: {} } : c));
      const parent = { ...world.parent, status: { ...world.parent.status, unappliedChildren: [{ apiVersion: live.apiVersion, kind: live.kind, name: live.metadata.name, since: '2026-11-21T11:50:00Z', generation: gen }] } };
      const res = await sync(app, parent, children, world.related);
      t.match(conditionOf(res.status, d.conditionType), { status: 'False', reason: live.kind === d.kind.kind ? d.reasons.error : `${live.kind}Error` }, live.kind);
    }
  });
}

t.test('teardown: every K-ORC object first, then the service CRs one service at a time, in reverse SERVICES order', async (t) => {
  const { app } = await testServer();
  t.teardown(() => app.close());
  const world = await converge(app, fixtureControlPlane('controlplane-cloud.yaml'), undefined, undefined, undefined, [], 40);
  const parent = { ...world.parent, metadata: { ...world.parent.metadata, deletionTimestamp: '2026-11-21T12:00:00Z' } };
  let children = world.children;
  const removed: string[][] = [];
  for (let i = 0; i < 20; i++) {
    const body = (await post(app, '/controlplane/finalize', syncRequest(parent, children, world.related, true))).json as Obj;
    const gone = children.filter((c) => !ids(body.children).includes(`${c.kind}/${c.metadata.name}`)).map((c) => c.kind);
    if (gone.length > 0) removed.push([...new Set(gone)].sort());
    if (body.finalized) break;
    children = children.filter((c) => ids(body.children).includes(`${c.kind}/${c.metadata.name}`));
  }
  const serviceSteps = removed.filter((kinds) => kinds.some((k) => SERVICES.some((d) => d.kind.kind === k)));
  t.same(serviceSteps, [...SERVICES].reverse().map((d) => [d.kind.kind, ...d.partKinds.map((k) => k.kind)].sort()), 'Nova first, Glance last, each with its parts');
  const firstService = removed.findIndex((kinds) => serviceSteps.includes(kinds));
  t.ok(removed.slice(firstService).every((kinds) => kinds.every((k) => !['User', 'RoleAssignment', 'Service', 'Endpoint', 'ApplicationCredential'].includes(k))), 'no K-ORC object left when the CRs go');
});
