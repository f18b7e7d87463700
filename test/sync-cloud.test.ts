// The compute cloud (issue 39, docs/architecture.md §2.13): what Nova, Neutron and Cinder add to the
// shared leg (test/services-shared.test.ts): the bus URL, the OVN reference, Neutron's notifier
// account for Nova, Nova's two databases and generated metadata secret, Cinder's backends and
// Glance endpoint, the admission rules and their run-time checks, and UpdatingServices in order.
import t from 'tap';
import { controlPlaneCRD } from '../src/crd/generate.js';
import { transportUrl } from '../src/controlplane/services/messaging.js';
import { testServer, post } from './support/server.js';
import { admission } from './support/crd.js';
import { clusterSecretStore, platformObjects, secret, healthy, type StatusOf } from './support/world.js';
import { sync, converge, step, conditionOf, ids } from './support/sync.js';
import { fixtureControlPlane, type Obj } from './support/shared.js';

const cloud = () => fixtureControlPlane('controlplane-cloud.yaml');
const CP = 'controlplane-cloud';
const find = (children: Obj[], kind: string, name: string) => children.find((c) => c.kind === kind && c.metadata.name === name);
const unb64 = (s: string) => Buffer.from(s, 'base64').toString('utf8');
const admitCP = admission(controlPlaneCRD().spec.versions[0]!.schema.openAPIV3Schema as Obj);

t.test('the whole cloud converges: six services Ready, OVN serving, the projections', async (t) => {
  const { app } = await testServer();
  t.teardown(() => app.close());
  const world = await converge(app, cloud(), undefined, undefined, undefined, [], 40);
  const status = world.response.status;
  for (const type of ['GlanceReady', 'PlacementReady', 'OVNReady', 'NeutronReady', 'CinderReady', 'NovaReady', 'ServicesReady', 'Ready']) t.match(conditionOf(status, type), { status: 'True' }, type);
  t.same(status.conditions.map((c: Obj) => c.type).slice(7), ['GlanceReady', 'PlacementReady', 'OVNReady', 'NeutronReady', 'CinderReady', 'NovaReady', 'ServicesReady', 'Ready'], 'upstream order, OVN before Neutron');
  t.same(status.services.map((s: Obj) => s.name), ['keystone', 'glance', 'placement', 'neutron', 'cinder', 'nova']);
  const { children } = world;
  const nova = find(children, 'Nova', `${CP}-nova`)!.spec;
  t.match(nova, {
    apiDatabase: { database: 'nova_api', secretRef: { name: `${CP}-nova-api-db-credentials`, key: 'password' } },
    database: { database: 'nova', secretRef: { name: `${CP}-nova-db-credentials`, key: 'password' } },
    messaging: { secretRef: { name: `${CP}-nova-messaging`, key: 'transport_url' } },
    metadata: { deployment: { replicas: 1 }, sharedSecretRef: { name: `${CP}-nova-metadata-secret`, key: 'shared_secret' } },
    api: { deployment: { replicas: 3 } },
    scheduler: { deployment: { replicas: 2 } },
    conductor: { deployment: { replicas: 2 } },
    endpoints: { cinder: { enabled: true } },
    serviceUser: { username: 'nova', secretRef: { name: `${CP}-nova-service-user` } },
  });
  t.notOk('deployment' in nova, 'Nova has no single replica count');
  t.same(nova.policyOverrides, { rules: { admin_required: 'role:admin', 'compute:create': 'role:member' } });
  t.match(find(children, 'ExternalSecret', `${CP}-nova-api-db-credentials`)!.spec.data[0].remoteRef, { key: `openstack/nova/openstack/${CP}/api-db` });
  const metadata = find(children, 'Secret', `${CP}-nova-metadata-secret`)!;
  t.equal(unb64(metadata.data.shared_secret).length, 43, '32 random bytes, base64url');
  const again = await step(app, world);
  t.same(find(again.response.children, 'Secret', `${CP}-nova-metadata-secret`)!.data, metadata.data, 'generated once, then kept');

  const neutron = find(children, 'Neutron', `${CP}-neutron`)!.spec;
  t.same(neutron.ovn, { centralRef: { name: 'openstack-ovn', namespace: 'openstack' } });
  t.match(neutron.nova, { region: 'RegionOne', serviceUser: { username: 'neutron-nova', secretRef: { name: `${CP}-neutron-nova-service-user` } } });
  for (const role of ['service', 'admin']) t.match(find(children, 'RoleAssignment', `${CP}-neutron-nova-role-assignment${role === 'service' ? '' : '-admin'}`)!.spec.resource, { roleRef: `${CP}-role-${role}`, userRef: `${CP}-user-neutron-nova` });
  t.match(find(children, 'PushSecret', `${CP}-neutron-nova-service-user-backup`)!.spec.data[0].match.remoteRef, { remoteKey: `openstack/neutron/openstack/${CP}/nova-service-user` });
  t.match(find(children, 'Role', `${CP}-role-admin`)!.spec, { managementPolicy: 'managed', managedOptions: { onDelete: 'detach' }, resource: { name: 'admin' } });

  const cinder = find(children, 'Cinder', `${CP}-cinder`)!.spec;
  t.match(cinder, { glanceEndpoint: `http://${CP}-glance.openstack.svc:9292`, api: { deployment: { replicas: 2 } }, scheduler: { deployment: { replicas: 1 } }, volume: { deployment: { replicas: 1 } } });
  t.same(find(children, 'CinderBackend', 'nfs-1')!.spec, { cinderRef: { name: `${CP}-cinder` }, type: 'NFS', nfs: { server: 'nfs.example.com', path: '/exports/cinder' } });
  t.equal(find(children, 'Endpoint', `${CP}-cinder-region-ep-internal`)!.spec.resource.url, `http://${CP}-cinder.openstack.svc:8776/v3`);
  t.equal(find(children, 'Endpoint', `${CP}-nova-region-ep-internal`)!.spec.resource.url, `http://${CP}-nova.openstack.svc:8774/v2.1`);
  t.equal(find(children, 'Service', `${CP}-cinder-service`)!.spec.resource.type, 'block-storage');

  const url = unb64(find(children, 'Secret', `${CP}-nova-messaging`)!.data.transport_url);
  t.equal(url, `rabbit://rabbit-default-user:rabbit-Passw0rd%2Fx@${CP}-rabbitmq.openstack.svc:5672/`, 'built from the default user, credentials percent-encoded, the root vhost');
  t.notOk(JSON.stringify(world.response.status).includes('rabbit-Passw0rd'), 'the bus password is nowhere in status');
});

t.test('the bus URL: built from the default user or copied from a brownfield Secret; an incomplete or odd Secret is named, never quoted', async (t) => {
  const cp = { name: 'c', namespace: 'ns', uid: 'u', generation: 1 };
  const index = (objects: Obj[]) => ({ get: (_k: unknown, ns: string, name: string) => objects.find((o) => o.metadata.namespace === ns && o.metadata.name === name) });
  const managed = { infrastructure: { messaging: { replicas: 3 } } };
  const read = (spec: Obj, related: Obj[]) => transportUrl({ cp, spec, related: index(related) } as never);
  t.match(read(managed, []), { ok: false, invalid: false, message: /c-rabbitmq-default-user .*does not exist/ });
  t.match(read(managed, [secret('ns', 'c-rabbitmq-default-user', { username: 'u', password: 'p' })]), { ok: false, invalid: false, message: 'Secret c-rabbitmq-default-user has no host, port' });
  t.match(read(managed, [secret('ns', 'c-rabbitmq-default-user', { username: 'u@x', password: 'p:w/d', host: 'fd00::1', port: '5671' })]), { ok: true, url: 'rabbit://u%40x:p%3Aw%2Fd@[fd00::1]:5671/' });
  const badPort = read(managed, [secret('ns', 'c-rabbitmq-default-user', { username: 'u', password: 'secret-pw', host: 'h', port: 'x' })]);
  t.match(badPort, { ok: false, invalid: true });
  const brown = { infrastructure: { messaging: { secretRef: { name: 'bus' } } } };
  t.match(read(brown, [secret('ns', 'bus', { transport_url: 'rabbit://a:b@h:5672/vhost?x=1' })]), { ok: true, url: 'rabbit://a:b@h:5672/vhost?x=1' }, 'copied as it is');
  const amqp = read(brown, [secret('ns', 'bus', { transport_url: 'amqp://a:supersecret@h:5672/' })]);
  t.match(amqp, { ok: false, invalid: true, message: 'Secret bus key transport_url does not hold a rabbit:// URL' });
  t.notOk(JSON.stringify(amqp).includes('supersecret'));
  t.match(read(brown, [secret('ns', 'bus', { other: 'x' })]), { ok: false, invalid: false, message: 'Secret bus has no key transport_url' });
});

t.test('a service on the bus waits for the bus credentials, and says which Secret lacks what', async (t) => {
  const { app } = await testServer();
  t.teardown(() => app.close());
  const parent = cloud();
  const incomplete = secret('openstack', `${CP}-rabbitmq-default-user`, { username: 'u' });
  const ovn = platformObjects(parent).filter((o) => o.kind === 'OVNCentral');
  const world = await converge(app, parent, [clusterSecretStore(), incomplete, ...ovn], undefined, undefined, [], 40);
  for (const type of ['NeutronReady', 'CinderReady', 'NovaReady']) {
    t.match(conditionOf(world.response.status, type), { status: 'False', reason: 'WaitingForMessagingCredentials', message: /Secret controlplane-cloud-rabbitmq-default-user has no password, host, port/ }, type);
  }
  t.notOk(world.children.some((c) => ['Neutron', 'Cinder', 'Nova'].includes(c.kind)), 'no CR without the bus URL');
  t.notOk(world.children.some((c) => c.metadata.name.endsWith('-messaging')), 'no bus URL Secret');
  t.match(conditionOf(world.response.status, 'GlanceReady'), { status: 'True' }, 'the services off the bus go on');
  const brown = cloud();
  brown.spec.infrastructure.messaging = { secretRef: { name: 'bus' } };
  const odd = await converge(app, brown, [clusterSecretStore(), secret('openstack', 'bus', { transport_url: 'amqp://u:p@h/' }), ...ovn], undefined, undefined, [], 40);
  t.match(conditionOf(odd.response.status, 'CinderReady'), { status: 'False', reason: 'ServiceMessagingError', message: /does not hold a rabbit:\/\/ URL/ });
});

t.test('Neutron waits for the OVNCentral it names, and says why; the OVNCentral is never a child', async (t) => {
  const { app } = await testServer();
  t.teardown(() => app.close());
  const parent = cloud();
  const noOvn = platformObjects(parent).filter((o) => o.kind !== 'OVNCentral');
  const world = await converge(app, parent, [clusterSecretStore(), ...noOvn], undefined, undefined, [], 40);
  t.match(conditionOf(world.response.status, 'OVNReady'), { status: 'False', reason: 'OVNCentralNotFound', message: /OVNCentral openstack\/openstack-ovn does not exist/ });
  t.match(conditionOf(world.response.status, 'NeutronReady'), { status: 'False', reason: 'WaitingForOVN', message: /OVNReady is not True/ });
  t.notOk(find(world.children, 'Neutron', `${CP}-neutron`), 'no Neutron CR');
  t.match(conditionOf(world.response.status, 'NovaReady'), { status: 'True' }, 'Nova needs Neutron declared, not Ready');
  const central = platformObjects(parent).find((o) => o.kind === 'OVNCentral')!;
  const incomplete = { ...central, status: { ...central.status, clientSecretName: undefined } };
  const pending = await converge(app, parent, [clusterSecretStore(), ...noOvn, incomplete], undefined, undefined, [], 40);
  t.match(conditionOf(pending.response.status, 'OVNReady'), { status: 'False', reason: 'OVNEndpointsPending', message: /status\.clientSecretName is empty/ });
  const notReady = { ...central, status: { ...central.status, conditions: [{ type: 'Ready', status: 'False', reason: 'NotAllReady', message: 'northd down', observedGeneration: 1, lastTransitionTime: '2026-11-21T12:00:00Z' }] } };
  const waiting = await converge(app, parent, [clusterSecretStore(), ...noOvn, notReady], undefined, undefined, [], 40);
  t.match(conditionOf(waiting.response.status, 'OVNReady'), { status: 'False', reason: 'WaitingForOVNCentral', message: /northd down/ });
  const ok = await converge(app, parent, undefined, undefined, undefined, [], 40);
  t.notOk(ok.response.children.some((c: Obj) => c.kind === 'OVNCentral'));
  const rules = ((await post(app, '/controlplane/customize', { controller: {}, parent })).json as Obj).relatedResources as Obj[];
  t.match(rules.find((r) => r.resource === 'ovncentrals'), { apiVersion: 'ovn.openstack.c5c3.io/v1alpha1', namespace: 'openstack', names: ['openstack-ovn'] });
  t.ok(rules.find((r) => r.resource === 'secrets')!.names.includes(`${CP}-rabbitmq-default-user`), 'the default-user Secret is related');
});

t.test('admission refuses a service without what it needs; a spec that bypassed it is InvalidSpec, nothing dropped', async (t) => {
  const { app } = await testServer();
  t.teardown(() => app.close());
  const object = (spec: Obj) => ({ apiVersion: 'c5c3.io/v1alpha1', kind: 'ControlPlane', metadata: { name: CP, namespace: 'openstack' }, spec });
  t.same(admitCP(object(cloud().spec)).errors, [], 'the example is admitted');
  const noPlacement = cloud().spec;
  delete noPlacement.services.placement;
  t.match(admitCP(object(noPlacement)).errors.join(), /services\.placement is required when services\.nova is set/);
  const noBus = cloud().spec;
  delete noBus.infrastructure.messaging;
  const errors = admitCP(object(noBus)).errors.join();
  for (const svc of ['neutron', 'cinder', 'nova']) t.match(errors, new RegExp(`infrastructure\\.messaging is required when services\\.${svc} is set`));
  // (Two backends with one name: the API server refuses duplicate keys of a list-map, x-kubernetes-list-map-keys name.)
  const long = cloud().spec;
  long.services.cinder.backends[0].name = 'a-backend-name-that-is-long';
  t.match(admitCP(object(long)).errors.join(), /at most 47 characters/);

  // Bypassed: every problem named on the service's condition, nothing observed dropped.
  const world = await converge(app, cloud(), undefined, undefined, undefined, [], 40);
  const bad = structuredClone(world.parent);
  delete bad.spec.services.placement;
  delete bad.spec.services.glance;
  bad.metadata.generation = 2;
  const res = await sync(app, bad, world.children, world.related);
  t.match(conditionOf(res.status, 'NovaReady'), { status: 'False', reason: 'InvalidSpec', message: /spec\.services\.placement: must be declared when spec\.services\.nova is.*spec\.services\.glance: must be declared/ });
  t.same(ids(res.children), ids(world.children), 'nothing observed is dropped');
  const dup = structuredClone(world.parent);
  dup.spec.services.cinder.backends.push({ ...dup.spec.services.cinder.backends[0] });
  dup.metadata.generation = 2;
  const res2 = await sync(app, dup, world.children, world.related);
  t.match(conditionOf(res2.status, 'CinderReady'), { status: 'False', reason: 'InvalidSpec', message: /backend names must be unique/ });
  t.same(ids(res2.children), ids(world.children));
});

t.test("Neutron's notifier account lives while Nova does; removing Nova releases it after the Neutron CR no longer names it", async (t) => {
  const { app } = await testServer();
  t.teardown(() => app.close());
  const world = await converge(app, cloud(), undefined, undefined, undefined, [], 40);
  const removed = structuredClone(world.parent);
  delete removed.spec.services.nova;
  removed.metadata.generation = 2;
  const blocked = await sync(app, removed, world.children, world.related);
  t.match(find(blocked.children, 'Neutron', `${CP}-neutron`)!.spec.nova, { serviceUser: { username: 'neutron-nova' } }, 'Nova still runs (removal blocked): the notifier stays');
  removed.metadata.annotations = { 'c5c3.io/allow-nova-deletion': 'true' };
  let w = { ...world, parent: removed };
  const notifier = (children: Obj[]) => children.filter((c) => c.metadata.name.includes('neutron-nova')).map((c) => `${c.kind}/${c.metadata.name}`).sort();
  const seen: string[][] = [];
  for (let i = 0; i < 20 && notifier(w.children).length > 0; i++) {
    w = await step(app, w);
    seen.push(notifier(w.children));
  }
  t.same(notifier(w.children), [], 'the notifier account is gone');
  t.notOk(find(w.children, 'Nova', `${CP}-nova`), 'Nova is gone');
  t.notOk('nova' in find(w.children, 'Neutron', `${CP}-neutron`)!.spec, 'the Neutron CR no longer notifies Nova');
  const orcFirst = seen.find((s) => s.length < notifier(world.children).length);
  t.ok(orcFirst?.every((id) => !id.startsWith('User/') && !id.startsWith('RoleAssignment/')), `K-ORC objects first: ${orcFirst?.join(', ')}`);
  t.match(conditionOf(w.response.status, 'NeutronReady'), { status: 'True' });
});

t.test('UpdatingServices moves one service at a time, in upstream order; a service never goes back', async (t) => {
  const { app } = await testServer();
  t.teardown(() => app.close());
  const world = await converge(app, cloud(), undefined, undefined, undefined, [], 40);
  const upgraded = structuredClone(world.parent);
  upgraded.spec.openStackRelease = '2026.1';
  upgraded.metadata.generation = 2;
  // Placement never gets Ready on the new release: the services after it stay where they are.
  const stuck: StatusOf = (c, g) => (c.kind === 'Placement' && c.spec.openStackRelease === '2026.1' ? { conditions: [{ type: 'Ready', status: 'False', reason: 'Upgrading', message: 'x', observedGeneration: g, lastTransitionTime: '2026-11-21T12:00:00Z' }] } : healthy(c, g));
  let w = { ...world, parent: upgraded };
  for (let i = 0; i < 12; i++) w = await step(app, w, stuck);
  t.equal(w.response.status.updatePhase, 'UpdatingServices');
  const release = (kind: string) => w.response.children.find((c: Obj) => c.kind === kind)?.spec.openStackRelease;
  t.same(['Glance', 'Placement', 'Neutron', 'Cinder', 'Nova'].map(release), ['2026.1', '2026.1', '2025.2', '2025.2', '2025.2'], 'Glance and Placement moved, the rest wait for Placement');
  t.match(conditionOf(w.response.status, 'PlacementReady'), { status: 'False' });
  for (let i = 0; i < 20 && w.response.status.updatePhase !== 'Idle'; i++) w = await step(app, w);
  t.same(['Glance', 'Placement', 'Neutron', 'Cinder', 'Nova'].map(release), ['2026.1', '2026.1', '2026.1', '2026.1', '2026.1']);
  t.match(w.response.status.lastUpdate, { result: 'Complete' });
});

t.test("a CredentialRotation may name every service user of the cloud, Neutron's notifier included (while Nova is declared)", async (t) => {
  const { app } = await testServer();
  t.teardown(() => app.close());
  const parent: Obj = { ...cloud(), metadata: { ...cloud().metadata, uid: 'uid-cp' } };
  const call = async (user: string, cp: Obj) => {
    const object = { apiVersion: 'c5c3.io/v1alpha1', kind: 'CredentialRotation', metadata: { name: 'r', namespace: 'openstack', uid: 'uid-r', generation: 1 }, spec: { target: 'serviceUserPassword', targetServiceUser: user, reMint: true } };
    const related = { 'ControlPlane.c5c3.io/v1alpha1': { [`openstack/${CP}`]: cp } };
    const answer = (await post(app, '/credentialrotation/sync', { controller: {}, object, related, attachments: {} })).json as { status: Obj };
    return (answer.status.conditions as Obj[]).find((c) => c.type === 'Ready')!;
  };
  for (const svc of ['glance', 'placement', 'neutron', 'neutron-nova', 'cinder', 'nova']) {
    t.match(await call(`${CP}-user-${svc}`, parent), { reason: 'WaitingForServiceUser' }, `${svc}: a service user (waiting for its User)`);
  }
  const withoutNova = structuredClone(parent);
  delete withoutNova.spec.services.nova;
  t.match(await call(`${CP}-user-neutron-nova`, withoutNova), { status: 'False', reason: 'UnsupportedTarget' }, 'no notifier without Nova');
});
