// The pipeline's guarantees: nothing observed is ever dropped, not-reached stages stay as they
// were, Ready is recomputed every time, transition times move only with status, the duplicate
// guard parks, and a response applied and synced again is a fixed point.
import t from 'tap';
import { testServer } from './support/server.js';
import { clusterSecretStore, healthy, orcStatus, readyCondition } from './support/world.js';
import { sync, converge, managedCP, conditionOf, ids } from './support/sync.js';
import type { Obj } from './support/shared.js';
import type { StatusOf } from './support/world.js';
import { LAST_APPLIED_ANNOTATION } from '../src/k8s/observed.js';
import { STAGE_TABLE } from '../src/controlplane/pipeline.js';
import { SUB_CONDITIONS } from '../src/controlplane/conditions.js';

const lastAppliedOf = (c: Obj) => JSON.parse(c.metadata.annotations[LAST_APPLIED_ANNOTATION]);
/** A child without the label Metacontroller adds (a re-emitted child lacks it, a kept one has it). */
const withoutControllerUid = (c: Obj): Obj => {
  const copy = structuredClone(c);
  delete copy.metadata?.labels?.['controller-uid'];
  return copy;
};
const notReady = (): Obj => ({ conditions: [readyCondition(false)] });

t.test('every stage name maps to exactly one sub-condition, in the seed order; the service stages are siblings', async (t) => {
  const chain = STAGE_TABLE.filter((s) => !s.aside);
  t.same(chain.map((s) => s.name), ['Infrastructure', 'DBCredentials', 'AdminPassword', 'Keystone', 'KORC', 'AdminCredential', 'Catalog', 'Glance', 'Placement', 'OVN', 'Neutron', 'Cinder', 'Nova']);
  t.same(chain.map((s) => s.conditionType), [...SUB_CONDITIONS]);
  t.same(chain.map((s) => s.interval), [15, 10, 10, 15, 10, 10, 10, 10, 10, 10, 10, 10, 10], 'the seed intervals of each stage');
  t.same(chain.map((s) => s.sibling === true), [false, false, false, false, false, false, false, true, true, true, true, true, true]);
  // Aside (docs/architecture.md §2.15): outside the chain and the Ready aggregate.
  t.same(STAGE_TABLE.filter((s) => s.aside).map((s) => [s.name, s.conditionType]), [['DatabaseBackup', 'DatabaseBackupReady']]);
  t.notOk((SUB_CONDITIONS as readonly string[]).includes('DatabaseBackupReady'));
});

t.test('regression invariant: from a converged state, each earlier stage regresses and every observed child is kept', async (t) => {
  const { app } = await testServer();
  t.teardown(() => app.close());
  const world = await converge(app, managedCP());
  const { children } = world;
  t.match(conditionOf(world.response.status, 'Ready'), { status: 'True', reason: 'AllReady' }, 'all seven stages green');
  t.equal(world.response.resyncAfterSeconds, undefined, 'no resync once converged');
  const store = (ready: boolean) => [clusterSecretStore(ready), ...world.related.filter((r) => r.kind !== 'ClusterSecretStore')];
  const withoutPassword = world.related.filter((r) => !r.metadata.name.endsWith('-admin-credentials'));

  const regress = (pick: (c: Obj) => boolean, status: Obj | ((c: Obj) => Obj)) =>
    children.map((c) => (pick(c) ? { ...c, status: typeof status === 'function' ? status(c) : status } : c));
  const terminating = (pick: (c: Obj) => boolean) =>
    children.map((c) => (pick(c) ? { ...c, metadata: { ...c.metadata, deletionTimestamp: '2026-11-21T11:59:00Z' } } : c));
  const scenarios: [string, Obj[], Obj[], string, string][] = [
    ['MariaDB not Ready', regress((c) => c.kind === 'MariaDB', notReady()), world.related, 'InfrastructureReady', 'WaitingForDatabase'],
    ['Memcached not Ready', regress((c) => c.kind === 'Memcached', notReady()), world.related, 'InfrastructureReady', 'WaitingForCache'],
    ['MariaDB Terminating', terminating((c) => c.kind === 'MariaDB'), world.related, 'InfrastructureReady', 'WaitingForDatabase'],
    ['DB ExternalSecret failing', regress((c) => c.metadata.name.endsWith('-db-credentials'), { conditions: [readyCondition(false, 'SecretSyncedError')] }), world.related, 'DBCredentialsReady', 'WaitingForDBCredentialSecret'],
    ['admin ExternalSecret failing', regress((c) => c.metadata.name.endsWith('-admin-credentials'), { conditions: [readyCondition(false, 'SecretSyncedError')] }), world.related, 'AdminPasswordReady', 'WaitingForAdminPasswordSecret'],
    ['ClusterSecretStore not Ready', children, store(false), 'DBCredentialsReady', 'SecretStoreNotReady'],
    ['ClusterSecretStore gone', children, world.related.filter((r) => r.kind !== 'ClusterSecretStore'), 'DBCredentialsReady', 'SecretStoreNotReady'],
    ['Keystone not Ready', regress((c) => c.kind === 'Keystone', notReady()), world.related, 'KeystoneReady', 'WaitingForKeystone'],
    ['Keystone status wiped', regress((c) => c.kind === 'Keystone', {}), world.related, 'KeystoneReady', 'WaitingForKeystone'],
    ['admin password Secret missing', children, withoutPassword, 'KORCReady', 'WaitingForAdminPassword'],
    ['admin User import stuck', regress((c) => c.kind === 'User' || c.kind === 'ApplicationCredential', (c) => orcStatus(1, { available: false, id: c.status.id })), world.related, 'KORCReady', 'WaitingForApplicationCredential'],
    ['PushSecret failing', regress((c) => c.kind === 'PushSecret', { conditions: [readyCondition(false, 'Errored')] }), world.related, 'AdminCredentialReady', 'WaitingForPushSecret'],
    ['clouds.yaml not materialised', children, world.related.filter((r) => r.metadata.name !== 'k-orc-clouds-yaml'), 'AdminCredentialReady', 'WaitingForCloudsYamlSync'],
    ['Endpoint not Available', regress((c) => c.kind === 'Endpoint', () => orcStatus(1, { available: false })), world.related, 'CatalogReady', 'WaitingForCatalog'],
  ];
  for (const [name, observed, related, type, reason] of scenarios) {
    const res = await sync(app, world.parent, observed, related);
    t.same(ids(res.children), ids(children), `${name}: every observed child returned`);
    t.match(conditionOf(res.status, type), { reason }, `${name}: ${type} ${reason}`);
    t.match(conditionOf(res.status, 'Ready'), { status: 'False', reason: 'NotAllReady' }, `${name}: Ready recomputed`);
    // Nothing changes on any child: every one is returned exactly as last applied.
    for (const c of observed) {
      const returned = res.children.find((r: Obj) => r.kind === c.kind && r.metadata.name === c.metadata.name) ?? {};
      t.same(withoutControllerUid(returned), withoutControllerUid(lastAppliedOf(c)), `${name}: ${c.kind} ${c.metadata.name} as last applied`);
    }
    const stopped = SUB_CONDITIONS.indexOf(type as (typeof SUB_CONDITIONS)[number]);
    for (const later of SUB_CONDITIONS.slice(stopped + 1)) {
      t.same(conditionOf(res.status, later), conditionOf(world.response.status, later), `${name}: ${later} not reached, unchanged`);
    }
  }
});

t.test('a spec error in a later stage keeps everything; an unreadable spec keeps everything', async (t) => {
  const { app } = await testServer();
  t.teardown(() => app.close());
  const world = await converge(app, managedCP());
  const korcBroken = structuredClone(world.parent.spec);
  korcBroken.korc.adminCredential.cloudCredentialsRef.secretName = 'Not A Name';
  for (const spec of [undefined, 'garbage', { openStackRelease: 7 }, { ...world.parent.spec, services: { keystone: { replicas: -1 } } }, korcBroken]) {
    const res = await sync(app, { ...world.parent, spec }, world.children, world.related);
    t.same(ids(res.children), ids(world.children), `spec ${JSON.stringify(spec)?.slice(0, 60)}: nothing dropped`);
    t.ok((res.status.conditions as Obj[]).some((c) => c.reason === 'InvalidSpec'), 'InvalidSpec reported');
  }
});

t.test('a schema error read only by a later stage does not stop the earlier ones', async (t) => {
  const { app } = await testServer();
  t.teardown(() => app.close());
  const cp = managedCP();
  cp.spec.korc.adminCredential.applicationCredential.rotation.mode = 'Weekly';
  const world = await converge(app, cp);
  for (const type of SUB_CONDITIONS.slice(0, 4)) t.match(conditionOf(world.response.status, type), { status: 'True' }, `${type} True`);
  t.match(conditionOf(world.response.status, 'KORCReady'), { status: 'False', reason: 'InvalidSpec', message: /spec\.korc\.adminCredential\.applicationCredential\.rotation\.mode/ }, 'blamed on the K-ORC stage');
  t.equal(world.response.resyncAfterSeconds, 10, 'the K-ORC interval');
  t.match(conditionOf(world.response.status, 'Ready'), { status: 'False' });
});

t.test('Ready aggregation: AllReady only with all seven True; a stale Ready=True is recomputed', async (t) => {
  const { app } = await testServer();
  t.teardown(() => app.close());
  const world = await converge(app, managedCP());
  t.match(conditionOf(world.response.status, 'Ready'), { status: 'True', reason: 'AllReady', message: 'All sub-conditions are ready' });
  const catalogPending = world.children.map((c) => (c.kind === 'Service' ? { ...c, status: orcStatus(1, { available: false }) } : c));
  const pending = await sync(app, world.parent, catalogPending, world.related);
  t.match(conditionOf(pending.status, 'Ready'), { status: 'False', reason: 'NotAllReady', message: 'One or more sub-conditions are not ready: CatalogReady' });
  const broken = world.children.map((c) => (c.kind === 'Keystone' ? { ...c, status: notReady() } : c));
  const res = await sync(app, world.parent, broken, world.related);
  t.match(conditionOf(res.status, 'Ready'), { status: 'False', reason: 'NotAllReady', message: /KeystoneReady/, lastTransitionTime: '2026-11-21T12:00:00Z' });
  t.match(conditionOf(res.status, 'CatalogReady'), { status: 'True' }, 'not reached: kept True, yet Ready is False');
  t.equal((res.status.conditions as Obj[]).filter((c) => c.type === 'Ready').length, 1);
  t.same((res.status.conditions as Obj[]).map((c) => c.type), [...SUB_CONDITIONS, 'ServicesReady', 'Ready'], 'conditions in a fixed order');
});

t.test('status: transition times carried when the status did not change; observedGeneration; the rest', async (t) => {
  const { app } = await testServer();
  t.teardown(() => app.close());
  const world = await converge(app, managedCP());
  const old = '2026-06-01T00:00:00Z';
  const id = world.response.status.adminApplicationCredential.id;
  const aged = { ...world.parent, metadata: { ...world.parent.metadata, generation: 2 }, status: { ...world.parent.status, conditions: world.parent.status.conditions.map((c: Obj) => ({ ...c, lastTransitionTime: old, message: 'old message' })), adminApplicationCredential: { id, restricted: true, lastRotation: old } } };
  const res = await sync(app, aged, world.children, world.related);
  for (const c of res.status.conditions as Obj[]) {
    t.equal(c.lastTransitionTime, old, `${c.type}: kept (status unchanged)`);
    t.equal(c.observedGeneration, 2, `${c.type}: observedGeneration`);
  }
  t.equal(res.status.observedGeneration, 2);
  t.equal(res.status.updatePhase, 'Idle');
  t.same(res.status.adminApplicationCredential, { id, restricted: true, lastRotation: old }, 'same id: lastRotation carried over');
  const otherId = { ...aged, status: { ...aged.status, adminApplicationCredential: { id: 'ac-older', restricted: false, lastRotation: old } } };
  const moved = await sync(app, otherId, world.children, world.related);
  t.same(moved.status.adminApplicationCredential, { id, restricted: true, lastRotation: '2026-11-21T12:00:00Z' }, 'new id: lastRotation moves; restricted from the live AC');
  const flipped = await sync(app, aged, world.children.map((c) => (c.kind === 'MariaDB' ? { ...c, status: notReady() } : c)), world.related);
  t.equal(conditionOf(flipped.status, 'InfrastructureReady').lastTransitionTime, '2026-11-21T12:00:00Z', 'moved with the status');
  t.equal(conditionOf(flipped.status, 'KeystoneReady').lastTransitionTime, old, 'not reached: verbatim');
  t.equal(conditionOf(flipped.status, 'KeystoneReady').observedGeneration, 1, 'not reached: old observedGeneration kept');
  t.same(flipped.status.services, [{ name: 'keystone', ready: true, release: '2025.2' }], 'services from the KeystoneReady condition');
});

t.test('fixed point: applying a response and syncing again yields the identical response', async (t) => {
  const { app } = await testServer();
  t.teardown(() => app.close());
  const variants: [string, StatusOf][] = [
    ['all healthy', healthy],
    ['Keystone not Ready', (c, g) => (c.kind === 'Keystone' ? notReady() : healthy(c, g))],
    ['nothing Ready', () => notReady()],
    ['catalog not Available', (c, g) => (c.kind === 'Endpoint' ? orcStatus(g, { available: false }) : healthy(c, g))],
  ];
  for (const [name, statusOf] of variants) {
    const world = await converge(app, managedCP(), [clusterSecretStore()], statusOf);
    const again = await sync(app, world.parent, world.children, world.related);
    t.equal(JSON.stringify(again), JSON.stringify(world.response), `${name}: byte-identical`);
  }
});

t.test('duplicate guard: all but the oldest ControlPlane of the namespace are parked', async (t) => {
  const { app } = await testServer();
  t.teardown(() => app.close());
  const world = await converge(app, managedCP());
  const peer = (name: string, creationTimestamp: string) => ({ apiVersion: 'c5c3.io/v1alpha1', kind: 'ControlPlane', metadata: { name, namespace: 'openstack', uid: `uid-${name}`, creationTimestamp }, spec: {} });
  const self = { ...world.parent.metadata };
  const older = [clusterSecretStore(), peer('aaa-older', '2025-01-01T00:00:00Z'), { ...world.parent }];
  const res = await sync(app, world.parent, world.children, [...older, ...world.related.filter((r) => r.kind === 'Secret')]);
  t.match(conditionOf(res.status, 'Ready'), { status: 'False', reason: 'DuplicateControlPlane', message: /aaa-older/ });
  t.equal(res.resyncAfterSeconds, 30);
  t.same(ids(res.children), ids(world.children), 'observed children kept');
  for (const c of world.children) t.same(res.children.find((r: Obj) => r.kind === c.kind && r.metadata.name === c.metadata.name), lastAppliedOf(c));
  for (const type of SUB_CONDITIONS.slice(0, 4)) t.same(conditionOf(res.status, type), conditionOf(world.response.status, type), `${type} kept`);

  const sameTime = await sync(app, world.parent, world.children, [clusterSecretStore(), peer('aaa', self.creationTimestamp)]);
  t.match(conditionOf(sameTime.status, 'Ready'), { reason: 'DuplicateControlPlane', message: /aaa is the incumbent/ }, 'ties broken by name');
  const younger = await sync(app, world.parent, world.children, [clusterSecretStore(), peer('zzz-younger', '2027-01-01T00:00:00Z'), peer('other-ns', '2020-01-01T00:00:00Z') && { ...peer('x', '2020-01-01T00:00:00Z'), metadata: { ...peer('x', '2020-01-01T00:00:00Z').metadata, namespace: 'elsewhere' } }]);
  t.notMatch(conditionOf(younger.status, 'Ready').reason, 'DuplicateControlPlane', 'the incumbent runs; other namespaces do not count');
});
