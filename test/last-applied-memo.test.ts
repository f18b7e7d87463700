// The parsed last-applied annotations are remembered by their text (k8s/observed.ts): the same
// text reads the same object, shared and frozen; what the text is checked against (the observed
// object's identity) is checked on every call, never remembered.
import t from 'tap';
import { keepAsIs, lastApplied, LAST_APPLIED_ANNOTATION, type KubeObject } from '../src/k8s/observed.js';

const applied = { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'kept', namespace: 'ns', labels: { a: 'b' } }, data: { k: 'dmFsdWU=' } };
const observed = (name: string, text: string): KubeObject => ({
  apiVersion: 'v1',
  kind: 'Secret',
  metadata: { name, namespace: 'ns', uid: `uid-${name}`, annotations: { [LAST_APPLIED_ANNOTATION]: text } },
  data: { k: 'b3RoZXI=' },
});

t.test('the same annotation text reads the same frozen object, call after call', async (t) => {
  const text = JSON.stringify(applied);
  const first = lastApplied(observed('kept', text));
  const second = lastApplied(observed('kept', `${text}`));
  t.same(first, applied, 'the annotation as applied');
  t.equal(second, first, 'remembered: one object for one text');
  t.ok(Object.isFrozen(first) && Object.isFrozen(first?.metadata) && Object.isFrozen(first?.metadata.labels), 'frozen through');
  t.throws(() => {
    (first as unknown as { data: Record<string, string> }).data.k = 'x';
  }, TypeError, 'a stage that tried to change a shared reading would fail loudly, not corrupt the next answer');
  t.same(keepAsIs(observed('kept', text)), applied, 'keepAsIs answers it');
});

t.test('a remembered text is still checked against the object it is read from', async (t) => {
  const text = JSON.stringify(applied);
  t.ok(lastApplied(observed('kept', text)), 'read (and remembered) for its own object');
  t.equal(lastApplied(observed('other', text)), undefined, "another object's annotation text does not stand for this one");
  const kept = keepAsIs(observed('other', text));
  t.equal(kept.metadata.name, 'other', 'keepAsIs falls back to the observed content');
  t.same(kept.data, { k: 'b3RoZXI=' });
});

t.test('an unreadable or too deep annotation is remembered as unreadable, and never throws', async (t) => {
  const deep = `${'['.repeat(600)}${']'.repeat(600)}`;
  for (const text of ['{not json', deep, '"a string"', '[]']) {
    t.equal(lastApplied(observed('kept', text)), undefined, `${text.slice(0, 12)}…: unreadable`);
    t.equal(lastApplied(observed('kept', text)), undefined, 'again, remembered');
  }
});
