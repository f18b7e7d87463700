// Stage 6, AdminCredentialReady: every gate of the round trip (docs/architecture.md §3.5), the contract table's
// clouds.yaml rows, the semantic compare, the stuck escalation and the force-sync annotation.
import t from 'tap';
import { stringify } from 'yaml';
import { testServer, FIXED_NOW } from './support/server.js';
import { clusterSecretStore, healthy, orcStatus, readyCondition, secret, type StatusOf } from './support/world.js';
import { brownfieldCP, converge, conditionOf, managedCP, stageInput, step, sync, type World } from './support/sync.js';
import { appCredential, find, names, sha256, withChild } from './support/korc.js';
import { sourceDigest } from '../src/controlplane/eso-round-trip.js';
import type { KubeObject } from '../src/k8s/observed.js';
import { adminCredentialStage } from '../src/controlplane/stages/admin-credential.js';
import type { Obj } from './support/shared.js';

const N = names();
const notReady = (reason: string): Obj => ({ conditions: [readyCondition(false, reason)] });
const withRelated = (world: World, change: (r: Obj[]) => Obj[]) => change(world.related);
const materialised = (world: World, doc: string) =>
  withRelated(world, (r) => [...r.filter((x) => x.metadata.name !== 'k-orc-clouds-yaml'), secret('openstack', 'k-orc-clouds-yaml', { 'clouds.yaml': doc })]);

t.test('AdminCredentialReady when committed, mirrored and materialised; status.adminApplicationCredential', async (t) => {
  const { app } = await testServer();
  t.teardown(() => app.close());
  const world = await converge(app, managedCP());
  const ac = find(world.children, 'ApplicationCredential')!;
  t.match(conditionOf(world.response.status, 'AdminCredentialReady'), { status: 'True', reason: 'AdminCredentialReady', message: /materialised in Secret k-orc-clouds-yaml/ });
  t.same(world.response.status.adminApplicationCredential, { id: ac.status.id, restricted: true, lastRotation: '2026-11-21T12:00:00Z' });
  const push = find(world.response.children, 'PushSecret')!;
  t.same(push.spec, {
    deletionPolicy: 'None',
    secretStoreRefs: [{ kind: 'ClusterSecretStore', name: 'openbao-cluster-store' }],
    selector: { secret: { name: N.ac } },
    data: [{ conversionStrategy: 'None', match: { remoteRef: { remoteKey: 'openstack/keystone/openstack/controlplane-keystone/admin/app-credential' } } }],
  });
  const es = find(world.response.children, 'ExternalSecret', 'k-orc-clouds-yaml')!;
  t.same(es.spec.data, [{ secretKey: 'clouds.yaml', remoteRef: { key: 'openstack/keystone/openstack/controlplane-keystone/admin/app-credential', property: 'clouds.yaml', conversionStrategy: 'Default', decodingStrategy: 'None', metadataPolicy: 'None' } }]);
  t.same(es.spec.target, { name: 'k-orc-clouds-yaml', creationPolicy: 'Owner' });
  t.equal(es.metadata.annotations['external-secrets.io/force-sync'], sha256(appCredential(world.response.children)['clouds.yaml']!), 'force-sync = SHA-256 of the assembled clouds.yaml');
});

t.test('the gates in order: store, PushSecret, clouds.yaml ExternalSecret, materialised Secret', async (t) => {
  const { app } = await testServer();
  t.teardown(() => app.close());
  const world = await converge(app, managedCP());
  const cases: [string, Obj[], Obj[], string, RegExp][] = [
    ['PushSecret not Ready', withChild(world.children, 'PushSecret', (c) => ({ ...c, status: notReady('Errored') })), world.related, 'WaitingForPushSecret', /PushSecret controlplane-keystone-admin-app-credential-backup is not Ready yet \(Errored\)/],
    ['clouds.yaml ExternalSecret not Ready', withChild(world.children, 'ExternalSecret', (c) => ({ ...c, status: notReady('SecretSyncedError') }), 'k-orc-clouds-yaml'), world.related, 'WaitingForCloudsYaml', /ExternalSecret k-orc-clouds-yaml is not Ready yet/],
    ['materialised Secret absent', world.children, world.related.filter((r) => r.metadata.name !== 'k-orc-clouds-yaml'), 'WaitingForCloudsYamlSync', /Secret k-orc-clouds-yaml has no clouds.yaml yet/],
  ];
  for (const [name, children, related, reason, message] of cases) {
    const res = await sync(app, world.parent, children, related);
    t.match(conditionOf(res.status, 'AdminCredentialReady'), { status: 'False', reason, message }, name);
    t.equal(res.resyncAfterSeconds, 10, `${name}: 10s`);
    t.same(conditionOf(res.status, 'CatalogReady'), conditionOf(world.response.status, 'CatalogReady'), `${name}: catalog not reached`);
  }
});

t.test('SecretStoreNotReady after KORCReady (brownfield, where no earlier stage reads the store)', async (t) => {
  const { app } = await testServer();
  t.teardown(() => app.close());
  const cp = brownfieldCP();
  const world = await converge(app, cp);
  t.match(conditionOf(world.response.status, 'Ready'), { status: 'True' }, 'brownfield converges through the K-ORC chain');
  const res = await sync(app, world.parent, world.children, [clusterSecretStore(false), ...world.related.filter((r) => r.kind !== 'ClusterSecretStore')]);
  t.match(conditionOf(res.status, 'KORCReady'), { status: 'True' });
  t.match(conditionOf(res.status, 'AdminCredentialReady'), { status: 'False', reason: 'SecretStoreNotReady', message: /openbao-cluster-store/ });
});

t.test('WaitingForCloudsYamlSync (not WaitingForAppCredentialSecret) while the Secret is given the assembled clouds.yaml', async (t) => {
  const { app } = await testServer();
  t.teardown(() => app.close());
  const pendingAc: StatusOf = (c, g) => (c.kind === 'ApplicationCredential' ? orcStatus(g, { available: false }) : healthy(c, g));
  const world = await converge(app, managedCP(), [clusterSecretStore()], pendingAc);
  // K-ORC reports the mint: the observed Secret still holds the password cloud.
  const minted = withChild(world.children, 'ApplicationCredential', (c) => ({ ...c, status: healthy(c, c.metadata.generation) }));
  const res = await step(app, { ...world, children: minted });
  t.match(conditionOf(res.response.status, 'KORCReady'), { status: 'True' });
  t.match(conditionOf(res.response.status, 'AdminCredentialReady'), { status: 'False', reason: 'WaitingForCloudsYamlSync', message: /is being given the clouds.yaml of credential/ }, 'the Secret holds a value: this answer writes the document');
  const es = find(res.response.children, 'ExternalSecret', 'k-orc-clouds-yaml')!;
  const before = find(world.response.children, 'ExternalSecret', 'k-orc-clouds-yaml')!;
  t.same(es.metadata.annotations, before.metadata.annotations, 'force-sync not moved before the new document is in the Secret');
  const next = await step(app, res);
  const secretNow = find(res.children, 'Secret', N.ac)!;
  const push = find(next.response.children, 'PushSecret')!;
  t.equal(push.metadata.annotations['c5c3.io/source-sha256'], sourceDigest(secretNow as KubeObject), 'the PushSecret is asked to push the Secret as observed');
  t.not(push.metadata.annotations['c5c3.io/source-sha256'], find(world.response.children, 'PushSecret')!.metadata.annotations['c5c3.io/source-sha256'], 'a new digest: ESO pushes at once');
  t.same(find(next.response.children, 'ExternalSecret', 'k-orc-clouds-yaml')!.metadata.annotations, before.metadata.annotations, 'force-sync not moved before the push is proven');
  t.match(conditionOf(next.response.status, 'AdminCredentialReady'), { reason: 'WaitingForPushSecret', message: /is being asked to push the current content of Secret/ });

  // ESO's status from the previous push (Ready/Synced, syncedResourceVersion of the old metadata) proves nothing.
  const stalePush = withChild(next.children, 'PushSecret', (c) => ({ ...c, status: find(res.children, 'PushSecret')!.status }));
  const stale = await sync(app, next.parent, stalePush, next.related);
  t.same(find(stale.children, 'ExternalSecret', 'k-orc-clouds-yaml')!.metadata.annotations, before.metadata.annotations, 'Ready/Synced left from the previous push: no stamp');
  t.match(conditionOf(stale.status, 'AdminCredentialReady'), { reason: 'WaitingForPushSecret', message: /has not pushed the current content of Secret controlplane-keystone-admin-app-credential yet/ });

  const proven = await step(app, next);
  const stamped = find(proven.response.children, 'ExternalSecret', 'k-orc-clouds-yaml')!;
  t.equal(stamped.metadata.annotations['external-secrets.io/force-sync'], sha256(appCredential(proven.response.children)['clouds.yaml']!), 'stamped once the push of that document is proven');
});

t.test('the semantic compare: re-serialised but equal is accepted; stale waits; past 15 minutes is stuck', async (t) => {
  const { app } = await testServer();
  t.teardown(() => app.close());
  const world = await converge(app, managedCP());
  const ac = find(world.children, 'ApplicationCredential')!;
  const value = appCredential(world.response.children).value!;
  const auth = { application_credential_secret: value, application_credential_id: ac.status.id, auth_url: 'http://elsewhere/v3' };
  const reserialised = JSON.stringify({ clouds: { admin: { region_name: 'RegionOne', auth } } });
  const ok = await sync(app, world.parent, world.children, materialised(world, reserialised));
  t.match(conditionOf(ok.status, 'AdminCredentialReady'), { status: 'True' }, 'JSON, reordered keys, no trailing newline: the same credential');

  const stale = stringify({ clouds: { admin: { auth: { ...auth, application_credential_id: 'id-revoked' } } } });
  const waiting = await sync(app, world.parent, world.children, materialised(world, stale));
  t.match(conditionOf(waiting.status, 'AdminCredentialReady'), { status: 'False', reason: 'WaitingForCloudsYamlSync', message: /does not authenticate with credential/ });
  const otherCloud = stringify({ clouds: { other: { auth } } });
  t.match(conditionOf((await sync(app, world.parent, world.children, materialised(world, otherCloud))).status, 'AdminCredentialReady'), { reason: 'WaitingForCloudsYamlSync' }, 'a different cloud name does not count');
  const passwordCloud = appCredential(world.response.children, undefined)['clouds.yaml']!.replace(/application_credential_secret: .*/, 'password: x');
  t.match(conditionOf((await sync(app, world.parent, world.children, materialised(world, passwordCloud))).status, 'AdminCredentialReady'), { reason: 'WaitingForCloudsYamlSync' });

  const sixteenMinutesAgo = new Date(FIXED_NOW.getTime() - 16 * 60_000).toISOString().replace(/\.\d{3}Z$/, 'Z');
  const old = { ...world.parent, status: { ...world.parent.status, adminApplicationCredential: { id: ac.status.id, restricted: true, lastRotation: sixteenMinutesAgo } } };
  const stuck = await sync(app, old, world.children, materialised(world, stale));
  t.match(conditionOf(stuck.status, 'AdminCredentialReady'), { status: 'False', reason: 'CloudsYamlSyncStuck', message: /16 minutes after the credential changed/ });
  t.equal(stuck.resyncAfterSeconds, 10);
  const fifteen = new Date(FIXED_NOW.getTime() - 15 * 60_000).toISOString().replace(/\.\d{3}Z$/, 'Z');
  const edge = { ...old, status: { ...old.status, adminApplicationCredential: { id: ac.status.id, restricted: true, lastRotation: fifteen } } };
  t.match(conditionOf((await sync(app, edge, world.children, materialised(world, stale))).status, 'AdminCredentialReady'), { reason: 'WaitingForCloudsYamlSync' }, 'exactly 15 minutes is not stuck yet');
  const fine = await sync(app, old, world.children, world.related);
  t.match(conditionOf(fine.status, 'AdminCredentialReady'), { status: 'True' }, 'a matching Secret is Ready however old the rotation');

  const garbage = await sync(app, world.parent, world.children, materialised(world, 'clouds: [unclosed'));
  t.match(conditionOf(garbage.status, 'AdminCredentialReady'), { status: 'False', reason: 'WaitingForCloudsYamlSync', message: /not a clouds.yaml document/ }, 'garbage is a sync not done yet');
  t.equal(garbage.resyncAfterSeconds, 10);
  for (const doc of ['clouds: [unclosed', '- a list', '42']) {
    const stuck = await sync(app, old, world.children, materialised(world, doc));
    t.match(conditionOf(stuck.status, 'AdminCredentialReady'), { reason: 'CloudsYamlSyncStuck' }, `${JSON.stringify(doc)} escalates after 15 minutes like a stale one`);
  }
  t.notMatch(JSON.stringify(garbage.status), value, 'the credential never appears in a message');
});

t.test('force-sync is stable when nothing changed, and echoes an observed value until it may move', async (t) => {
  const { app } = await testServer();
  t.teardown(() => app.close());
  const world = await converge(app, managedCP());
  const again = await sync(app, world.parent, world.children, world.related);
  const annotation = (res: { children: Obj[] }) => find(res.children, 'ExternalSecret', 'k-orc-clouds-yaml')!.metadata.annotations?.['external-secrets.io/force-sync'];
  t.equal(annotation(again), annotation(world.response));
  const nudged = withChild(world.children, 'ExternalSecret', (c) => ({ ...c, metadata: { ...c.metadata, annotations: { ...c.metadata.annotations, 'external-secrets.io/force-sync': 'by-hand' } } }), 'k-orc-clouds-yaml');
  const pushDown = withChild(nudged, 'PushSecret', (c) => ({ ...c, status: notReady('Errored') }));
  t.equal(annotation(await sync(app, world.parent, pushDown, world.related)), 'by-hand', 'kept while the PushSecret is not Ready');
  t.equal(annotation(await sync(app, world.parent, nudged, world.related)), annotation(world.response), 'restamped once it is');
});

t.test('rows a full pass cannot reach: WaitingForKORC, WaitingForCredentialID, WaitingForAppCredentialSecret without value', async (t) => {
  const cp = managedCP();
  const gate = adminCredentialStage.run(stageInput(cp, [], [clusterSecretStore()]));
  t.match(gate.condition, { status: 'False', reason: 'WaitingForKORC' });
  t.same(gate.outcome, { kind: 'waiting', requeueSeconds: 10 });
  const korcTrue = new Map([['KORCReady', { type: 'KORCReady', status: 'True' as const, reason: 'x', message: '', lastTransitionTime: '' }]]);
  const ac = { apiVersion: 'openstack.k-orc.cloud/v1alpha1', kind: 'ApplicationCredential', metadata: { name: N.ac, namespace: 'openstack', generation: 1 }, spec: {}, status: orcStatus(1) };
  const noId = adminCredentialStage.run(stageInput(cp, [ac], [clusterSecretStore()], korcTrue));
  t.match(noId.condition, { reason: 'WaitingForCredentialID' });
  const withId = { ...ac, status: { ...ac.status, id: 'id-1' } };
  const noValue = adminCredentialStage.run(stageInput(cp, [withId, secret('openstack', N.ac, { 'clouds.yaml': 'x' })], [clusterSecretStore()], korcTrue));
  t.match(noValue.condition, { reason: 'WaitingForAppCredentialSecret', message: /holds no application-credential secret/ });
  t.same(noValue.children, [], 'the stage emits nothing itself');
});
