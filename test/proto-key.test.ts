// `__proto__` (and `constructor`) are valid Secret keys in Kubernetes. A related or source Secret
// carrying one must not make every call 400 for good: the parent progresses as without it, an
// owned Secret carrying one keeps it, the capture keeps it, and Object.prototype is never touched.
import t from 'tap';
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { post, testServer } from './support/server.js';
import { converge, managedCP } from './support/sync.js';
import { b64, syncRequest } from './support/world.js';
import { LAST_APPLIED_ANNOTATION as LAST_APPLIED } from '../src/k8s/observed.js';
import { Sanitizer } from '../src/capture/sanitize.js';
import { sourceDigest } from '../src/controlplane/eso-round-trip.js';
import type { Obj } from './support/shared.js';

/** `data` with own `__proto__` and `constructor` keys added (JSON.stringify writes them). */
const withOddKeys = (data: Obj = {}) => Object.fromEntries([...Object.entries(data), ['__proto__', b64('proto-value')], ['constructor', b64('ctor-value')]]);
const oddSecret = (o: Obj) => (o.kind === 'Secret' ? { ...o, data: withOddKeys(o.data) } : o);
const own = (o: unknown, key: string) => o !== null && typeof o === 'object' && Object.prototype.hasOwnProperty.call(o, key);

t.test('ControlPlane: related and owned Secrets with __proto__ keys: 200, same answer as without them', async (t) => {
  const { app } = await testServer();
  t.teardown(() => app.close());
  const world = await converge(app, managedCP());
  t.ok(world.related.some((r) => r.kind === 'Secret' && r.metadata.name.endsWith('-keystone-admin-credentials')), 'the admin-password Secret is related');
  const baseline = await post(app, '/controlplane/sync', syncRequest(world.parent, world.children, world.related));
  // The app-credential Secret is pushed whole to OpenBao: odd keys there are content to push (below).
  const pushed = (o: Obj) => o.kind === 'Secret' && o.metadata.name.endsWith('-admin-app-credential');
  const res = await post(app, '/controlplane/sync', syncRequest(world.parent, world.children.map((c) => (pushed(c) ? c : oddSecret(c))), world.related.map(oddSecret)));
  t.equal(res.status, 200, '200, not 400');
  t.same(res.json.status, baseline.json.status, 'the same status (Ready): the odd keys change nothing');
  t.equal(res.json.status.conditions.find((c: Obj) => c.type === 'Ready').status, 'True');
  t.equal(JSON.stringify(res.json.children), JSON.stringify(baseline.json.children), 'the same children');
  t.equal(({} as Obj).polluted, undefined);
  t.equal(Object.getPrototypeOf({}), Object.prototype);

  const odd = await post(app, '/controlplane/sync', syncRequest(world.parent, world.children.map(oddSecret), world.related.map(oddSecret)));
  t.equal(odd.status, 200, 'odd keys in the pushed Secret: 200');
  const source = world.children.find(pushed)!;
  const push = odd.json.children.find((c: Obj) => c.kind === 'PushSecret');
  t.equal(push.metadata.annotations['c5c3.io/source-sha256'], sourceDigest(oddSecret(source)), 'they are part of what ESO pushes: the PushSecret is asked to push them');
  t.not(sourceDigest(oddSecret(source)), sourceDigest(source));
  t.equal(({} as Obj).polluted, undefined);
});

t.test('SecretAggregate: a source with a __proto__ key is aggregated with it; a kept target keeps it; the capture keeps it', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'c5c3-proto-'));
  const { app } = await testServer({ capture: { dir, key: 'k' } });
  t.teardown(() => app.close());
  const ns = 'openstack';
  const sa = { apiVersion: 'c5c3.io/v1alpha1', kind: 'SecretAggregate', metadata: { name: 'agg', namespace: ns, uid: 'uid-agg', generation: 1 }, spec: { sources: [{ secretRef: { name: 'src' } }, { secretRef: { name: 'picked' }, keys: ['__proto__'] }], target: { name: 'out' } } };
  const source = (name: string, data: Obj) => ({ apiVersion: 'v1', kind: 'Secret', metadata: { name, namespace: ns }, type: 'Opaque', data });
  const src = source('src', Object.fromEntries([['a', b64('1')], ['constructor', b64('c')]]));
  const picked = source('picked', Object.fromEntries([['__proto__', b64('p')], ['other', b64('o')]]));
  const request = (children: Obj[], related: Obj[]) => ({ controller: {}, parent: sa, children: { 'Secret.v1': Object.fromEntries(children.map((c) => [`${ns}/${c.metadata.name}`, c])) }, related: { 'Secret.v1': Object.fromEntries(related.map((c) => [`${ns}/${c.metadata.name}`, c])) } });

  const res = await post(app, '/secretaggregate/sync', request([], [src, picked]));
  t.equal(res.status, 200, '200, not 400');
  const ready = res.json.status.conditions[0];
  t.match(ready, { status: 'True', reason: 'Aggregated' });
  const target = res.json.children[0];
  t.same(Object.keys(target.data), ['__proto__', 'a', 'constructor'], 'every key, __proto__ and constructor included');
  t.ok(own(target.data, '__proto__') && target.data.__proto__ === b64('p'), '__proto__ is a key of the target, with its value');

  // The target as applied; a source goes missing: the target is kept exactly, __proto__ and all.
  const applied = { ...target, metadata: { ...target.metadata, uid: 'uid-out', annotations: { [LAST_APPLIED]: JSON.stringify(target) } } };
  const waiting = await post(app, '/secretaggregate/sync', request([applied], [picked]));
  t.equal(waiting.status, 200);
  t.match(waiting.json.status.conditions[0], { reason: 'WaitingForSource' });
  t.ok(own(waiting.json.children[0].data, '__proto__'), 'the kept target still has its __proto__ key');
  t.equal(waiting.json.children[0].data.__proto__, b64('p'));

  await app.c5c3.capture!.flush();
  const files = readdirSync(dir).sort();
  t.equal(files.length, 2, 'both calls captured');
  const captured = JSON.parse(readFileSync(join(dir, files[0]!), 'utf8'));
  const capturedTarget = captured.response.children[0];
  t.ok(own(capturedTarget.data, '__proto__'), 'the capture keeps the key (value replaced by its placeholder)');
  t.not(capturedTarget.data.__proto__, b64('p'), 'the value itself is not in the capture');
  t.equal(({} as Obj).polluted, undefined);
});

t.test('the capture sanitiser keeps a __proto__ key anywhere (a ConfigMap data key, a status field)', async (t) => {
  const configMap = JSON.parse('{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c"},"data":{"__proto__":"x","constructor":"y"},"status":{"__proto__":{"deep":1}}}');
  const [out] = new Sanitizer('k').sanitize(configMap) as Obj[];
  t.ok(own(out!.data, '__proto__') && own(out!.data, 'constructor'), 'data keys kept');
  t.ok(own(out!.status, '__proto__'), 'an object-valued __proto__ key kept as a key');
  t.equal(Object.getPrototypeOf(out!.status), Object.prototype, 'never made a prototype');
  t.equal(JSON.stringify(out), JSON.stringify(configMap), 'nothing secret in it: unchanged');
});
