// The parsed last-applied annotations (k8s/observed.ts): an object's annotation is parsed once for
// all its reads, shared and frozen; what the text is checked against (the observed object's
// identity) is checked on every read.
import t from 'tap';
import { keepAsIs, lastApplied, LAST_APPLIED_ANNOTATION, type KubeObject } from '../src/k8s/observed.js';

const applied = { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'kept', namespace: 'ns', labels: { a: 'b' } }, data: { k: 'dmFsdWU=' } };
const observed = (name: string, text: string): KubeObject => ({
  apiVersion: 'v1',
  kind: 'Secret',
  metadata: { name, namespace: 'ns', uid: `uid-${name}`, annotations: { [LAST_APPLIED_ANNOTATION]: text } },
  data: { k: 'b3RoZXI=' },
});

t.test('an object read again reads the same frozen object', async (t) => {
  const text = JSON.stringify(applied);
  const object = observed('kept', text);
  const first = lastApplied(object);
  t.same(first, applied, 'the annotation as applied');
  t.equal(lastApplied(object), first, 'one parse for every read of the object');
  t.ok(Object.isFrozen(first) && Object.isFrozen(first?.metadata) && Object.isFrozen(first?.metadata.labels), 'frozen through');
  t.throws(() => {
    (first as unknown as { data: Record<string, string> }).data.k = 'x';
  }, TypeError, 'a stage that tried to change a shared reading would fail loudly, not corrupt the next answer');
  t.same(keepAsIs(observed('kept', text)), applied, 'keepAsIs answers it');
});

t.test('a text is checked against the object it is read from', async (t) => {
  const text = JSON.stringify(applied);
  t.ok(lastApplied(observed('kept', text)), 'read for its own object');
  t.equal(lastApplied(observed('other', text)), undefined, "another object's annotation text does not stand for this one");
  const kept = keepAsIs(observed('other', text));
  t.equal(kept.metadata.name, 'other', 'keepAsIs falls back to the observed content');
  t.same(kept.data, { k: 'b3RoZXI=' });
});

t.test('an unreadable or too deep annotation reads as unreadable, and never throws', async (t) => {
  const deep = `${'['.repeat(600)}${']'.repeat(600)}`;
  for (const text of ['{not json', deep, '"a string"', '[]']) {
    t.equal(lastApplied(observed('kept', text)), undefined, `${text.slice(0, 12)}…: unreadable`);
    t.equal(lastApplied(observed('kept', text)), undefined, 'again');
  }
});
