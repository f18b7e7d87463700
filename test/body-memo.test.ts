// The hook routes' memo of parsed request bodies (src/json-body.ts): a text that comes again soon
// enough reads one frozen object, one whose sightings are further apart than the memo holds is
// parsed every time; what is refused is refused every time and never remembered; a text over the
// memo's longest key is parsed afresh; the benchmark's floor parses every body; and a hook that
// tried to change its shared request would be answered from a private copy (src/http/hooks.ts).
import t from 'tap';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { BODY_MEMO, bodyMemoHolds, parseJsonBody, parseJsonBodyAfresh } from '../src/json-body.js';
import { answerShared } from '../src/http/hooks.js';
import type { HookContext } from '../src/routes.js';
import { buildServer } from '../src/server.js';
import { REPO_ROOT } from './support/shared.js';

type Parser = typeof parseJsonBody;
const parseWith = (parser: Parser, text: string): { err: Error | null; body?: unknown } => {
  let out: { err: Error | null; body?: unknown } | undefined;
  parser({} as never, text, (err, body) => (out = { err, body }));
  return out!;
};
/** A text equal to `text` but not the same string (as a new request's body would be). */
const copyOf = (text: string) => Buffer.from(text, 'utf8').toString('utf8');

const isFrozenThrough = (v: unknown): boolean =>
  v === null || typeof v !== 'object' || (Object.isFrozen(v) && Object.values(v).every(isFrozenThrough));

t.test('a text seen again reads one remembered object, frozen through; another text another object', async (t) => {
  const text = '{"parent":{"metadata":{"name":"cp","annotations":{"__proto__":"kept"}}},"children":{"a":[1,{"b":2}]}}';
  const first = parseWith(parseJsonBody, copyOf(text));
  const second = parseWith(parseJsonBody, copyOf(text));
  const third = parseWith(parseJsonBody, copyOf(text));
  t.equal(first.err, null);
  t.notOk(Object.isFrozen(first.body), 'seen once: parsed, not kept, not frozen');
  t.not(second.body, first.body);
  t.equal(third.body, second.body, 'seen again: remembered, the very object');
  t.ok(isFrozenThrough(second.body), 'frozen through');
  for (const r of [first, second]) t.same(r.body, JSON.parse(text), 'what JSON.parse reads');
  t.equal(Object.getOwnPropertyDescriptor((second.body as { parent: { metadata: { annotations: object } } }).parent.metadata.annotations, '__proto__')?.value, 'kept', '__proto__ stays an own key');
  const otherText = text.replace('"cp"', '"cq"');
  parseWith(parseJsonBody, otherText);
  const other = parseWith(parseJsonBody, otherText);
  t.not(other.body, second.body);
  t.equal((other.body as { parent: { metadata: { name: string } } }).parent.metadata.name, 'cq');
});

t.test('a text is kept only when the bodies seen since its last sighting fit in the memo', async (t) => {
  const text = (tag: string, i: number) => JSON.stringify({ tag, i, pad: 'p'.repeat(100 * 1024) });
  // 20 texts of 100 KiB in turn: 2 MiB between two sightings of one, over the memo's 1 MiB.
  for (let round = 0; round < 3; round++) {
    const bodies = Array.from({ length: 20 }, (_, i) => parseWith(parseJsonBody, text('wide', i)).body);
    t.notOk(bodies.some((b) => Object.isFrozen(b)), `wide cycle, round ${round + 1}: parsed every time, nothing kept`);
  }
  // 5 texts in turn: 500 KiB between sightings: kept from the second round, read from the memo after.
  const rounds = [0, 1, 2].map(() => Array.from({ length: 5 }, (_, i) => parseWith(parseJsonBody, text('narrow', i)).body));
  t.notOk(rounds[0]!.some((b) => Object.isFrozen(b)), 'narrow cycle, round 1: first sightings');
  t.ok(rounds[1]!.every((b) => Object.isFrozen(b)), 'round 2: kept, frozen');
  t.ok(rounds[2]!.every((b, i) => b === rounds[1]![i]), 'round 3: the remembered objects');
});

t.test('texts that share a fingerprint (the same length, differing between the sampled characters) each read their own body', async (t) => {
  // About 256 characters of a text are sampled: two texts of 4,000 characters differing in the
  // second character only share a fingerprint, so they are told apart by comparison.
  const [a, b] = ['a', 'b'].map((c) => `{"${c}":${JSON.stringify('x'.repeat(3990))}}`);
  t.equal(a!.length, b!.length);
  for (let i = 0; i < 3; i++) for (const s of [a!, b!]) parseWith(parseJsonBody, copyOf(s));
  const ra = parseWith(parseJsonBody, copyOf(a!)).body as Record<string, string>;
  const rb = parseWith(parseJsonBody, copyOf(b!)).body as Record<string, string>;
  t.ok(Object.isFrozen(ra) && Object.isFrozen(rb), 'both remembered');
  t.same(Object.keys(ra), ['a']);
  t.same(Object.keys(rb), ['b']);
  t.equal(parseWith(parseJsonBody, copyOf(a!)).body, ra, 'each its own remembered object');
  t.equal(parseWith(parseJsonBody, copyOf(b!)).body, rb);
});

t.test('the fingerprint index holds exactly the remembered texts, also as texts are pushed out', async (t) => {
  for (let round = 0; round < 3; round++) for (let i = 0; i < 40; i++) parseWith(parseJsonBody, JSON.stringify({ i, pad: 'q'.repeat(60 * 1024) }));
  const holds = bodyMemoHolds();
  t.ok(holds.bodies > 0, `${holds.bodies} bodies remembered`);
  t.equal(holds.indexed, holds.bodies, 'no text indexed that is not remembered');
});

t.test('refused bodies are refused every time and never remembered', async (t) => {
  const deep = '['.repeat(600) + ']'.repeat(600);
  for (let i = 0; i < 3; i++) {
    const r = parseWith(parseJsonBody, copyOf(deep));
    t.equal(r.err?.name, 'BodyTooDeep', `too deep, call ${i + 1}`);
    t.equal((r.err as Error & { statusCode?: number }).statusCode, 400);
    t.equal(parseWith(parseJsonBody, '{"a":').err?.name, 'FastifyError', `not JSON, call ${i + 1}`);
    t.equal(parseWith(parseJsonBody, '').err?.name, 'FastifyError', `empty, call ${i + 1}`);
  }
});

t.test('a body over the longest remembered text is parsed every time', async (t) => {
  const big = JSON.stringify({ pad: 'x'.repeat(BODY_MEMO.maxKey) });
  const [a, b, c] = [1, 2, 3].map(() => parseWith(parseJsonBody, big).body);
  t.not(a, b, 'not remembered');
  t.not(b, c, 'not remembered');
  t.same(a, c);
});

t.test("the floor's parser parses every body afresh, unfrozen, and refuses alike", async (t) => {
  const text = '{"a":{"b":[1]}}';
  const a = parseWith(parseJsonBodyAfresh, text).body;
  const b = parseWith(parseJsonBodyAfresh, text).body;
  t.not(a, b);
  t.notOk(Object.isFrozen(a));
  t.equal(parseWith(parseJsonBodyAfresh, '['.repeat(600)).err?.name, 'BodyTooDeep');
});

t.test('the server answers a repeated body alike, parsed or remembered', async (t) => {
  const dir = join(REPO_ROOT, 'hooks', 'controlplane-sync');
  const call = JSON.parse(readFileSync(join(dir, readdirSync(dir).sort().find((f) => /^managed-\d+-recover-converged\.json$/.test(f))!), 'utf8'));
  const app = await buildServer({ logger: false, clock: () => new Date(call.clock), randomSeed: call.randomSeed });
  t.teardown(() => app.close());
  const payload = JSON.stringify(call.request);
  const calls = [];
  for (let i = 0; i < 3; i++) calls.push(await app.inject({ method: 'POST', url: call.hook, headers: { 'content-type': 'application/json' }, payload }));
  const [first] = calls;
  t.equal(first!.statusCode, 200);
  t.same(calls.map((c) => c.body), calls.map(() => first!.body), 'byte-identical: seen once, seen again, remembered');
  t.equal(JSON.parse(first!.body).status.conditions.find((c: { type: string }) => c.type === 'Ready').status, 'True');
});

t.test('answerShared: a hook that changes its frozen request is answered from a private copy, once', async (t) => {
  const body = Object.freeze({ spec: Object.freeze({ replicas: 1 }) });
  const contexts: number[] = [];
  let n = 0;
  const context = (): HookContext => (contexts.push(++n), { now: () => new Date(0), random: (b) => Buffer.alloc(b) });
  let retried = 0;
  const changing = (b: unknown) => {
    (b as { spec: { replicas: number } }).spec.replicas = 2;
    return (b as { spec: unknown }).spec;
  };
  t.same(answerShared(body, changing, context, () => retried++), { replicas: 2 }, 'answered from a copy');
  t.equal(body.spec.replicas, 1, 'the shared body is unchanged');
  t.equal(retried, 1);
  t.same(contexts, [1, 2], 'a fresh context for the second try');

  t.throws(() => answerShared({ a: 1 }, changing, context, () => retried++), TypeError, 'an unfrozen body: thrown as it is');
  t.throws(
    () => answerShared(body, () => { throw new RangeError('other'); }, context, () => retried++),
    RangeError,
    'not a TypeError: thrown as it is',
  );
  t.throws(
    () => answerShared(body, () => { throw new TypeError('always'); }, context, () => retried++),
    { message: 'always' },
    'a second failure is thrown',
  );
  t.equal(retried, 2, 'only the frozen TypeErrors were retried');
});
