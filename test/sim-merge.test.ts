// The simulator's model of Metacontroller's three-way merge (reference/metacontroller.md §4.1) and of
// the apply it is part of.
import t from 'tap';
import { merge, MergeError } from '../src/sim/merge.js';
import type { Obj } from '../src/sim/cluster.js';
import { applyChildren, CONTROLLER_UID, LAST_APPLIED } from '../src/sim/metacontroller.js';

t.test('a key last applied and no longer desired is removed; keys of other writers stay', async (t) => {
  const observed = { metadata: { labels: { a: '1', b: '2', other: 'x' } }, spec: { keep: 1, drop: 2, theirs: 3 } };
  const last = { metadata: { labels: { a: '1', b: '2' } }, spec: { keep: 1, drop: 2 } };
  const desired = { metadata: { labels: { a: '9' } }, spec: { keep: 5 } };
  t.same(merge(observed, last, desired), { metadata: { labels: { a: '9', other: 'x' } }, spec: { keep: 5, theirs: 3 } });
  t.same(observed.spec, { keep: 1, drop: 2, theirs: 3 }, 'inputs are not modified');
});

t.test('without last-applied nothing is removed', async (t) => {
  t.same(merge({ data: { x: 'a', y: 'b' } }, undefined, { data: { x: 'c' } }), { data: { x: 'c', y: 'b' } });
});

t.test('lists of objects sharing a conventional key merge item by item, in observed order', async (t) => {
  const observed = { ports: [{ name: 'b', port: 2, extra: true }, { name: 'theirs', port: 9 }, { name: 'a', port: 1 }] };
  const last = { ports: [{ name: 'a', port: 1 }, { name: 'b', port: 2 }] };
  const desired = { ports: [{ name: 'b', port: 3 }, { name: 'c', port: 4 }] };
  // `port` precedes `name` among the keys; every item has both, so `port` is the key here.
  t.same(merge(observed, last, desired).ports, [{ name: 'theirs', port: 9 }, { name: 'b', port: 3 }, { name: 'c', port: 4 }]);
  const named = merge({ env: [{ name: 'X', value: '1' }, { name: 'THEIRS', value: 't' }] }, { env: [{ name: 'X', value: '1' }] }, { env: [{ name: 'Y', value: '2' }] });
  t.same(named.env, [{ name: 'THEIRS', value: 't' }, { name: 'Y', value: '2' }]);
});

t.test('every other list is replaced whole', async (t) => {
  t.same(merge({ servers: ['a', 'b', 'c'] }, { servers: ['a', 'b'] }, { servers: ['z'] }).servers, ['z']);
  t.same(merge({ rules: [{ method: 'GET' }, { method: 'PUT' }] }, undefined, { rules: [{ method: 'POST' }] }).rules, [{ method: 'POST' }]);
});

t.test('an object replaced by a scalar is a merge error, as in Metacontroller', async (t) => {
  t.throws(() => merge({ spec: { a: 1 } }, undefined, { spec: 'x' } as never), MergeError);
});

// The CompositeController's apply of a sync answer's children (manageChildren), as a function: the
// one model the simulator and the HTTP-level tests' world (test/support/world.ts) both apply with.
const parent = { apiVersion: 'c5c3.io/v1alpha1', kind: 'ControlPlane', metadata: { name: 'cp', namespace: 'ns', uid: 'uid-cp' } };
const server = () => ({ now: () => new Date('2026-01-01T00:00:00Z'), uid: (o: Obj) => `uid-${o.kind}-${o.metadata.name}` });
const keystone = (spec: Obj, labels: Record<string, string> = {}) => ({ apiVersion: 'keystone.openstack.c5c3.io/v1alpha1', kind: 'Keystone', metadata: { name: 'keystone', labels }, spec });
const secret = (data: Record<string, string>) => ({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 's' }, type: 'Opaque', data });

t.test('a created child: namespace, controller-uid label, last-applied annotation, controller reference, server fields', async (t) => {
  const { desired, remaining } = applyChildren(parent, [], [keystone({ replicas: 1 }), secret({ k: 'dg==' })], server());
  const [ks, s] = desired as [Obj, Obj];
  t.equal(ks.metadata.namespace, 'ns');
  t.same(ks.metadata.labels, { [CONTROLLER_UID]: 'uid-cp' });
  t.same(JSON.parse(ks.metadata.annotations[LAST_APPLIED]), { ...keystone({ replicas: 1 }), metadata: { name: 'keystone', namespace: 'ns', labels: { [CONTROLLER_UID]: 'uid-cp' } } });
  t.same(ks.metadata.ownerReferences, [{ apiVersion: parent.apiVersion, kind: 'ControlPlane', name: 'cp', uid: 'uid-cp', controller: true, blockOwnerDeletion: true }]);
  t.equal(ks.metadata.uid, 'uid-Keystone-keystone', 'the uid from the cluster given');
  t.equal(ks.metadata.generation, 1);
  t.equal(s.metadata.generation, undefined, 'a Secret has no generation');
  t.same(remaining, []);
  t.equal(applyChildren(parent, [], [keystone({})], { now: () => new Date() }).desired[0]!.metadata.uid, 'uid-0001', 'by default uids count up');
});

t.test('an update merges with the last applied: generation moves with the spec only, others\' fields stay', async (t) => {
  const [first] = applyChildren(parent, [], [keystone({ replicas: 1, drop: true })], server()).desired as [Obj];
  const touched = { ...first, metadata: { ...first.metadata, labels: { ...first.metadata.labels, theirs: 'x' } }, spec: { ...first.spec, defaulted: 'd' }, status: { conditions: [] } };
  const relabelled = applyChildren(parent, [touched], [keystone({ replicas: 1, drop: true }, { ours: 'y' })], server()).desired[0]!;
  t.equal(relabelled.metadata.generation, 1, 'a label is no spec change');
  t.same(relabelled.metadata.labels, { theirs: 'x', ours: 'y', [CONTROLLER_UID]: 'uid-cp' });
  t.same(relabelled.status, { conditions: [] }, 'status is not Metacontroller\'s to change');
  const respecced = applyChildren(parent, [relabelled], [keystone({ replicas: 3 })], server()).desired[0]!;
  t.equal(respecced.metadata.generation, 2);
  t.same(respecced.spec, { replicas: 3, defaulted: 'd' }, 'a key no longer desired is removed, one written by others kept');
  t.ok(Number(respecced.metadata.resourceVersion) > Number(relabelled.metadata.resourceVersion), 'resourceVersion only grows');
  t.equal(respecced.metadata.uid, first.metadata.uid);
});

t.test('observed children not desired are deleted; Terminating ones are neither updated nor deleted again', async (t) => {
  const [ks, s] = applyChildren(parent, [], [keystone({ replicas: 1 }), secret({})], server()).desired as [Obj, Obj];
  const held = { ...ks, metadata: { ...ks.metadata, finalizers: ['x'] } };
  t.same(applyChildren(parent, [held, s], [], server()).remaining.map((o) => [o.kind, !!o.metadata.deletionTimestamp]), [['Keystone', true]], 'a finalizer holds it Terminating; the rest is gone');
  const terminating = { ...held, metadata: { ...held.metadata, deletionTimestamp: '2026-01-01T00:00:00Z' } };
  t.same(applyChildren(parent, [terminating], [keystone({ replicas: 5 })], server()).desired, [terminating], 'never updated while Terminating');
});
