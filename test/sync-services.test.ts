// Services beside Keystone (docs/architecture.md §2.13): Placement and Glance end to end in the
// sync, the managed message bus, the guarded removal, ServicesReady, and the teardown order.
import t from 'tap';
import { testServer, post } from './support/server.js';
import { clusterSecretStore, healthy, orcStatus, readyCondition, secret, syncRequest, type StatusOf } from './support/world.js';
import { sync, converge, step, managedCP, conditionOf, ids } from './support/sync.js';
import { fixtureControlPlane, type Obj } from './support/shared.js';
import { sourceDigest } from '../src/controlplane/eso-round-trip.js';

const servicesCP = () => fixtureControlPlane('controlplane-services.yaml');
const find = (children: Obj[], kind: string, name: string) => children.find((c) => c.kind === kind && c.metadata.name === name);

t.test('a ControlPlane declaring no service: only the added conditions, no service child', async (t) => {
  const { app } = await testServer();
  t.teardown(() => app.close());
  const world = await converge(app, managedCP());
  const status = world.response.status;
  t.match(conditionOf(status, 'PlacementReady'), { status: 'True', reason: 'PlacementNotManaged' });
  t.match(conditionOf(status, 'GlanceReady'), { status: 'True', reason: 'GlanceNotManaged' });
  t.match(conditionOf(status, 'ServicesReady'), { status: 'True', reason: 'ServicesReady', message: 'No service beside Keystone is declared' });
  t.match(conditionOf(status, 'Ready'), { status: 'True', reason: 'AllReady' });
  t.same(status.services, [{ name: 'keystone', ready: true, release: '2025.2' }]);
  t.notOk(world.children.some((c) => ['RabbitmqCluster', 'Placement', 'Glance', 'RoleAssignment', 'Project', 'Role'].includes(c.kind)));
  // From the very first answer (the stages are not reached yet) the not-declared conditions are there.
  const first = world.history![0]!.status;
  t.match(conditionOf(first, 'PlacementReady'), { status: 'True', reason: 'PlacementNotManaged' });
  t.match(conditionOf(first, 'ServicesReady'), { status: 'True' });
});

t.test('Placement, Glance and a managed bus converge to Ready', async (t) => {
  const { app } = await testServer();
  t.teardown(() => app.close());
  const world = await converge(app, servicesCP(), undefined, undefined, undefined, [], 30);
  const { children } = world;
  const status = world.response.status;
  for (const type of ['InfrastructureReady', 'PlacementReady', 'GlanceReady', 'ServicesReady', 'Ready']) t.match(conditionOf(status, type), { status: 'True' }, type);
  t.match(conditionOf(status, 'PlacementReady'), { reason: 'PlacementReady' });
  t.same(status.services, [
    { name: 'keystone', ready: true, release: '2025.2' },
    { name: 'glance', ready: true, release: '2025.2' },
    { name: 'placement', ready: true, release: '2025.2' },
  ]);
  t.equal(world.response.resyncAfterSeconds, undefined, 'converged: no resync');
  const cp = 'controlplane-services';
  t.match(find(children, 'RabbitmqCluster', `${cp}-rabbitmq`), { spec: { replicas: 3 } });
  for (const id of [
    `ExternalSecret/${cp}-placement-db-credentials`, `Secret/${cp}-placement-service-user`, `PushSecret/${cp}-placement-service-user-backup`,
    `User/${cp}-user-placement`, `RoleAssignment/${cp}-placement-role-assignment`, `Service/${cp}-placement-service`,
    `Endpoint/${cp}-placement-region-ep-public`, `Endpoint/${cp}-placement-region-ep-internal`, `Region/${cp}-placement-region`, `Region/${cp}-region`, `Placement/${cp}-placement`,
    `Project/${cp}-project-service`, `Role/${cp}-role-service`, `Glance/${cp}-glance`, `GlanceBackend/${cp}-glance-s3`,
  ]) t.ok(ids(children).includes(id), id);

  const placement = find(children, 'Placement', `${cp}-placement`)!;
  t.match(placement.spec, {
    openStackRelease: '2025.2',
    image: { repository: 'ghcr.io/c5c3/placement', tag: '2025.2' },
    deployment: { replicas: 2 },
    database: { clusterRef: { name: 'openstack-db' }, database: 'placement', secretRef: { name: `${cp}-placement-db-credentials`, key: 'password' } },
    cache: { clusterRef: { name: 'openstack-memcached' }, backend: 'dogpile.cache.pymemcache' },
    keystoneEndpoint: `http://${cp}-keystone.openstack.svc:5000/v3`,
    region: 'RegionOne',
    serviceUser: { username: 'placement', projectName: 'service', secretRef: { name: `${cp}-placement-service-user`, key: 'password' } },
  });
  t.same(placement.spec.policyOverrides, { rules: { 'identity:list_users': 'role:admin', 'placement:resource_providers:list': 'role:reader' } }, 'global rules merged under the service\'s own');
  t.match(find(children, 'ExternalSecret', `${cp}-placement-db-credentials`)!.spec.data, [
    { secretKey: 'username', remoteRef: { key: `openstack/placement/openstack/${cp}/db`, property: 'username' } },
    { secretKey: 'password', remoteRef: { key: `openstack/placement/openstack/${cp}/db`, property: 'password' } },
  ]);
  t.equal(find(children, 'Endpoint', `${cp}-placement-region-ep-internal`)!.spec.resource.url, `http://${cp}-placement.openstack.svc:8778`);
  t.equal(find(children, 'Endpoint', `${cp}-placement-region-ep-public`)!.spec.resource.url, `http://${cp}-placement.openstack.svc:8778`, 'no publicEndpoint, no gateway: the internal URL');
  t.equal(find(children, 'Endpoint', `${cp}-glance-region-ep-public`)!.spec.resource.url, 'https://images.example.com', 'the gateway hostname');
  t.equal(find(children, 'Endpoint', `${cp}-glance-region-ep-internal`)!.spec.resource.url, `http://${cp}-glance.openstack.svc:9292`);
  t.match(find(children, 'Service', `${cp}-glance-service`)!.spec.resource, { name: 'glance', type: 'image' });
  t.match(find(children, 'GlanceBackend', `${cp}-glance-s3`)!.spec, { glanceRef: { name: `${cp}-glance` }, type: 'S3', isDefault: true, s3: { bucket: 'glance-images', host: 'https://s3.example.com', region: 'eu-1', credentialsSecretRef: { name: 'glance-s3-credentials' } } });
  t.match(find(children, 'RoleAssignment', `${cp}-placement-role-assignment`)!.spec.resource, { roleRef: `${cp}-role-service`, userRef: `${cp}-user-placement`, projectRef: `${cp}-project-service` });
  t.match(find(children, 'User', `${cp}-user-placement`)!.spec, { managementPolicy: 'managed', resource: { name: 'placement', passwordRef: `${cp}-placement-service-user` } });

  // The password: generated once, kept; its backup PushSecret carries the observed Secret's digest.
  const pw = find(children, 'Secret', `${cp}-placement-service-user`)!;
  const again = await step(app, world);
  t.same(find(again.response.children, 'Secret', `${cp}-placement-service-user`)!.data, pw.data, 'the password is not re-generated');
  t.equal(find(children, 'PushSecret', `${cp}-placement-service-user-backup`)!.metadata.annotations['c5c3.io/source-sha256'], sourceDigest(pw));
  const password = Buffer.from(pw.data.password, 'base64').toString();
  t.notOk(JSON.stringify(world.response.status).includes(password), 'the password is nowhere in status');
  t.same(again.response, world.response, 'a converged answer is a fixed point');
});

t.test('the shared service project and role are managed and detached: created or adopted, never deleted', async (t) => {
  // keystone-manage bootstrap makes no `service` project (e2e scenario 21, real Keystone): an
  // import of it would wait forever.
  const { app } = await testServer();
  t.teardown(() => app.close());
  const world = await converge(app, servicesCP(), undefined, undefined, undefined, [], 30);
  const cp = 'controlplane-services';
  const keep = { managementPolicy: 'managed', managedOptions: { onDelete: 'detach' }, cloudCredentialsRef: { cloudName: 'admin', secretName: 'k-orc-clouds-yaml' } };
  const project = find(world.children, 'Project', `${cp}-project-service`)!;
  const role = find(world.children, 'Role', `${cp}-role-service`)!;
  t.match(project.spec, { ...keep, resource: { name: 'service', domainRef: `${cp}-domain-default`, enabled: true } });
  t.match(role.spec, { ...keep, resource: { name: 'service' } });
  t.notOk(project.spec.import ?? role.spec.import, 'nothing imported');
});

t.test('the service CR waits for the account; gates block creation, never existence', async (t) => {
  const { app } = await testServer();
  t.teardown(() => app.close());
  const userDown: StatusOf = (c, g) => (c.kind === 'User' && c.metadata.name.endsWith('-user-placement') ? orcStatus(g, { available: false }) : healthy(c, g));
  const world = await converge(app, servicesCP(), undefined, userDown, undefined, [], 30);
  t.notOk(find(world.children, 'Placement', 'controlplane-services-placement'), 'no Placement CR without the account');
  t.match(conditionOf(world.response.status, 'PlacementReady'), { status: 'False', reason: 'WaitingForServiceAccount' });
  t.match(conditionOf(world.response.status, 'GlanceReady'), { status: 'True' }, 'a sibling is not held by Placement');
  t.match(conditionOf(world.response.status, 'ServicesReady'), { status: 'False', reason: 'ServicesNotReady', message: /PlacementReady/ });
  t.match(conditionOf(world.response.status, 'Ready'), { status: 'False' });
  t.equal(world.response.resyncAfterSeconds, 10);

  const healthyWorld = await converge(app, servicesCP(), undefined, undefined, undefined, [], 30);
  // Once it exists, a lost account keeps the CR (it is emitted, not dropped).
  const regressed = healthyWorld.children.map((c) => (c.kind === 'User' && c.metadata.name.endsWith('-user-placement') ? { ...c, status: orcStatus(1, { available: false }) } : c));
  const res = await sync(app, healthyWorld.parent, regressed, healthyWorld.related);
  t.ok(find(res.children, 'Placement', 'controlplane-services-placement'), 'the CR stays');
  t.match(conditionOf(res.status, 'PlacementReady'), { status: 'False', reason: 'WaitingForServiceAccount' });
});

t.test('removing a declared service keeps its children until the allow annotation, then K-ORC first', async (t) => {
  const { app } = await testServer();
  t.teardown(() => app.close());
  const world = await converge(app, servicesCP(), undefined, undefined, undefined, [], 30);
  const removed = structuredClone(world.parent);
  delete removed.spec.services.placement;
  removed.metadata.generation = 2;
  const blocked = await sync(app, removed, world.children, world.related);
  t.same(ids(blocked.children), ids(world.children), 'every observed child kept');
  t.match(conditionOf(blocked.status, 'PlacementReady'), { status: 'False', reason: 'ServiceDeletionBlocked', message: /c5c3\.io\/allow-placement-deletion/ });
  t.match(conditionOf(blocked.status, 'ServicesReady'), { status: 'True', message: /glance/ }, 'ServicesReady is over the declared services');
  t.match(conditionOf(blocked.status, 'Ready'), { status: 'False' });

  removed.metadata.annotations = { 'c5c3.io/allow-placement-deletion': 'true' };
  const first = await sync(app, removed, world.children, world.related);
  const gone1 = ids(world.children).filter((id) => !ids(first.children).includes(id));
  t.same(gone1.sort(), [
    'Endpoint/controlplane-services-placement-region-ep-internal', 'Endpoint/controlplane-services-placement-region-ep-public',
    'RoleAssignment/controlplane-services-placement-role-assignment', 'Service/controlplane-services-placement-service', 'User/controlplane-services-user-placement',
  ], 'the K-ORC objects go first');
  t.match(conditionOf(first.status, 'PlacementReady'), { status: 'False', reason: 'ServiceDeleting' });
  t.ok(ids(first.children).includes('Region/controlplane-services-placement-region'), 'the Region import stays while an Endpoint naming it is observed');
  const afterEndpoints = world.children.filter((c) => ids(first.children).includes(`${c.kind}/${c.metadata.name}`));
  const regionPass = await sync(app, removed, afterEndpoints, world.related);
  t.same(ids(afterEndpoints).filter((id) => !ids(regionPass.children).includes(id)), ['Region/controlplane-services-placement-region'], 'then the Region import, before the rest');
  const remaining = afterEndpoints.filter((c) => ids(regionPass.children).includes(`${c.kind}/${c.metadata.name}`));
  const second = await sync(app, removed, remaining, world.related);
  const gone2 = ids(remaining).filter((id) => !ids(second.children).includes(id));
  t.same(gone2.sort(), ['ExternalSecret/controlplane-services-placement-db-credentials', 'Placement/controlplane-services-placement', 'PushSecret/controlplane-services-placement-service-user-backup', 'Secret/controlplane-services-placement-service-user']);
  t.ok(ids(second.children).includes('Project/controlplane-services-project-service'), 'the shared imports stay (Glance uses them)');
  const rest = remaining.filter((c) => ids(second.children).includes(`${c.kind}/${c.metadata.name}`));
  const third = await sync(app, removed, rest, world.related);
  t.match(conditionOf(third.status, 'PlacementReady'), { status: 'True', reason: 'PlacementNotManaged' });
});

t.test('messaging: an unowned RabbitmqCluster is adopted; a brownfield bus needs its transport_url', async (t) => {
  const { app } = await testServer();
  t.teardown(() => app.close());
  const cp = servicesCP();
  const unowned = { apiVersion: 'rabbitmq.com/v1beta1', kind: 'RabbitmqCluster', metadata: { name: 'controlplane-services-rabbitmq', namespace: 'openstack', uid: 'u', generation: 1 }, spec: { replicas: 5 }, status: { observedGeneration: 1, conditions: [{ ...readyCondition(true), type: 'AllReplicasReady' }] } };
  const adopted = await sync(app, cp, [], [clusterSecretStore(), unowned]);
  t.notOk(adopted.children.some((c) => c.kind === 'RabbitmqCluster'), 'never emitted (creating it would fail)');
  const notReady = await sync(app, cp, [], [clusterSecretStore(), { ...unowned, status: { conditions: [{ ...readyCondition(false), type: 'AllReplicasReady' }] } }]);
  t.match(conditionOf(notReady.status, 'InfrastructureReady'), { status: 'False', message: /RabbitmqCluster controlplane-services-rabbitmq/ });

  const brown = servicesCP();
  brown.spec.infrastructure.messaging = { secretRef: { name: 'bus' } };
  const without = await converge(app, brown, [clusterSecretStore()], undefined, undefined, [], 30);
  t.match(conditionOf(without.response.status, 'InfrastructureReady'), { status: 'False', reason: 'WaitingForMessaging', message: 'Messaging Secret bus does not exist' });
  t.notOk(without.children.some((c) => c.kind === 'RabbitmqCluster'));
  const withBus = await converge(app, brown, [clusterSecretStore(), secret('openstack', 'bus', { transport_url: 'rabbit://u:p@h:5672/' })], undefined, undefined, [], 30);
  t.match(conditionOf(withBus.response.status, 'InfrastructureReady'), { status: 'True' });
  t.notOk(JSON.stringify(withBus.response).includes('rabbit://'), 'the bus URL is never repeated');

  const both = servicesCP();
  both.spec.infrastructure.messaging = { replicas: 3, secretRef: { name: 'bus' } };
  const invalid = await sync(app, both, [], [clusterSecretStore()]);
  t.match(conditionOf(invalid.status, 'InfrastructureReady'), { status: 'False', reason: 'InvalidSpec', message: /exactly one of replicas/ });
});

t.test('Glance: exactly one default backend, else InvalidSpec (a spec that bypassed the CRD)', async (t) => {
  const { app } = await testServer();
  t.teardown(() => app.close());
  const healthyWorld = await converge(app, servicesCP(), undefined, undefined, undefined, [], 30);
  const bad = structuredClone(healthyWorld.parent);
  bad.spec.services.glance.backends.push({ name: 'second', type: 'S3', isDefault: true, s3: { bucket: 'b', endpoint: 'https://s', credentialsSecretRef: { name: 'c' } } });
  bad.metadata.generation = 2;
  const res = await sync(app, bad, healthyWorld.children, healthyWorld.related);
  t.match(conditionOf(res.status, 'GlanceReady'), { status: 'False', reason: 'InvalidSpec', message: /exactly one backend/ });
  t.same(ids(res.children), ids(healthyWorld.children), 'nothing observed is dropped');
  t.match(conditionOf(res.status, 'PlacementReady'), { status: 'True' });
});

t.test('finalize: service accounts and catalog while Keystone lives, then the service CRs, then release', async (t) => {
  const { app } = await testServer();
  t.teardown(() => app.close());
  const world = await converge(app, servicesCP(), undefined, undefined, undefined, [], 30);
  const parent = { ...world.parent, metadata: { ...world.parent.metadata, deletionTimestamp: '2026-11-21T12:00:00Z' } };
  let children = world.children;
  const order: string[][] = [];
  for (let i = 0; i < 10; i++) {
    const res = await post(app, '/controlplane/finalize', syncRequest(parent, children, world.related, true));
    const body = res.json as Obj;
    const gone = ids(children).filter((id) => !ids(body.children).includes(id));
    if (gone.length > 0) order.push(gone);
    if (body.finalized) break;
    children = children.filter((c) => ids(body.children).includes(`${c.kind}/${c.metadata.name}`));
  }
  const kindsOf = (list: string[]) => [...new Set(list.map((id) => id.split('/')[0]))].sort();
  t.same(order.map(kindsOf), [
    ['Endpoint', 'RoleAssignment', 'Service'],
    ['Project', 'Region', 'Role', 'User'],
    ['ApplicationCredential'],
    ['Domain', 'User'],
    ['Placement'],
    ['Glance', 'GlanceBackend'],
  ], 'the service CRs one service at a time, in reverse SERVICES order');
  t.ok(order[1]!.filter((id) => id.startsWith('User/')).every((id) => id.includes('-user-placement') || id.includes('-user-glance')), 'the managed service users, project and role before the admin AC');
});

t.test('a release rollout moves the services at UpdatingServices and waits for them to be Ready', async (t) => {
  const { app } = await testServer();
  t.teardown(() => app.close());
  const world = await converge(app, servicesCP(), undefined, undefined, undefined, [], 30);
  const upgraded = structuredClone(world.parent);
  upgraded.spec.openStackRelease = '2026.1';
  upgraded.metadata.generation = 2;
  let w = { ...world, parent: upgraded };
  const seen: [string, string][] = [];
  for (let i = 0; i < 30; i++) {
    w = await step(app, w);
    const placement = find(w.response.children, 'Placement', 'controlplane-services-placement')!;
    seen.push([w.response.status.updatePhase, placement.spec.openStackRelease]);
    if (w.response.status.lastUpdate?.result === 'Complete' && w.response.status.updatePhase === 'Idle') break;
  }
  const phases = [...new Set(seen.map(([p]) => p))];
  t.same(phases, ['Validating', 'UpdatingInfra', 'UpdatingKeystone', 'UpdatingServices', 'Verifying', 'Complete', 'Idle']);
  // Placement follows Glance (SERVICES order): during UpdatingServices it moves once Glance is Ready, and never goes back.
  for (const [i, [phase, release]] of seen.entries()) {
    if (phase === 'UpdatingServices') {
      if (seen[i - 1]?.[1] === '2026.1') t.equal(release, '2026.1', 'UpdatingServices: Placement never goes back');
      continue;
    }
    const want = ['Validating', 'UpdatingInfra', 'UpdatingKeystone'].includes(phase) ? '2025.2' : '2026.1';
    t.equal(release, want, `${phase}: Placement projects ${want}`);
  }
  t.ok(seen.some(([phase, release]) => phase === 'UpdatingServices' && release === '2025.2'), 'Placement waits for Glance at first');
  t.match(find(w.response.children, 'Placement', 'controlplane-services-placement')!.spec.image, { tag: '2026.1' });
  t.match(w.response.status.lastUpdate, { result: 'Complete' });
  t.match(conditionOf(w.response.status, 'Ready'), { status: 'True' });
});

t.test('customize relates the RabbitmqCluster to adopt, or the brownfield bus Secret; nothing new without messaging', async (t) => {
  const { app } = await testServer();
  t.teardown(() => app.close());
  const rules = async (parent: Obj) => ((await post(app, '/controlplane/customize', { controller: {}, parent })).json as Obj).relatedResources as Obj[];
  const managed = await rules(servicesCP());
  t.match(managed.find((r) => r.resource === 'rabbitmqclusters'), { apiVersion: 'rabbitmq.com/v1beta1', namespace: 'openstack', names: ['controlplane-services-rabbitmq'] });
  const brown = servicesCP();
  brown.spec.infrastructure.messaging = { secretRef: { name: 'bus' } };
  const brownRules = await rules(brown);
  t.notOk(brownRules.some((r) => r.resource === 'rabbitmqclusters'));
  t.ok(brownRules.find((r) => r.resource === 'secrets')!.names.includes('bus'));
  const plain = await rules(managedCP());
  t.notOk(plain.some((r) => r.resource === 'rabbitmqclusters'));
  t.notOk(plain.find((r) => r.resource === 'secrets')!.names.includes('bus'));
});

t.test('a schema error under services.<svc> (admission bypassed) fails that service only', async (t) => {
  const { app } = await testServer();
  t.teardown(() => app.close());
  const world = await converge(app, servicesCP(), undefined, undefined, undefined, [], 30);
  const bad = structuredClone(world.parent);
  bad.spec.services.placement.replicas = 0;
  bad.metadata.generation = 2;
  const res = await sync(app, bad, world.children, world.related);
  t.match(conditionOf(res.status, 'PlacementReady'), { status: 'False', reason: 'InvalidSpec', message: /spec\.services\.placement\.replicas/ });
  t.match(conditionOf(res.status, 'KeystoneReady'), { status: 'True' }, 'Keystone is not failed for it');
  t.match(conditionOf(res.status, 'GlanceReady'), { status: 'True' });
  t.same(ids(res.children), ids(world.children), 'nothing observed is dropped');
});

t.test('a Glance backend removed from the spec is released; the others are kept', async (t) => {
  const { app } = await testServer();
  t.teardown(() => app.close());
  const two = servicesCP();
  two.spec.services.glance.backends.push({ name: 'archive', type: 'S3', s3: { bucket: 'archive', endpoint: 'https://s3.example.com', credentialsSecretRef: { name: 'glance-s3-credentials' } } });
  const world = await converge(app, two, undefined, undefined, undefined, [], 30);
  t.ok(find(world.children, 'GlanceBackend', 'controlplane-services-glance-archive'));
  t.match(find(world.children, 'GlanceBackend', 'controlplane-services-glance-archive')!.spec, { isDefault: false });
  const one = structuredClone(world.parent);
  one.spec.services.glance.backends = one.spec.services.glance.backends.filter((b: Obj) => b.name !== 'archive');
  one.metadata.generation = 2;
  const res = await sync(app, one, world.children, world.related);
  t.same(ids(world.children).filter((id) => !ids(res.children).includes(id)), ['GlanceBackend/controlplane-services-glance-archive']);
});

t.test('finalize: the service accounts, the detached service project and role and the Regions go before the admin credential', async (t) => {
  // They authenticate with the admin credential; with a dead Keystone nothing is detached (K-ORC
  // releases nothing without it).
  const { app } = await testServer();
  t.teardown(() => app.close());
  const world = await converge(app, servicesCP(), undefined, undefined, undefined, [], 30);
  const parent = { ...world.parent, metadata: { ...world.parent.metadata, deletionTimestamp: '2026-11-21T12:00:00Z' } };
  const answer = async (children: Obj[]) => (await post(app, '/controlplane/finalize', syncRequest(parent, children, world.related, true))).json as Obj;
  const dead = await answer(world.children.filter((c) => c.kind !== 'Keystone'));
  t.notOk((dead.children as Obj[]).some((c) => c.spec?.managedOptions?.onDelete === 'detach' && !['Project', 'Role', 'Region'].includes(c.kind)), 'a dead Keystone: nothing detached');
  t.equal(dead.finalized, false);
  // Group 0 gone: the next answer leaves out the managed Users, Project and Role, and keeps the AC.
  const group0 = new Set(['Endpoint', 'Service', 'RoleAssignment']);
  const next = await answer(world.children.filter((c) => !group0.has(c.kind)));
  const left = ids(world.children.filter((c) => !group0.has(c.kind))).filter((id) => !ids(next.children as Obj[]).includes(id));
  t.same(left.sort(), [
    'Project/controlplane-services-project-service',
    'Region/controlplane-services-glance-region',
    'Region/controlplane-services-placement-region',
    'Region/controlplane-services-region',
    'Role/controlplane-services-role-service',
    'User/controlplane-services-user-glance',
    'User/controlplane-services-user-placement',
  ]);
  t.ok(find(next.children as Obj[], 'ApplicationCredential', 'controlplane-services-admin-app-credential'), 'the admin credential waits for them');
});

t.test('children the API server keeps refusing: the service reports its kind\'s error reason', async (t) => {
  const { app } = await testServer();
  t.teardown(() => app.close());
  const world = await converge(app, servicesCP(), undefined, undefined, undefined, [], 30);
  const gen = world.parent.metadata.generation ?? 1;
  for (const [kind, name, reason, type] of [
    ['Placement', 'controlplane-services-placement', 'PlacementError', 'PlacementReady'],
    ['GlanceBackend', 'controlplane-services-glance-s3', 'GlanceBackendError', 'GlanceReady'],
    ['User', 'controlplane-services-user-placement', 'ServiceAccountError', 'PlacementReady'],
    ['RabbitmqCluster', 'controlplane-services-rabbitmq', 'MessagingError', 'InfrastructureReady'],
  ] as const) {
    const children = world.children.map((c) => (c.kind === kind && c.metadata.name === name ? { ...c, spec: {} } : c));
    const live = children.find((c) => c.kind === kind && c.metadata.name === name)!;
    const parent = { ...world.parent, status: { ...world.parent.status, unappliedChildren: [{ apiVersion: live.apiVersion, kind, name, since: '2026-11-21T11:50:00Z', generation: gen }] } };
    const res = await sync(app, parent, children, world.related);
    t.match(conditionOf(res.status, type), { status: 'False', reason }, `${kind}: ${reason}`);
  }
});
