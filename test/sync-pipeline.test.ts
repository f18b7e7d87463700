// The pipeline's guarantees: nothing observed is ever dropped, not-reached stages stay as they
// were, Ready is recomputed every time, transition times move only with status, the duplicate
// guard parks, and a response applied and synced again is a fixed point.
import t from 'tap';
import { testServer } from './support/server.js';
import { allReady, applied, clusterSecretStore, readyCondition } from './support/world.js';
import { sync, converge, managedCP, conditionOf, ids } from './support/sync.js';
import type { Obj } from './support/shared.js';
import { LAST_APPLIED_ANNOTATION } from '../src/k8s/observed.js';
import { STAGE_TABLE } from '../src/controlplane/pipeline.js';
import { SUB_CONDITIONS } from '../src/controlplane/conditions.js';

const lastAppliedOf = (c: Obj) => JSON.parse(c.metadata.annotations[LAST_APPLIED_ANNOTATION]);
const notReady = (): Obj => ({ conditions: [readyCondition(false)] });

/** K-ORC children as stage 5–7 will have left them, so part 1 must keep them. */
function korcChildren(parent: Obj): Obj[] {
  const mk = (apiVersion: string, kind: string, name: string, spec: Obj) =>
    applied({ apiVersion, kind, metadata: { name, namespace: parent.metadata.namespace, labels: { 'c5c3.io/controlplane': parent.metadata.name } }, spec }, parent, { conditions: [{ type: 'Available', status: 'True', reason: 'Success', message: '', lastTransitionTime: '2026-01-01T00:00:00Z' }] });
  const cp = parent.metadata.name;
  return [
    mk('openstack.k-orc.cloud/v1alpha1', 'ApplicationCredential', `${cp}-admin-app-credential`, { managementPolicy: 'managed', cloudCredentialsRef: { secretName: `${cp}-admin-password-cloud`, cloudName: 'admin' }, resource: { userRef: `${cp}-user-admin`, secretRef: `${cp}-admin-app-credential`, unrestricted: false } }),
    mk('v1', 'Secret', `${cp}-admin-app-credential`, { }),
    mk('external-secrets.io/v1alpha1', 'PushSecret', `${cp}-admin-app-credential-backup`, { deletionPolicy: 'None' }),
    mk('openstack.k-orc.cloud/v1alpha1', 'Service', `${cp}-identity-service`, { managementPolicy: 'managed' }),
    mk('openstack.k-orc.cloud/v1alpha1', 'Endpoint', `${cp}-identity-endpoint`, { managementPolicy: 'managed' }),
  ];
}

t.test('every stage name maps to exactly one of the seven condition types, in the seed order', async (t) => {
  t.same(STAGE_TABLE.map((s) => s.name), ['Infrastructure', 'DBCredentials', 'AdminPassword', 'Keystone', 'KORC', 'AdminCredential', 'Catalog']);
  t.same(STAGE_TABLE.map((s) => s.conditionType), [...SUB_CONDITIONS]);
  for (const slot of STAGE_TABLE) {
    if (!slot.stage) continue;
    t.equal(slot.stage.name, slot.name, `${slot.name}: stage name`);
    t.equal(slot.stage.conditionType, slot.conditionType, `${slot.name}: condition type`);
  }
});

t.test('regression invariant: from a converged state, each earlier stage regresses and every observed child is kept', async (t) => {
  const { app } = await testServer();
  t.teardown(() => app.close());
  const world = await converge(app, managedCP());
  const children = [...world.children, ...korcChildren(world.parent)];
  const converged = await sync(app, world.parent, children);
  t.same(ids(converged.children), ids(children), 'converged: all returned');

  const regress = (pick: (c: Obj) => boolean, status: Obj | ((c: Obj) => Obj)) =>
    children.map((c) => (pick(c) ? { ...c, status: typeof status === 'function' ? status(c) : status } : c));
  const terminating = (pick: (c: Obj) => boolean) =>
    children.map((c) => (pick(c) ? { ...c, metadata: { ...c.metadata, deletionTimestamp: '2026-11-21T11:59:00Z' } } : c));
  const scenarios: [string, Obj[], Obj[], string, string][] = [
    ['MariaDB not Ready', regress((c) => c.kind === 'MariaDB', notReady()), [clusterSecretStore()], 'InfrastructureReady', 'WaitingForDatabase'],
    ['Memcached not Ready', regress((c) => c.kind === 'Memcached', notReady()), [clusterSecretStore()], 'InfrastructureReady', 'WaitingForCache'],
    ['MariaDB Terminating', terminating((c) => c.kind === 'MariaDB'), [clusterSecretStore()], 'InfrastructureReady', 'WaitingForDatabase'],
    ['DB ExternalSecret failing', regress((c) => c.metadata.name.endsWith('-db-credentials'), { conditions: [readyCondition(false, 'SecretSyncedError')] }), [clusterSecretStore()], 'DBCredentialsReady', 'WaitingForDBCredentialSecret'],
    ['admin ExternalSecret failing', regress((c) => c.metadata.name.endsWith('-admin-credentials'), { conditions: [readyCondition(false, 'SecretSyncedError')] }), [clusterSecretStore()], 'AdminPasswordReady', 'WaitingForAdminPasswordSecret'],
    ['ClusterSecretStore not Ready', children, [clusterSecretStore(false)], 'DBCredentialsReady', 'SecretStoreNotReady'],
    ['ClusterSecretStore gone', children, [], 'DBCredentialsReady', 'SecretStoreNotReady'],
    ['Keystone not Ready', regress((c) => c.kind === 'Keystone', notReady()), [clusterSecretStore()], 'KeystoneReady', 'WaitingForKeystone'],
    ['Keystone status wiped', regress((c) => c.kind === 'Keystone', {}), [clusterSecretStore()], 'KeystoneReady', 'WaitingForKeystone'],
    ['admin password Secret missing', children, [clusterSecretStore()], 'KeystoneReady', 'KeystoneReady'],
  ];
  for (const [name, observed, related, type, reason] of scenarios) {
    const res = await sync(app, world.parent, observed, related);
    t.same(ids(res.children), ids(children), `${name}: every observed child returned`);
    t.match(conditionOf(res.status, type), { reason }, `${name}: ${type} ${reason}`);
    t.match(conditionOf(res.status, 'Ready'), { status: 'False', reason: 'NotAllReady' }, `${name}: Ready recomputed`);
    const stopped = SUB_CONDITIONS.indexOf(type as (typeof SUB_CONDITIONS)[number]);
    // Children of stages after the one that stopped are returned exactly as last applied.
    for (const c of observed.filter((o) => o.apiVersion.startsWith('openstack.k-orc.cloud') || o.kind === 'PushSecret')) {
      const returned = res.children.find((r: Obj) => r.kind === c.kind && r.metadata.name === c.metadata.name);
      t.same(returned, lastAppliedOf(c), `${name}: ${c.kind} ${c.metadata.name} kept as last applied`);
    }
    for (const later of SUB_CONDITIONS.slice(stopped + 1)) {
      t.same(conditionOf(res.status, later), conditionOf(converged.status, later), `${name}: ${later} not reached, unchanged`);
    }
  }
});

t.test('a spec error in a later stage keeps everything; an unreadable spec keeps everything', async (t) => {
  const { app } = await testServer();
  t.teardown(() => app.close());
  const world = await converge(app, managedCP());
  for (const spec of [undefined, 'garbage', { openStackRelease: 7 }, { ...world.parent.spec, services: { keystone: { replicas: -1 } } }]) {
    const res = await sync(app, { ...world.parent, spec }, world.children);
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
  t.notOk((world.response.status.conditions as Obj[]).some((c) => c.reason === 'InvalidSpec'), 'blamed on the K-ORC stage, not reached yet');
  t.match(conditionOf(world.response.status, 'Ready'), { status: 'False' });
});

t.test('Ready aggregation: AllReady only with all seven True; a stale Ready=True is recomputed', async (t) => {
  const { app } = await testServer();
  t.teardown(() => app.close());
  const world = await converge(app, managedCP());
  t.match(conditionOf(world.response.status, 'Ready'), { status: 'False', reason: 'NotAllReady', message: /KORCReady, AdminCredentialReady, CatalogReady/ });
  // As if stages 5–7 had reported True on an earlier pass (they keep their previous condition).
  const later = ['KORCReady', 'AdminCredentialReady', 'CatalogReady'].map((type) => ({ type, status: 'True', reason: 'Done', message: '', lastTransitionTime: '2026-10-01T00:00:00Z', observedGeneration: 1 }));
  const staleReady = { type: 'Ready', status: 'True', reason: 'AllReady', message: 'All sub-conditions are ready', lastTransitionTime: '2026-10-01T00:00:00Z', observedGeneration: 1 };
  const parent = { ...world.parent, status: { ...world.parent.status, conditions: [...world.parent.status.conditions.filter((c: Obj) => c.type !== 'Ready'), ...later, staleReady] } };
  const all = await sync(app, parent, world.children);
  t.match(conditionOf(all.status, 'Ready'), { status: 'True', reason: 'AllReady', message: 'All sub-conditions are ready', lastTransitionTime: '2026-10-01T00:00:00Z' });
  const broken = world.children.map((c) => (c.kind === 'Keystone' ? { ...c, status: notReady() } : c));
  const res = await sync(app, parent, broken);
  t.match(conditionOf(res.status, 'Ready'), { status: 'False', reason: 'NotAllReady', message: /KeystoneReady/, lastTransitionTime: '2026-11-21T12:00:00Z' });
  t.equal((res.status.conditions as Obj[]).filter((c) => c.type === 'Ready').length, 1);
  t.same((res.status.conditions as Obj[]).map((c) => c.type), [...SUB_CONDITIONS, 'Ready'], 'conditions in a fixed order');
});

t.test('status: transition times carried when the status did not change; observedGeneration; the rest', async (t) => {
  const { app } = await testServer();
  t.teardown(() => app.close());
  const world = await converge(app, managedCP());
  const old = '2026-06-01T00:00:00Z';
  const aged = { ...world.parent, metadata: { ...world.parent.metadata, generation: 2 }, status: { ...world.parent.status, conditions: world.parent.status.conditions.map((c: Obj) => ({ ...c, lastTransitionTime: old, message: 'old message' })), adminApplicationCredential: { id: 'ac-1', restricted: true, lastRotation: old } } };
  const res = await sync(app, aged, world.children);
  for (const c of res.status.conditions as Obj[]) {
    t.equal(c.lastTransitionTime, old, `${c.type}: kept (status unchanged)`);
    t.equal(c.observedGeneration, 2, `${c.type}: observedGeneration`);
  }
  t.equal(res.status.observedGeneration, 2);
  t.equal(res.status.updatePhase, 'Idle');
  t.same(res.status.adminApplicationCredential, { id: 'ac-1', restricted: true, lastRotation: old }, 'carried over untouched');
  const flipped = await sync(app, aged, world.children.map((c) => (c.kind === 'MariaDB' ? { ...c, status: notReady() } : c)));
  t.equal(conditionOf(flipped.status, 'InfrastructureReady').lastTransitionTime, '2026-11-21T12:00:00Z', 'moved with the status');
  t.equal(conditionOf(flipped.status, 'KeystoneReady').lastTransitionTime, old, 'not reached: verbatim');
  t.equal(conditionOf(flipped.status, 'KeystoneReady').observedGeneration, 1, 'not reached: old observedGeneration kept');
  t.same(flipped.status.services, [{ name: 'keystone', ready: true, release: '2025.2' }], 'services from the KeystoneReady condition');
});

t.test('fixed point: applying a response and syncing again yields the identical response', async (t) => {
  const { app } = await testServer();
  t.teardown(() => app.close());
  for (const statusOf of [allReady, (c: Obj) => (c.kind === 'Keystone' ? notReady() : allReady()), () => notReady()]) {
    const world = await converge(app, managedCP(), [clusterSecretStore()], statusOf);
    const again = await sync(app, world.parent, world.children);
    t.equal(JSON.stringify(again), JSON.stringify(world.response), 'byte-identical');
    const withKorc = [...world.children, ...korcChildren(world.parent)];
    const first = await sync(app, world.parent, withKorc);
    const second = await sync(app, { ...world.parent, status: first.status }, withKorc);
    t.equal(JSON.stringify(second), JSON.stringify(first), 'also with not-reached children present');
  }
});

t.test('duplicate guard: all but the oldest ControlPlane of the namespace are parked', async (t) => {
  const { app } = await testServer();
  t.teardown(() => app.close());
  const world = await converge(app, managedCP());
  const peer = (name: string, creationTimestamp: string) => ({ apiVersion: 'c5c3.io/v1alpha1', kind: 'ControlPlane', metadata: { name, namespace: 'openstack', uid: `uid-${name}`, creationTimestamp }, spec: {} });
  const self = { ...world.parent.metadata };
  const older = [clusterSecretStore(), peer('aaa-older', '2025-01-01T00:00:00Z'), { ...world.parent }];
  const res = await sync(app, world.parent, world.children, older);
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
