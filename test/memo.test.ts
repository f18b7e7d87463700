// The bounded memos of the hot path (src/memo.ts): a remembered answer is the answer computed
// afresh, whatever was asked before and however full the memo is; the memo stays bounded; what it
// hands out cannot be changed by one caller for the next.
import t from 'tap';
import { parse } from 'yaml';
import { BoundedMemo, MEMO_BUDGET_BYTES, memoBytes, setMemoBudget, Sightings } from '../src/memo.js';
import { applicationCredentialCloud, passwordCloud, readApplicationCredential, type CloudTarget } from '../src/controlplane/credential/clouds-yaml.js';
import { valuesOfSecretText } from '../src/capture/secret-values.js';
import { redactionFor } from '../src/redaction.js';
import { secret } from './support/world.js';
import type { Obj } from './support/shared.js';

const redactConditionMessages = <R>(response: R, request: unknown): R => redactionFor(request)?.answer(response) ?? response;

t.test('BoundedMemo computes once per key, keeps at most its limit, least recently used out first', async (t) => {
  const memo = new BoundedMemo<string>(2);
  let computed = 0;
  const get = (k: string) => memo.get(k, () => `${k}:${++computed}`);
  t.equal(get('a'), 'a:1');
  t.equal(get('a'), 'a:1', 'remembered');
  t.equal(get('b'), 'b:2');
  t.equal(get('a'), 'a:1', 'a is now the most recently used');
  t.equal(get('c'), 'c:3');
  t.equal(memo.size, 2, 'bounded');
  t.equal(get('a'), 'a:1', 'a kept');
  t.equal(get('b'), 'b:4', 'b (least recently used) was dropped and is computed again');
  const undef = new BoundedMemo<string | undefined>(4);
  let calls = 0;
  undef.get('x', () => (calls++, undefined));
  undef.get('x', () => (calls++, undefined));
  t.equal(calls, 1, 'an undefined answer is remembered too');
});

t.test('BoundedMemo with a key budget: bounded by the characters it holds; a key over the budget is computed, not kept', async (t) => {
  const memo = new BoundedMemo<number>(100, { maxKeyBytes: 10 });
  let computed = 0;
  const get = (k: string) => memo.get(k, () => ++computed);
  get('aaaa');
  get('bbbb');
  t.equal(memo.keyBytes, 8);
  get('cccc');
  t.equal(memo.size, 2, 'the oldest key left to stay within 10 characters');
  t.equal(memo.keyBytes, 8);
  t.equal(get('bbbb'), 2, 'bbbb kept');
  t.equal(get('aaaa'), 4, 'aaaa was dropped and is computed again');
  t.equal(get('x'.repeat(11)), 5);
  t.equal(get('x'.repeat(11)), 6, 'over the budget on its own: never kept');
  t.ok(memo.keyBytes <= 10);
});

t.test('BoundedMemo with weighed values: the budget holds the keys and what each value weighs; a value replaced gives back its weight', async (t) => {
  const memo = new BoundedMemo<string>(100, { maxKeyBytes: 20, weigh: (v) => v.length });
  t.ok(memo.set('a', 'x'.repeat(8)));
  t.ok(memo.set('b', 'x'.repeat(8)));
  t.equal(memo.keyBytes, 18, 'two keys of one character and two values of 8');
  t.ok(memo.set('a', 'x'.repeat(4)), 'a replaced by a lighter value');
  t.equal(memo.keyBytes, 14, 'its old weight given back');
  t.ok(memo.set('c', 'x'.repeat(8)));
  t.same([memo.peek('a'), memo.peek('b'), memo.peek('c')].map((v) => v?.length), [4, undefined, 8], 'the least recently put (b: a was put again after it) pushed out to stay within 20');
  t.equal(memo.keyBytes, 14);
  t.notOk(memo.set('d', 'x'.repeat(20)), 'a value that alone weighs more than the budget is not kept');
  t.same([memo.peek('a'), memo.peek('c')].map((v) => v?.length), [4, 8], 'and pushes nothing out');
});

t.test('BoundedMemo: an entry used all along stays, under the entry limit and under the key budget (keys alone, or with what their values weigh)', async (t) => {
  for (const [label, memo] of [
    ['entry limit', new BoundedMemo<number>(10)],
    ['key budget', new BoundedMemo<number>(1000, { maxKeyBytes: 40 })],
    // Keys of 4 characters, values weighing 16: the budget holds two entries, and a hit must move before half of it is put after it.
    ['weighed budget', new BoundedMemo<number>(1000, { maxKeyBytes: 40, weigh: () => 16 })],
  ] as const) {
    let hot = 0;
    for (let i = 0; i < 200; i++) {
      memo.get('hot!', () => ++hot);
      memo.get(`k${String(i).padStart(3, '0')}`, () => i);
    }
    t.equal(hot, 1, `${label}: the entry hit every other call was computed once`);
    t.ok(memo.size <= 10 && memo.keyBytes <= 40, `${label}: bounded (${memo.size} entries, ${memo.keyBytes} characters)`);
  }
});

t.test('one budget for every memo: a put over it pushes out the oldest entries of the memo that puts', async (t) => {
  BoundedMemo.forgetAll();
  setMemoBudget(100);
  t.teardown(() => {
    setMemoBudget(MEMO_BUDGET_BYTES);
    BoundedMemo.forgetAll();
  });
  // Entries of 12: a key of 2 characters and a value weighing 10; the memo's own bound (1,000) is
  // far over the budget, so only the budget holds it.
  const memo = new BoundedMemo<string>(100, { maxKeyBytes: 1000, weigh: (v) => v.length });
  const ten = 'x'.repeat(10);
  for (let i = 1; i <= 8; i++) t.ok(memo.set(`a${i}`, ten));
  t.equal(memoBytes(), 96, 'what the process holds is what its memo holds');
  t.ok(memo.set('a9', ten), 'a put over the budget is kept');
  t.equal(memo.keyBytes, 96, '108 was over 100: the oldest went');
  t.same(['a1', 'a2', 'a9'].map((k) => memo.peek(k) !== undefined), [false, true, true]);
  t.ok(memoBytes() <= 100, `within the budget (${memoBytes()})`);
  t.notOk(memo.set('big', 'x'.repeat(200)), 'a value over the whole budget is not kept');
  t.equal(memoBytes(), 96, 'and pushes nothing out');
  memo.forget();
  t.equal(memoBytes(), 0, 'a memo forgotten gives its bytes back');
});

t.test('BoundedMemo peek and set: what get remembers, under the same bounds', async (t) => {
  const memo = new BoundedMemo<number>(3, { maxKey: 4, maxKeyBytes: 8 });
  t.equal(memo.peek('aa'), undefined, 'nothing yet');
  memo.set('aa', 1);
  t.equal(memo.peek('aa'), 1);
  t.equal(memo.get('aa', () => 99), 1, 'get reads what set put');
  memo.set('aa', 2);
  t.equal(memo.peek('aa'), 2, 'set replaces');
  t.equal(memo.keyBytes, 2, 'a replaced key is counted once');
  memo.set('toolong', 3);
  t.equal(memo.peek('toolong'), undefined, 'over maxKey: not kept');
  for (const k of ['bb', 'cc', 'dd']) memo.set(k, 0);
  t.ok(memo.size <= 3 && memo.keyBytes <= 8, 'bounded');
  t.equal(memo.peek('aa'), undefined, 'the oldest went first');
});

t.test('BoundedMemo with a longest key: a longer key is computed every time and never kept', async (t) => {
  const memo = new BoundedMemo<number>(100, { maxKey: 3 });
  let computed = 0;
  const get = (k: string) => memo.get(k, () => ++computed);
  t.equal(get('abc'), 1);
  t.equal(get('abc'), 1, 'remembered');
  t.equal(get('abcd'), 2);
  t.equal(get('abcd'), 3, 'over maxKey: computed again');
  t.equal(memo.size, 1);
});

t.test('Sightings: an id counts as seen again while it is among the last ones held', async (t) => {
  const held = new Sightings(2);
  t.notOk(held.seen('a'), 'first sighting');
  t.ok(held.seen('a'), 'seen again: held');
  held.seen('b');
  t.ok(held.seen('a'), 'still among the last two (seeing it again moved it to the newest end)');
  held.seen('c');
  t.notOk(held.seen('b'), 'b, the least recently seen, went when c came');
  t.ok(held.seen('c'), 'c held');
  BoundedMemo.forgetAll();
  t.notOk(held.seen('c'), 'forgotten with the memos');
});

const target = (i: number): CloudTarget => ({ cloudName: `cloud-${i % 3}`, authUrl: `http://keystone-${i}.ns.svc/v3`, region: i % 2 ? 'RegionOne' : '' });

t.test('clouds.yaml: rendered and parsed, each input its own answer', async (t) => {
  // 600 distinct inputs, each asked twice, interleaved.
  for (let round = 0; round < 2; round++) {
    for (let i = 0; i < 600; i++) {
      const pw = passwordCloud(target(i), `password-${i}`);
      const doc = parse(pw) as Obj;
      t.equal(doc.clouds[`cloud-${i % 3}`].auth.password, `password-${i}`, `password cloud ${i}`);
      const ac = applicationCredentialCloud(target(i), `id-${i}`, `secret-${i}`);
      const read = readApplicationCredential(ac, `cloud-${i % 3}`);
      if (read.kind !== 'credential' || read.auth.id !== `id-${i}` || read.auth.secret !== `secret-${i}`) t.fail(`application-credential cloud ${i}: ${JSON.stringify(read)}`);
      t.equal(readApplicationCredential(ac, 'another-cloud').kind, 'no-credential', 'keyed by the cloud name too');
    }
  }
  t.match(readApplicationCredential(': not yaml: [', 'x'), { kind: 'unparsable', why: /^it is not YAML/ });
  t.same(readApplicationCredential(applicationCredentialCloud(target(1), 'id-1', 'secret-1'), 'cloud-1'), { kind: 'credential', auth: { id: 'id-1', secret: 'secret-1' } });
});

t.test('clouds.yaml secret values: the document and its auth secrets', async (t) => {
  for (let i = 0; i < 300; i++) {
    const doc = passwordCloud(target(i), `pw-${i}-long`);
    t.same(valuesOfSecretText(doc), [doc, `pw-${i}-long`]);
    t.same(valuesOfSecretText(doc), [doc, `pw-${i}-long`]);
  }
  t.same(valuesOfSecretText('plain value'), ['plain value']);
});

t.test('status redaction: each request redacts its own Secrets, whatever the previous ones held', async (t) => {
  const message = (values: string[]) => `said ${values.join(' and ')}`;
  for (let i = 0; i < 100; i++) {
    const mine = [`first-secret-${i}`, `second-secret-${i}`];
    const other = `first-secret-${i + 1}`;
    const request = { children: {}, related: { 'Secret.v1': { 'ns/a': secret('ns', 'a', { password: mine[0]!, token: mine[1]! }) } } };
    const condition = { type: 'X', status: 'False', reason: 'Y', message: `${message(mine)}; ${other}` };
    const out = redactConditionMessages({ status: { conditions: [condition] }, children: [] }, request as never);
    t.equal((out.status as Obj).conditions[0].message, `said [redacted] and [redacted]; ${other}`, `request ${i}`);
  }
});

t.test('status redaction: Secrets whose data run together alike are not taken for one another', async (t) => {
  // ["alpha-1beta-2", "2222"] and ["alpha-1", "beta-22222"] read the same when run together; each
  // must redact its own values.
  const cases = [
    { data: { one: 'alpha-1beta-2', two: '2222' }, says: 'alpha-1beta-2', redacted: '[redacted]' },
    { data: { one: 'alpha-1', two: 'beta-22222' }, says: 'beta-22222', redacted: '[redacted]' },
    { data: { one: 'alpha-1', two: 'beta-22222' }, says: 'alpha-1', redacted: '[redacted]' },
  ];
  for (const [i, c] of cases.entries()) {
    const request = { children: {}, related: { 'Secret.v1': { 'ns/a': { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'a', namespace: 'ns' }, stringData: c.data } } } };
    const out = redactConditionMessages({ status: { conditions: [{ type: 'X', status: 'False', reason: 'Y', message: c.says }] }, children: [] }, request as never);
    t.equal((out.status as Obj).conditions[0].message, c.redacted, `case ${i}`);
  }
});

t.test('Secret values: remembered decodings, encodings and digests are the fresh ones, across more inputs than remembered', async (t) => {
  const { createHash } = await import('node:crypto');
  const { secretData, secretString, sha256Hex } = await import('../src/k8s/secret.js');
  let wrong = 0;
  for (let round = 0; round < 2; round++) {
    for (let i = 0; i < 1_500; i++) {
      const value = `value-${i}-${'x'.repeat(i % 7)}-ü`;
      const raw = Buffer.from(value, 'utf8').toString('base64');
      if (secretString({ data: { k: raw } }, 'k') !== value) wrong++;
      if (secretData({ b: value, a: `${value}!` }).b !== raw || Object.keys(secretData({ b: value, a: value })).join() !== 'a,b') wrong++;
      if (sha256Hex(value) !== createHash('sha256').update(value, 'utf8').digest('hex')) wrong++;
    }
  }
  t.equal(wrong, 0);
  const large = 'y'.repeat(20_000);
  t.equal(secretString({ data: { k: Buffer.from(large).toString('base64') } }, 'k'), large, 'above the memo size: computed');
  t.equal(secretString({ data: { k: '' } }, 'k'), undefined);
});
