// The simulator's model of Metacontroller's three-way merge (reference/metacontroller.md §4.1).
import t from 'tap';
import { merge, MergeError } from '../src/sim/merge.js';

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
