// Every row of the contract tables for stages 1–4 (docs/architecture.md §7.3), at the HTTP level.
import t from 'tap';
import { testServer } from './support/server.js';
import { clusterSecretStore, applied, allReady, readyCondition } from './support/world.js';
import { dbCredentialsStage } from '../src/controlplane/stages/db-credentials.js';
import { adminPasswordStage } from '../src/controlplane/stages/admin-password.js';
import { sync, converge, managedCP, conditionOf, ids, stageInput } from './support/sync.js';
import type { Obj } from './support/shared.js';
import { keystoneStage } from '../src/controlplane/stages/keystone.js';

const brownfield = () => {
  const cp = managedCP();
  cp.spec.infrastructure = {
    database: { host: 'db.example.com', port: 3306, database: 'keystone', secretRef: { name: 'keystone-db', key: 'password' } },
    cache: { servers: ['mc-0.example.com:11211'], backend: 'dogpile.cache.pymemcache' },
  };
  cp.spec.korc.adminCredential.passwordSecretRef = { name: 'my-admin', key: 'pw' };
  return cp;
};
const find = (children: Obj[], kind: string, name?: string) => children.find((c) => c.kind === kind && (!name || c.metadata.name === name));
const notReady = (): Obj => ({ conditions: [readyCondition(false)] });
const stageOf = { DBCredentials: dbCredentialsStage, AdminPassword: adminPasswordStage };
t.test('Infrastructure: managed MariaDB and Memcached, then WaitingForDatabase', async (t) => {
  const { app } = await testServer();
  t.teardown(() => app.close());
  const res = await sync(app, managedCP());
  const infra = conditionOf(res.status, 'InfrastructureReady');
  t.match(infra, { status: 'False', reason: 'WaitingForDatabase', observedGeneration: 1, lastTransitionTime: '2026-11-21T12:00:00Z' });
  t.equal(res.resyncAfterSeconds, 15);
  t.same(ids(res.children), ['MariaDB/openstack-db', 'Memcached/openstack-memcached'], 'both ensured in one pass');
  t.same(find(res.children, 'MariaDB')!.spec, { replicas: 3, galera: { enabled: true }, storage: { size: '100Gi' } });
  t.same(find(res.children, 'Memcached')!.spec, { replicas: 3 });
  t.equal(find(res.children, 'Memcached')!.apiVersion, 'memcached.c5c3.io/v1beta1');
  t.notOk(conditionOf(res.status, 'DBCredentialsReady'), 'later stages not reached');
});

t.test('Infrastructure: WaitingForCache while only the MariaDB is Ready; Ready when both are', async (t) => {
  const { app } = await testServer();
  t.teardown(() => app.close());
  const cp = managedCP();
  const first = await sync(app, cp);
  const mariadb = applied(find(first.children, 'MariaDB')!, cp, allReady());
  const memcached = applied(find(first.children, 'Memcached')!, cp, notReady());
  const res = await sync(app, cp, [mariadb, memcached]);
  t.match(conditionOf(res.status, 'InfrastructureReady'), { status: 'False', reason: 'WaitingForCache' });
  const both = await sync(app, cp, [mariadb, applied(find(first.children, 'Memcached')!, cp, allReady())]);
  t.match(conditionOf(both.status, 'InfrastructureReady'), { status: 'True', reason: 'InfrastructureReady' });
});

t.test('Infrastructure: a Terminating child is not ready and is not updated', async (t) => {
  const { app } = await testServer();
  t.teardown(() => app.close());
  const cp = managedCP();
  const first = await sync(app, cp);
  const mariadb = applied(find(first.children, 'MariaDB')!, cp, allReady());
  mariadb.metadata.deletionTimestamp = '2026-11-21T11:00:00Z';
  mariadb.spec.replicas = 5;
  const res = await sync(app, cp, [mariadb, applied(find(first.children, 'Memcached')!, cp, allReady())]);
  t.match(conditionOf(res.status, 'InfrastructureReady'), { status: 'False', reason: 'WaitingForDatabase', message: /being deleted/ });
  t.same(find(res.children, 'MariaDB'), JSON.parse(mariadb.metadata.annotations['metacontroller.k8s.io/last-applied-configuration']));
});

t.test('Infrastructure: memcached replicas follow the spec; MariaDB storage is never shrunk', async (t) => {
  const { app } = await testServer();
  t.teardown(() => app.close());
  const cp = managedCP();
  cp.spec.infrastructure.cache.replicas = 5;
  const first = await sync(app, cp);
  t.same(find(first.children, 'Memcached')!.spec, { replicas: 5 });
  const grown = applied(find(first.children, 'MariaDB')!, cp, allReady());
  grown.spec.storage.size = '250Gi';
  const res = await sync(app, cp, [grown]);
  t.same(find(res.children, 'MariaDB')!.spec, { replicas: 3, galera: { enabled: true }, storage: { size: '250Gi' } });
});

t.test('Infrastructure: unowned pre-existing MariaDB/Memcached are adopted, never emitted', async (t) => {
  const { app } = await testServer();
  t.teardown(() => app.close());
  const cp = managedCP();
  const existing = (apiVersion: string, kind: string, name: string, ready: boolean) => ({
    apiVersion, kind, metadata: { name, namespace: 'openstack', uid: `u-${name}` }, spec: { replicas: 1 }, status: { conditions: [readyCondition(ready)] },
  });
  const related = [clusterSecretStore(), existing('k8s.mariadb.com/v1alpha1', 'MariaDB', 'openstack-db', false), existing('memcached.c5c3.io/v1beta1', 'Memcached', 'openstack-memcached', true)];
  const waiting = await sync(app, cp, [], related);
  t.same(ids(waiting.children), [], 'no child for adopted infrastructure');
  t.match(conditionOf(waiting.status, 'InfrastructureReady'), { status: 'False', reason: 'WaitingForDatabase' });
  related[1]!.status.conditions = [readyCondition(true)];
  const ready = await sync(app, cp, [], related);
  t.match(conditionOf(ready.status, 'InfrastructureReady'), { status: 'True', reason: 'InfrastructureReady' });
  t.notOk(find(ready.children, 'MariaDB'));
});

t.test('Infrastructure: brownfield provisions nothing and is Ready', async (t) => {
  const { app } = await testServer();
  t.teardown(() => app.close());
  const res = await sync(app, brownfield());
  t.match(conditionOf(res.status, 'InfrastructureReady'), { status: 'True', reason: 'InfrastructureReady' });
  t.notOk(find(res.children, 'MariaDB'));
  t.notOk(find(res.children, 'Memcached'));
});

t.test('Infrastructure: a spec that bypassed admission fails with InvalidSpec naming the field', async (t) => {
  const { app } = await testServer();
  t.teardown(() => app.close());
  const cp = managedCP();
  cp.spec.infrastructure.database.host = 'db.example.com';
  const res = await sync(app, cp);
  t.match(conditionOf(res.status, 'InfrastructureReady'), { status: 'False', reason: 'InvalidSpec', message: /spec\.infrastructure\.database: exactly one of clusterRef or host/ });
  t.equal(res.resyncAfterSeconds, 15);
  t.same(res.children, []);
  const typed = managedCP();
  typed.spec.infrastructure.cache.replicas = 'three';
  const res2 = await sync(app, typed);
  t.match(conditionOf(res2.status, 'InfrastructureReady'), { reason: 'InvalidSpec', message: /spec\.infrastructure\.cache\.replicas: must be an integer/ });
});

for (const [stage, condition, esName, waitingReason, readyReason] of [
  ['DBCredentials', 'DBCredentialsReady', 'controlplane-keystone-keystone-db-credentials', 'WaitingForDBCredentialSecret', 'DBCredentialsReady'],
  ['AdminPassword', 'AdminPasswordReady', 'controlplane-keystone-keystone-admin-credentials', 'WaitingForAdminPasswordSecret', 'AdminPasswordReady'],
] as const) {
  t.test(`${stage}: SecretStoreNotReady, ${waitingReason}, ${readyReason}, brownfield`, async (t) => {
    const { app } = await testServer();
    t.teardown(() => app.close());
    const cp = managedCP();
    const before = stage === 'DBCredentials' ? [] : ['controlplane-keystone-keystone-db-credentials'];
    // Everything before this stage converged and Ready.
    const statusOf = (c: Obj) => (c.kind === 'ExternalSecret' && !before.includes(c.metadata.name) ? notReady() : allReady());
    const world = await converge(app, cp, [clusterSecretStore()], statusOf);
    t.match(conditionOf(world.response.status, condition), { status: 'False', reason: waitingReason, message: new RegExp(esName) });
    t.equal(world.response.resyncAfterSeconds, 10);
    const es = find(world.response.children, 'ExternalSecret', esName)!;
    t.same(es.spec.secretStoreRef, { kind: 'ClusterSecretStore', name: 'openbao-cluster-store' });
    t.equal(es.spec.refreshInterval, '1h');
    t.same(es.spec.target, { name: esName, creationPolicy: 'Owner' });
    t.same(
      es.spec.data,
      stage === 'DBCredentials'
        ? [
            { secretKey: 'username', remoteRef: { key: 'openstack/keystone/openstack/controlplane-keystone/db', property: 'username', conversionStrategy: 'Default', decodingStrategy: 'None', metadataPolicy: 'None' } },
            { secretKey: 'password', remoteRef: { key: 'openstack/keystone/openstack/controlplane-keystone/db', property: 'password', conversionStrategy: 'Default', decodingStrategy: 'None', metadataPolicy: 'None' } },
          ]
        : [{ secretKey: 'password', remoteRef: { key: 'bootstrap/openstack/controlplane-keystone-keystone/admin', property: 'password', conversionStrategy: 'Default', decodingStrategy: 'None', metadataPolicy: 'None' } }],
    );

    // The first managed stage meets the store outage; the stages after it keep their condition.
    const storeDown = await sync(app, world.parent, world.children, [clusterSecretStore(false)]);
    t.match(conditionOf(storeDown.status, 'DBCredentialsReady'), { status: 'False', reason: 'SecretStoreNotReady' });
    t.same(conditionOf(storeDown.status, condition), stage === 'DBCredentials' ? conditionOf(storeDown.status, 'DBCredentialsReady') : conditionOf(world.response.status, condition));
    t.same(ids(storeDown.children), ids(world.children), 'nothing dropped while the store is down');
    const storeGone = await sync(app, world.parent, world.children, []);
    t.match(conditionOf(storeGone.status, 'DBCredentialsReady'), { reason: 'SecretStoreNotReady' }, 'an absent store is not Ready');
    // The stage itself checks the store before projecting (its own row of the contract table, docs/architecture.md §7.3).
    const direct = stageOf[stage].run(stageInput(managedCP(), world.children, []));
    t.match(direct.condition, { status: 'False', reason: 'SecretStoreNotReady' });
    t.same(direct.children, [], 'nothing projected while the store is not Ready');

    const ready = world.children.map((c) => (c.metadata.name === esName ? { ...c, status: allReady() } : c));
    const res = await sync(app, world.parent, ready);
    t.match(conditionOf(res.status, condition), { status: 'True', reason: readyReason });

    const bf = await sync(app, brownfield());
    t.match(conditionOf(bf.status, condition), { status: 'True', reason: 'BrownfieldUserSuppliedCredential' });
    t.notOk(bf.children.some((c: Obj) => c.kind === 'ExternalSecret'), 'brownfield projects no ExternalSecret');
  });
}

t.test('Keystone: WaitingForKeystone, then KeystoneReady; the projection', async (t) => {
  const { app } = await testServer();
  t.teardown(() => app.close());
  const cp = managedCP();
  const world = await converge(app, cp, [clusterSecretStore()], (c) => (c.kind === 'Keystone' ? notReady() : allReady()));
  t.match(conditionOf(world.response.status, 'KeystoneReady'), { status: 'False', reason: 'WaitingForKeystone' });
  t.equal(world.response.resyncAfterSeconds, 15);
  const ks = find(world.response.children, 'Keystone')!;
  t.equal(ks.metadata.name, 'controlplane-keystone-keystone');
  t.same(ks.spec, {
    replicas: 3,
    image: { repository: 'ghcr.io/c5c3/keystone', tag: '2025.2' },
    database: { clusterRef: { name: 'openstack-db' }, database: 'keystone', secretRef: { name: 'controlplane-keystone-keystone-db-credentials', key: 'password' } },
    cache: { clusterRef: { name: 'openstack-memcached' }, backend: 'dogpile.cache.pymemcache', replicas: 3 },
    bootstrap: { adminPasswordSecretRef: { name: 'controlplane-keystone-keystone-admin-credentials', key: 'password' }, region: 'RegionOne' },
    policyOverrides: { rules: { 'identity:list_users': 'role:admin' } },
  });
  const ready = world.children.map((c) => (c.kind === 'Keystone' ? { ...c, status: allReady() } : c));
  const res = await sync(app, world.parent, ready);
  t.match(conditionOf(res.status, 'KeystoneReady'), { status: 'True', reason: 'KeystoneReady' });
  t.same(res.status.services, [{ name: 'keystone', ready: true, release: '2025.2' }]);
  t.match(conditionOf(res.status, 'KORCReady'), { reason: 'WaitingForAdminPassword' }, 'the chain moved on to the K-ORC stage');
  t.equal(res.resyncAfterSeconds, 10);
});

t.test('Keystone: image override, brownfield refs, policy merge, rotation, gateway, endpoint', async (t) => {
  const { app } = await testServer();
  t.teardown(() => app.close());
  const cp = brownfield();
  cp.spec.region = 'RegionTwo';
  cp.spec.global = { rules: { a: 'role:admin', b: 'role:reader' } };
  cp.spec.services.keystone = {
    replicas: 2,
    image: { repository: 'registry.example.com/keystone', tag: 'custom' },
    policyOverrides: { rules: { b: 'role:member' } },
    rotationInterval: '168h',
    gateway: { parentRef: { name: 'gw' }, hostname: 'keystone.example.com', path: '/' },
  };
  const world = await converge(app, cp);
  const ks = find(world.response.children, 'Keystone')!.spec;
  t.same(ks.image, { repository: 'registry.example.com/keystone', tag: 'custom' });
  t.same(ks.database, { host: 'db.example.com', port: 3306, database: 'keystone', secretRef: { name: 'keystone-db', key: 'password' } });
  t.same(ks.cache, { servers: ['mc-0.example.com:11211'], backend: 'dogpile.cache.pymemcache', replicas: 3 }, 'copied as admitted (replicas is a schema default)');
  t.same(ks.bootstrap, { adminPasswordSecretRef: { name: 'my-admin', key: 'pw' }, region: 'RegionTwo', publicEndpoint: 'https://keystone.example.com/v3' });
  t.same(ks.policyOverrides, { rules: { a: 'role:admin', b: 'role:member' } }, 'per-service wins');
  t.same(ks.fernet, { rotationSchedule: '0 0 * * 0' });
  t.same(ks.credentialKeys, { rotationSchedule: '0 0 * * 0' });
  t.same(ks.gateway, { parentRef: { name: 'gw' }, hostname: 'keystone.example.com', path: '/' });
  t.equal(ks.replicas, 2);

  cp.spec.services.keystone.publicEndpoint = 'https://keystone.example.com:8443/v3';
  cp.spec.services.keystone.rotationInterval = '48h';
  const again = await converge(app, cp);
  const ks2 = find(again.response.children, 'Keystone')!.spec;
  t.equal(ks2.bootstrap.publicEndpoint, 'https://keystone.example.com:8443/v3');
  t.same(ks2.fernet, { rotationSchedule: '0 0 * * *' }, 'whole days other than a week rotate daily');

  delete cp.spec.services.keystone.replicas;
  delete cp.spec.services.keystone.gateway;
  delete cp.spec.services.keystone.image;
  delete cp.spec.services.keystone.publicEndpoint;
  delete cp.spec.services.keystone.rotationInterval;
  delete cp.spec.services.keystone.policyOverrides;
  delete cp.spec.global;
  const bare = await converge(app, cp);
  const ks3 = find(bare.response.children, 'Keystone')!.spec;
  for (const field of ['replicas', 'gateway', 'fernet', 'credentialKeys', 'policyOverrides']) t.notOk(field in ks3, `${field} unset`);
  t.notOk('publicEndpoint' in ks3.bootstrap);
  t.same(ks3.image, { repository: 'ghcr.io/c5c3/keystone', tag: '2025.2' });
});

t.test('Keystone: InvalidRotationInterval stops the chain and keeps the Keystone child', async (t) => {
  const { app } = await testServer();
  t.teardown(() => app.close());
  const cp = managedCP();
  const world = await converge(app, cp);
  const bad = { ...world.parent, spec: { ...world.parent.spec, services: { keystone: { rotationInterval: '36h' } } } };
  const res = await sync(app, bad, world.children);
  t.match(conditionOf(res.status, 'KeystoneReady'), { status: 'False', reason: 'InvalidRotationInterval', message: /rotationInterval/ });
  t.equal(res.resyncAfterSeconds, 15);
  t.same(ids(res.children), ids(world.children), 'nothing dropped');
  const ks = world.children.find((c) => c.kind === 'Keystone')!;
  t.same(find(res.children, 'Keystone'), JSON.parse(ks.metadata.annotations['metacontroller.k8s.io/last-applied-configuration']), 'Keystone kept as last applied');
});

t.test('Keystone: WaitingForInfrastructure when InfrastructureReady is not True (the gate)', async (t) => {
  const result = keystoneStage.run(stageInput(managedCP(), [], [clusterSecretStore()]));
  t.match(result.condition, { status: 'False', reason: 'WaitingForInfrastructure' });
  t.same(result.outcome, { kind: 'waiting', requeueSeconds: 15 }, 'the infrastructure interval, as seed 000 sends it');
  t.same(result.children, [], 'no Keystone CR while infrastructure is not ready');
});
