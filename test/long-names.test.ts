// ControlPlane and SecretAggregate names of 64–253 characters: label values are derived to fit
// (prefix + hash; names of 63 or fewer unchanged), and a child whose name cannot fit is never
// emitted: the stage that would emit it reports InvalidSpec naming the child and the limit.
import t, { type Test } from 'tap';
import { labelValue } from '../src/k8s/labels.js';
import { post, testServer } from './support/server.js';
import { conditionOf, converge, managedCP, type World } from './support/sync.js';
import type { Obj } from './support/shared.js';

const LABEL_VALUE = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;
const name = (length: number, stem = 'cp') => `${stem}-${'x'.repeat(length - stem.length - 2)}0`;
const named = (n: string) => {
  const cp = managedCP();
  cp.metadata.name = n;
  return cp;
};

function checkEmitted(t: Test, world: World) {
  for (const response of world.history ?? [world.response]) {
    for (const child of response.children as Obj[]) {
      t.ok(child.metadata.name.length <= 253, `${child.kind} name fits`);
      for (const [key, value] of Object.entries(child.metadata.labels ?? {})) {
        t.ok((value as string).length <= 63 && LABEL_VALUE.test(value as string), `${child.kind} ${child.metadata.name.slice(0, 20)}… label ${key} is a valid label value`);
      }
    }
  }
}

t.test('labelValue: unchanged up to 63 characters, else a valid, deterministic prefix-hash', async (t) => {
  for (const n of ['a', 'controlplane-keystone', name(63)]) t.equal(labelValue(n), n, `${n.length} characters: unchanged`);
  for (const length of [64, 100, 253]) {
    const v = labelValue(name(length));
    t.ok(v.length <= 63 && LABEL_VALUE.test(v), `${length} characters: ${v}`);
    t.equal(labelValue(name(length)), v, 'deterministic');
    t.ok(v.startsWith('cp-xxx'), 'readable prefix');
  }
  t.not(labelValue(`${name(100)}a`), labelValue(`${name(100)}b`), 'names sharing the prefix get different values');
  t.ok(LABEL_VALUE.test(labelValue(`${'a'.repeat(52)}.-.${'b'.repeat(20)}`)), 'no separator before the hash is doubled or left dangling');
});

t.test('a ControlPlane name of 100 characters: valid labels, and KeystoneReady InvalidSpec naming the Service limit', async (t) => {
  const { app } = await testServer();
  t.teardown(() => app.close());
  const world = await converge(app, named(name(100)));
  checkEmitted(t, world);
  const status = world.response.status;
  t.match(conditionOf(status, 'InfrastructureReady'), { status: 'True' }, 'infrastructure progressed');
  t.match(conditionOf(status, 'DBCredentialsReady'), { status: 'True' }, 'credentials progressed');
  t.match(conditionOf(status, 'KeystoneReady'), { status: 'False', reason: 'InvalidSpec', message: /Keystone cp-x+0-keystone is served as Service .* at most 63 characters; shorten the ControlPlane name by at least 46 characters/ });
  t.notOk(world.response.children.some((c: Obj) => c.kind === 'Keystone'), 'the Keystone that cannot be served is not emitted');
  const labels = new Set(world.response.children.map((c: Obj) => c.metadata.labels['c5c3.io/controlplane']));
  t.same([...labels], [labelValue(name(100))], 'one label value, the derived one');
});

t.test('a ControlPlane name of 240 characters: DBCredentialsReady InvalidSpec naming the child, nothing dropped', async (t) => {
  const { app } = await testServer();
  t.teardown(() => app.close());
  const world = await converge(app, named(name(240)));
  checkEmitted(t, world);
  t.match(conditionOf(world.response.status, 'InfrastructureReady'), { status: 'True' });
  t.match(conditionOf(world.response.status, 'DBCredentialsReady'), { status: 'False', reason: 'InvalidSpec', message: /ExternalSecret cp-x+… would have a name of 264 characters, over the 253 .* at least 11 characters/ });
  t.same(world.response.children.map((c: Obj) => c.kind).sort(), ['MariaDB', 'Memcached'], 'only what can be created; the observed infrastructure kept');
});

t.test('a ControlPlane name of 54 characters (Keystone Service name of 63) converges', async (t) => {
  const { app } = await testServer();
  t.teardown(() => app.close());
  const world = await converge(app, named(name(54)));
  checkEmitted(t, world);
  t.match(conditionOf(world.response.status, 'Ready'), { status: 'True' });
  t.ok(world.response.children.every((c: Obj) => c.metadata.labels['c5c3.io/controlplane'] === name(54)), 'the name itself as the label value');
});

t.test('a SecretAggregate name of 200 characters: the target carries a valid label value', async (t) => {
  const { app } = await testServer();
  t.teardown(() => app.close());
  const ns = 'openstack';
  const sa = { apiVersion: 'c5c3.io/v1alpha1', kind: 'SecretAggregate', metadata: { name: name(200, 'agg'), namespace: ns, uid: 'u', generation: 1 }, spec: { sources: [{ secretRef: { name: 's' } }], target: { name: 't' } } };
  const source = { apiVersion: 'v1', kind: 'Secret', metadata: { name: 's', namespace: ns }, data: { a: 'MQ==' } };
  const res = await post(app, '/secretaggregate/sync', { controller: {}, parent: sa, children: { 'Secret.v1': {} }, related: { 'Secret.v1': { [`${ns}/s`]: source } } });
  t.equal(res.status, 200);
  t.match(res.json.status.conditions[0], { status: 'True', reason: 'Aggregated' });
  const value = res.json.children[0].metadata.labels['c5c3.io/secretaggregate'];
  t.ok(value.length <= 63 && LABEL_VALUE.test(value), value);
  t.equal(value, labelValue(sa.metadata.name));
});
