// The memos are bounded by what they weigh, not by the length of their keys (issue 54): a text's
// length does not say what its parsed objects hold of the heap (`[{},…]` about 20 times), nor a
// secret value's length what its needles hold. Measured on the heap itself (a full garbage
// collection before and after), never by time.
import t from 'tap';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { BoundedMemo, heapBytes } from '../src/memo.js';
import { LAST_APPLIED_ANNOTATION, lastApplied, type KubeObject } from '../src/k8s/observed.js';
import { redactionFor } from '../src/redaction.js';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;
const MiB = 1024 * 1024;

/** The heap a function leaves held (what it keeps reachable from module state), in bytes. */
function heldBy(run: () => void): number {
  gc();
  const before = process.memoryUsage().heapUsed;
  run();
  gc();
  return process.memoryUsage().heapUsed - before;
}

/** Texts of `count` JSON values of one shape, each about `chars` characters. */
const SHAPES: Record<string, (chars: number) => unknown> = {
  'empty objects': (chars) => Array.from({ length: Math.floor(chars / 3) }, () => ({})),
  'small integers': (chars) => Array.from({ length: Math.floor(chars / 2) }, () => 0),
  'one string': (chars) => ({ s: 'x'.repeat(chars) }),
  'objects of strings and doubles': (chars) => Array.from({ length: Math.floor(chars / 40) }, (_, i) => ({ name: `n${i}`, value: i + 0.5, on: true })),
  'objects of many distinct keys': (chars) => Object.fromEntries(Array.from({ length: Math.floor(chars / 8) }, (_, i) => [`k${i}`, 0])),
  'mixed array': (chars) => Array.from({ length: Math.floor(chars / 4) }, (_, i) => (i % 2 === 0 ? {} : 0.5)),
};

t.test('heapBytes is within a factor of two of what the parsed value holds of the heap', async (t) => {
  for (const [shape, make] of Object.entries(SHAPES)) {
    const texts = Array.from({ length: 200 }, (_, i) => JSON.stringify({ i, v: make(8000) }));
    let kept: unknown[] = [];
    let estimated = 0;
    const held = heldBy(() => {
      kept = texts.map((s) => JSON.parse(s) as unknown);
      for (const v of kept) estimated += heapBytes(v);
    });
    t.ok(kept.length === texts.length);
    t.ok(estimated >= held / 2 && estimated <= held * 2, `${shape}: estimated ${(estimated / MiB).toFixed(1)} MiB, the heap holds ${(held / MiB).toFixed(1)} MiB`);
  }
});

/** An observed child whose last-applied annotation is `chars` characters of empty objects. */
function denseChild(n: number, chars: number): KubeObject {
  const metadata = { name: `dense-${n}`, namespace: 'ns' };
  const applied = { apiVersion: 'v1', kind: 'ConfigMap', metadata, data: {}, x: SHAPES['empty objects']!(chars) };
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { ...metadata, annotations: { [LAST_APPLIED_ANNOTATION]: JSON.stringify(applied) } } } as KubeObject;
}

t.test('the last-applied memo holds at most its budget of texts and parsed objects, however dense', async (t) => {
  // 600 annotations just under the 8 KiB the memo keeps: 4.7 MiB of text, about 90 MiB once parsed.
  // Each child goes with its call (what a call parsed for its own objects goes with them).
  let read = 0;
  const held = heldBy(() => {
    for (let n = 0; n < 600; n++) if (lastApplied(denseChild(n, 8000)) !== undefined) read++;
  });
  t.equal(read, 600, 'every annotation read');
  t.ok(held < 16 * MiB, `the memo holds ${(held / MiB).toFixed(1)} MiB of the heap after 600 dense annotations (budget 8 MiB of weight)`);
  // Over the 8 KiB the memo keeps: only the object's own reading makes the second read the first's.
  const child = denseChild(0, 20_000);
  const first = lastApplied(child);
  t.ok(first !== undefined && lastApplied(child) === first, 'one object read twice in a call: parsed once, the same value');
  const again = denseChild(0, 8000);
  t.same(lastApplied(again), JSON.parse(String((again.metadata.annotations as Record<string, string>)[LAST_APPLIED_ANNOTATION])), 'an annotation it no longer holds is parsed again, the same');
});

t.test('the redaction memo holds at most its budget of needles, however large the secret values', async (t) => {
  // 80 requests, each with one Secret value of 60 KB: their needles (the value, its base64 and its
  // other forms) are several times that.
  const requests = Array.from({ length: 80 }, (_, n) => ({
    parent: { apiVersion: 'c5c3.io/v1alpha1', kind: 'ControlPlane', metadata: { name: 'cp', namespace: 'ns' } },
    children: { 'Secret.v1': { 'ns/big': { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'big', namespace: 'ns' }, data: { password: Buffer.from(`${n}-`.padEnd(60_000, 'abcdefghij')).toString('base64') } } } },
  }));
  let redacting = 0;
  const held = heldBy(() => {
    for (const r of requests) if (redactionFor(r) !== undefined) redacting++;
  });
  t.equal(redacting, requests.length, 'every request has a redaction');
  t.ok(held < 16 * MiB, `the memo holds ${(held / MiB).toFixed(1)} MiB of the heap after 80 values of 60 KB (budget 8 MiB of weight)`);
});

t.test('a weighed memo counts each value by its weight and drops the oldest to stay in budget', async (t) => {
  const memo = new BoundedMemo<unknown>(1000, { maxKeyBytes: 10_000, weigh: heapBytes });
  for (let i = 0; i < 100; i++) memo.get(`k${i}`, () => Array.from({ length: 30 }, () => ({})));
  t.ok(memo.keyBytes <= 10_000, `bounded by weight: ${memo.keyBytes} bytes`);
  t.ok(memo.size < 100 && memo.size > 0, `${memo.size} of 100 values of ${heapBytes(Array.from({ length: 30 }, () => ({})))} bytes each kept`);
});
