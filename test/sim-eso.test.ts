// The simulator's External Secrets Operator (src/sim/operators.ts) behaves as ESO's source does
// (../shared/reference/external-secrets-roundtrip.md §4.2): a PushSecret pushes on creation, on a
// change of its own metadata, or after refreshInterval, never because its source Secret changed;
// Ready is kept from the last push; an ExternalSecret refreshes on its own metadata change, its
// interval, or an edited target; both write refreshTime and syncedResourceVersion as ESO does.
// A model that pushes on every pass (as the stand-ins once did, hiding issue 30) fails here.
import t from 'tap';
import { Cluster } from '../src/sim/cluster.js';
import { b64, newWorld, runOperators, type World } from '../src/sim/operators.js';
import { esoDataHash, esoResourceVersion } from '../src/k8s/eso.js';

const NS = 'ns';
const T0 = Date.parse('2026-11-21T12:00:00Z');

function world(): { w: World; clock: { now: number } } {
  const clock = { now: T0 };
  const cluster = new Cluster(() => new Date(clock.now));
  cluster.create({ apiVersion: 'external-secrets.io/v1', kind: 'ClusterSecretStore', metadata: { name: 'store' }, spec: {} }, 'test');
  cluster.updateStatus({ apiVersion: 'external-secrets.io/v1', kind: 'ClusterSecretStore', name: 'store' }, { conditions: [{ type: 'Ready', status: 'True', reason: 'Valid', message: '' }] }, 'test');
  return { w: newWorld(cluster), clock };
}

const ref = (kind: string, name: string) => ({ apiVersion: kind === 'Secret' ? 'v1' : kind === 'PushSecret' ? 'external-secrets.io/v1alpha1' : 'external-secrets.io/v1', kind, namespace: NS, name });
const get = (w: World, kind: string, name: string) => w.cluster.get(ref(kind, name))!;

function source(w: World, values: Record<string, string>): void {
  const data = Object.fromEntries(Object.entries(values).map(([k, v]) => [k, b64(v)]));
  const existing = w.cluster.get(ref('Secret', 'src'));
  if (existing) w.cluster.update({ ...existing, data }, 'test');
  else w.cluster.create({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 'src', namespace: NS }, type: 'Opaque', data }, 'test');
}

function annotate(w: World, kind: string, name: string, annotations: Record<string, string>): void {
  const o = get(w, kind, name);
  w.cluster.update({ ...o, metadata: { ...o.metadata, annotations: { ...(o.metadata.annotations ?? {}), ...annotations } } }, 'test');
}

t.test('PushSecret: pushed on creation, not on a change of the source Secret; on its own metadata change, or after the interval', async (t) => {
  const { w, clock } = world();
  source(w, { value: 'v1' });
  w.cluster.create({ apiVersion: 'external-secrets.io/v1alpha1', kind: 'PushSecret', metadata: { name: 'p', namespace: NS }, spec: { secretStoreRefs: [{ kind: 'ClusterSecretStore', name: 'store' }], selector: { secret: { name: 'src' } }, data: [{ match: { remoteRef: { remoteKey: 'k' } } }] } }, 'test');
  runOperators(w);
  t.same(w.openbao.get('k'), { value: 'v1' }, 'pushed on creation');
  const pushed = get(w, 'PushSecret', 'p');
  t.match(pushed.status, { refreshTime: '2026-11-21T12:00:00Z', syncedResourceVersion: esoResourceVersion(pushed), syncedPushSecrets: { 'ClusterSecretStore/store': { k: {} } } });
  t.match(pushed.status.conditions, [{ type: 'Ready', status: 'True', reason: 'Synced', message: 'PushSecret synced successfully' }]);

  clock.now += 5_000;
  source(w, { value: 'v2' });
  runOperators(w);
  t.same(w.openbao.get('k'), { value: 'v1' }, 'the source changed: ESO does not watch it, nothing is pushed');
  t.same(get(w, 'PushSecret', 'p').status, pushed.status, 'Ready/Synced and every status field stay from the last push');

  clock.now += 5_000;
  annotate(w, 'PushSecret', 'p', { 'c5c3.io/source-sha256': 'x' });
  runOperators(w);
  t.same(w.openbao.get('k'), { value: 'v2' }, 'its own annotation changed: pushed at once, reading the Secret live');
  const after = get(w, 'PushSecret', 'p');
  t.equal(after.status.syncedResourceVersion, esoResourceVersion(after), 'syncedResourceVersion of the new metadata');
  t.equal(after.status.refreshTime, '2026-11-21T12:00:10Z');

  source(w, { value: 'v3' });
  clock.now = Date.parse(after.status.refreshTime) + 3600_000;
  runOperators(w);
  t.same(w.openbao.get('k'), { value: 'v2' }, 'exactly the interval: not yet');
  clock.now += 1_000;
  runOperators(w);
  t.same(w.openbao.get('k'), { value: 'v3' }, 'after refreshInterval (1h): pushed');

  w.cluster.delete(ref('Secret', 'src'), 'test');
  annotate(w, 'PushSecret', 'p', { 'c5c3.io/source-sha256': 'y' });
  const before = get(w, 'PushSecret', 'p').status;
  runOperators(w);
  const failed = get(w, 'PushSecret', 'p').status;
  t.match(failed.conditions, [{ status: 'False', reason: 'Errored', message: 'could not get source secret' }]);
  t.same([failed.refreshTime, failed.syncedResourceVersion], [before.refreshTime, before.syncedResourceVersion], 'a failure leaves refreshTime and syncedResourceVersion');
});

t.test('ExternalSecret: refreshed on its own metadata change, after its interval, or when the target was edited', async (t) => {
  const { w, clock } = world();
  w.openbao.set('k', { 'clouds.yaml': 'one' });
  w.cluster.create({ apiVersion: 'external-secrets.io/v1', kind: 'ExternalSecret', metadata: { name: 'e', namespace: NS, uid: 'uid-e' }, spec: { refreshInterval: '1h', secretStoreRef: { kind: 'ClusterSecretStore', name: 'store' }, target: { name: 'e', creationPolicy: 'Owner' }, data: [{ secretKey: 'clouds.yaml', remoteRef: { key: 'k', property: 'clouds.yaml' } }] } }, 'test');
  runOperators(w);
  const target = get(w, 'Secret', 'e');
  t.same(target.data, { 'clouds.yaml': b64('one') });
  t.equal(target.metadata.labels['reconcile.external-secrets.io/managed'], 'true');
  t.equal(target.metadata.annotations['reconcile.external-secrets.io/data-hash'], esoDataHash(target.data));
  const es = get(w, 'ExternalSecret', 'e');
  t.match(es.status, { refreshTime: '2026-11-21T12:00:00Z', syncedResourceVersion: esoResourceVersion(es), binding: { name: 'e' } });
  t.match(es.status.conditions, [{ type: 'Ready', status: 'True', reason: 'SecretSynced', message: 'secret synced' }]);

  clock.now += 5_000;
  w.openbao.set('k', { 'clouds.yaml': 'two' });
  runOperators(w);
  t.same(get(w, 'Secret', 'e').data, { 'clouds.yaml': b64('one') }, 'OpenBao changed: not read before a trigger');

  annotate(w, 'ExternalSecret', 'e', { 'external-secrets.io/force-sync': 'a' });
  runOperators(w);
  t.same(get(w, 'Secret', 'e').data, { 'clouds.yaml': b64('two') }, 'a new annotation value: refreshed at once');
  const refreshed = get(w, 'ExternalSecret', 'e');
  t.equal(refreshed.status.syncedResourceVersion, esoResourceVersion(refreshed), 'acknowledged: syncedResourceVersion of the new metadata');

  clock.now += 5_000;
  const rv = get(w, 'Secret', 'e').metadata.resourceVersion;
  annotate(w, 'ExternalSecret', 'e', { 'external-secrets.io/force-sync': 'b' });
  runOperators(w);
  t.equal(get(w, 'Secret', 'e').metadata.resourceVersion, rv, 'a refresh reading the same value does not write the target');
  t.equal(get(w, 'ExternalSecret', 'e').status.refreshTime, '2026-11-21T12:00:10Z', 'but moves refreshTime');

  const edited = get(w, 'Secret', 'e');
  w.cluster.update({ ...edited, data: { 'clouds.yaml': b64('by hand') } }, 'test');
  runOperators(w);
  t.same(get(w, 'Secret', 'e').data, { 'clouds.yaml': b64('two') }, 'an edited target (data-hash mismatch) is refreshed at once');

  w.openbao.set('k', {});
  annotate(w, 'ExternalSecret', 'e', { 'external-secrets.io/force-sync': 'c' });
  const before = get(w, 'ExternalSecret', 'e').status;
  runOperators(w);
  const failed = get(w, 'ExternalSecret', 'e').status;
  t.match(failed.conditions, [{ status: 'False', reason: 'SecretSyncedError' }]);
  t.same([failed.refreshTime, failed.syncedResourceVersion], [before.refreshTime, before.syncedResourceVersion], 'a failed refresh stays owed');
  w.openbao.set('k', { 'clouds.yaml': 'three' });
  clock.now += 1_000;
  runOperators(w);
  t.same(get(w, 'Secret', 'e').data, { 'clouds.yaml': b64('three') }, 'and is made on the next pass');

  clock.now = Date.parse(get(w, 'ExternalSecret', 'e').status.refreshTime) + 3600_000 + 1_000;
  w.openbao.set('k', { 'clouds.yaml': 'four' });
  runOperators(w);
  t.same(get(w, 'Secret', 'e').data, { 'clouds.yaml': b64('four') }, 'after refreshInterval: refreshed');
});
