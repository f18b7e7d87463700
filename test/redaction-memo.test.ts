// The redaction's needles kept by the secret values, and the frozen objects found clean of them
// (src/redaction.ts NEEDLES): a resync gives back the children it keeps as last applied (the same
// frozen objects) without searching them again. What is kept must never let a
// value out: an object is known clean only under the values it was searched for, and only when
// nothing in it can change.
import t from 'tap';
import { BoundedMemo, deepFreeze, MEMO, memoLookups } from '../src/memo.js';
import { Redaction, REDACTED_VALUE } from '../src/redaction.js';

const SECRET = 'Zq8-not-a-word-2f';
const OTHER = 'Yx7-another-one-9k';
const request = { parent: { metadata: { name: 'cp' } } };
const child = (message: string) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' }, data: { note: message } });
const redacted = (r: Redaction, value: object) => JSON.stringify(r.redact(value)).includes(REDACTED_VALUE);

t.beforeEach(() => BoundedMemo.forgetAll());

t.test('a frozen object found clean is given back as it is, under the same values, without a search', async (t) => {
  const clean = deepFreeze(child(`holds ${OTHER}`));
  const hits = () => memoLookups().get(MEMO.redaction)!.hit;
  const first = new Redaction(new Set([SECRET]), request);
  t.equal(first.redact(clean), clean, 'clean: the object itself');
  const before = hits();
  const again = new Redaction(new Set([SECRET]), request);
  t.equal(again.redact(clean), clean, 'the next call: the object itself');
  t.equal(hits() - before, 1, 'the needles were found again by the values');
});

t.test('clean under some values is not clean under others', async (t) => {
  const obj = deepFreeze(child(`holds ${OTHER}`));
  t.equal(new Redaction(new Set([SECRET]), request).redact(obj), obj, 'clean of SECRET');
  t.ok(redacted(new Redaction(new Set([OTHER]), request), obj), 'OTHER is found in the same object');
  t.ok(redacted(new Redaction(new Set([SECRET, OTHER]), request), obj), 'and under both');
});

t.test('an object that can still change is searched every time', async (t) => {
  const open = child('nothing yet');
  const r = new Redaction(new Set([SECRET]), request);
  t.equal(r.redact(open), open, 'clean now');
  open.data.note = `now holds ${SECRET}`;
  t.ok(redacted(new Redaction(new Set([SECRET]), request), open), 'found once it holds the value');

  // Frozen at the top, not inside: what is inside can change.
  const inner = { note: 'nothing yet' };
  const shallow = Object.freeze({ apiVersion: 'v1', kind: 'ConfigMap', metadata: Object.freeze({ name: 'c' }), data: inner });
  t.equal(r.redact(shallow), shallow, 'clean now');
  inner.note = `now holds ${SECRET}`;
  t.ok(redacted(new Redaction(new Set([SECRET]), request), shallow), 'found once it holds the value');
});

t.test('a message holding a value is redacted whether or not the needles were kept', async (t) => {
  const message = `auth failed for admin:${SECRET}`;
  const fresh = new Redaction(new Set([SECRET]), request).text(message);
  const warm = new Redaction(new Set([SECRET]), request).text(message);
  t.equal(fresh, 'auth failed for admin:[redacted]');
  t.equal(warm, fresh);
  t.equal(new Redaction(new Set([SECRET]), request).text('nothing here'), 'nothing here', 'a message holding none is itself');
});
