// Every memo tells apart every two requests it may answer: a warm server (the memos hold a request
// that differs from this one in a single value) answers exactly as one with fresh memo state
// (BoundedMemo.forgetAll: what a new process holds). The pairs differ in one JSON value anywhere
// in the spec, among values JSON text writes alike once parsed (1e400 and -1e400 parse to
// ±Infinity, which JSON.stringify writes as null; -0 is written 0), or in a Secret's data; and
// (the stage results kept by what each stage reads, src/controlplane/stage-memo.ts) in one value of
// any observed child or related object, the previous status or the annotations.
import t from 'tap';
import fc from 'fast-check';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { BoundedMemo, exactKey, MEMO, memoLookups } from '../src/memo.js';
import { STAGE_TABLE } from '../src/controlplane/pipeline.js';
import { ControlPlaneSpec } from '../src/api/controlplane.js';
import { testServer, post } from './support/server.js';
import { converge, managedCP } from './support/sync.js';
import { b64, syncRequest } from './support/world.js';
import { REPO_ROOT, type Obj } from './support/shared.js';
import { schemaPaths } from './support/schema-paths.js';

const RUNS = Math.max(50, Math.floor(Number(process.env.PROPERTY_RUNS ?? 10_000) / 40));
const SEED = Number(process.env.PROPERTY_SEED ?? 20261121);


/** JSON texts whose parsed values JSON.stringify writes alike (null, ±Infinity; 0, -0) and a few others. */
const VALUES = ['null', '1e400', '-1e400', '0', '-0', '1', '"x"', '""', 'true', '[]', '{}', '[null]', '[1e400]'];

/** `request` as JSON text with the value at `path` under `root` set to the JSON text `raw`. */
function textWith(request: Obj, root: (string | number)[], path: (string | number)[], raw: string): string {
  const copy = structuredClone(request);
  let holder: Obj = copy;
  const full = [...root, ...path];
  full.slice(0, -1).forEach((key, i) => {
    if (holder[key] === null || typeof holder[key] !== 'object') holder[key] = typeof full[i + 1] === 'number' ? [] : {};
    holder = holder[key];
  });
  holder[full[full.length - 1]!] = '@@value@@';
  return JSON.stringify(copy).replace('"@@value@@"', raw);
}

t.test('exactKey tells apart what JSON.stringify writes alike', async (t) => {
  const alike = [null, Infinity, -Infinity, NaN, 0, -0, undefined, 'null', 'Infinity', '0', '-0'];
  const keys = alike.map((v) => exactKey([v]));
  t.equal(new Set(keys).size, alike.length, keys.join(' '));
  t.not(exactKey({ a: undefined }), exactKey({}), 'an undefined property is not a missing one');
  t.equal(exactKey({ b: [1, 'x', { c: true }] }), JSON.stringify({ b: [1, 'x', { c: true }] }), 'otherwise JSON text');
});

t.test(`a warm server answers as a fresh one: ${RUNS} request pairs differing in one value`, async (t) => {
  // The random source restarts on every call (as in replays), so two calls differ only by the memos.
  const { app } = await testServer({ level: 'silent', randomSeed: 'memo-exact' });
  t.teardown(() => app.close());
  const world = await converge(app, managedCP());
  const request = syncRequest(world.parent, world.children, world.related);
  const finalizing = syncRequest(world.parent, world.children, world.related, true);
  const secretPath = Object.entries(request.related as Obj).flatMap(([group, objects]) =>
    Object.entries(objects as Obj).filter(([, o]) => (o as Obj).kind === 'Secret').map(([key]) => ['related', group, key, 'data']),
  )[0]!;
  const secretKey = Object.keys((request.related as Obj)[secretPath[1]!][secretPath[2]!].data)[0]!;
  const specPaths = schemaPaths(ControlPlaneSpec as unknown as Obj);
  const answer = async (hook: string, text: string) => {
    const res = await post(app, hook, text);
    return `${res.status} ${res.body}`;
  };
  // Mostly values JSON text writes alike once parsed, so every path meets them.
  const values = fc.oneof(
    { weight: 3, arbitrary: fc.constantFrom(['null', '1e400'], ['null', '-1e400'], ['1e400', '-1e400'], ['1e400', 'null'], ['0', '-0'], ['-0', '0'], ['[null]', '[1e400]']) },
    { weight: 1, arbitrary: fc.tuple(fc.constantFrom(...VALUES), fc.constantFrom(...VALUES)) },
  );
  const pair = fc.oneof(
    fc.record({ root: fc.constant(['parent', 'spec'] as (string | number)[]), path: fc.constantFrom(...specPaths), ab: values }).map(({ root, path, ab }) => ({ root, path, a: ab[0]!, b: ab[1]! })),
    fc.record({
      root: fc.constant(secretPath as (string | number)[]),
      path: fc.constant([secretKey] as (string | number)[]),
      a: fc.constantFrom('x'.repeat(8), 'y'.repeat(8), 'a-longer-secret').map((v) => JSON.stringify(b64(v))),
      b: fc.constantFrom('x'.repeat(8), 'z'.repeat(8), 'a-longer-secret').map((v) => JSON.stringify(b64(v))),
    }),
  );
  let compared = 0;
  await fc.assert(
    fc.asyncProperty(pair, fc.boolean(), async ({ root, path, a, b }, finalize) => {
      if (a === b) return;
      const hook = finalize ? '/controlplane/finalize' : '/controlplane/sync';
      const base = finalize ? finalizing : request;
      const [textA, textB] = [textWith(base, root, path, a), textWith(base, root, path, b)];
      // Warm: A twice (its body is then remembered), then B twice.
      await answer(hook, textA);
      await answer(hook, textA);
      const warm = [await answer(hook, textB), await answer(hook, textB)];
      BoundedMemo.forgetAll();
      const fresh = await answer(hook, textB);
      compared++;
      if (warm[0] !== fresh || warm[1] !== fresh) {
        throw new Error(`${hook} ${[...root, ...path].join('.')}: ${a} then ${b}: warm answer differs from fresh:\n${warm[0]!.slice(0, 400)}\n${fresh.slice(0, 400)}`);
      }
    }),
    { numRuns: RUNS, seed: SEED + 5 },
  );
  t.ok(compared > RUNS / 2, `${compared} pairs compared`);
});

/** Every leaf under `value` (a scalar, or an empty object or array), as its path. */
function leaves(value: unknown, path: (string | number)[] = []): (string | number)[][] {
  if (value === null || typeof value !== 'object') return [path];
  const entries = Array.isArray(value) ? value.map((v, i) => [i, v] as const) : Object.entries(value);
  return entries.length === 0 ? [path] : entries.flatMap(([k, v]) => leaves(v, [...path, k]));
}

/** Captured sync requests of every stage's work: the compute cloud converged and mid-upgrade, Keystone only converged and mid-rotation. */
const CAPTURES = ['cloud-12-converge-converged.json', 'cloud-16-upgrade-waiting-for-neutron.json', 'managed-09-converge-converged.json', 'managed-12-rotate-password-waiting-for-application-credential.json'];

t.test(`stage results kept by what each stage reads: a warm server answers as a fresh one over ${RUNS} request pairs differing in one observed value`, async (t) => {
  // Each pair differs in one value of an observed child or related object, the parent's previous
  // status or its annotations: a stage that read it without its key saying so (Stage.observes)
  // would answer B with what it kept for A.
  let clock = new Date(0);
  const { app } = await testServer({ level: 'silent', randomSeed: 'memo-exact', clock: () => clock });
  t.teardown(() => app.close());
  const captures = CAPTURES.map((file) => {
    const call = JSON.parse(readFileSync(join(REPO_ROOT, 'hooks', 'controlplane-sync', file), 'utf8')) as { clock: string; request: Obj };
    const paths = [...leaves(call.request.children, ['children']), ...leaves(call.request.related, ['related']), ...leaves(call.request.parent.status, ['parent', 'status']), ['parent', 'metadata', 'annotations', 'example.com/x']];
    return { file, clock: new Date(call.clock), request: call.request, paths };
  });
  const answer = async (text: string) => {
    const res = await post(app, '/controlplane/sync', text);
    return `${res.status} ${res.body}`;
  };
  const pair = fc
    .integer({ min: 0, max: captures.length - 1 })
    .chain((c) => fc.record({ c: fc.constant(c), path: fc.constantFrom(...captures[c]!.paths), a: fc.constantFrom('"x"', '0', 'null', '"True"'), b: fc.constantFrom('"y"', '1', '"False"', '{}') }));
  let compared = 0;
  await fc.assert(
    fc.asyncProperty(pair, async ({ c, path, a, b }) => {
      const { file, request } = captures[c]!;
      clock = captures[c]!.clock;
      const [textA, textB] = [textWith(request, [], path, a), textWith(request, [], path, b)];
      BoundedMemo.forgetAll();
      await answer(JSON.stringify(request));
      await answer(textA);
      await answer(textA);
      const warm = [await answer(textB), await answer(textB)];
      BoundedMemo.forgetAll();
      const fresh = await answer(textB);
      compared++;
      if (warm[0] !== fresh || warm[1] !== fresh) throw new Error(`${file} ${path.join('.')}: ${a} then ${b}: warm answer differs from fresh:\n${warm[0]!.slice(0, 400)}\n${fresh.slice(0, 400)}`);
    }),
    { numRuns: RUNS, seed: SEED + 7 },
  );
  t.equal(compared, RUNS, `${compared} pairs compared`);
});

t.test('the stage memo answers a fleet resync: a body that changed only where a stage does not look reuses its result', async (t) => {
  const call = JSON.parse(readFileSync(join(REPO_ROOT, 'hooks', 'controlplane-sync', 'cloud-12-converge-converged.json'), 'utf8')) as { clock: string; request: Obj };
  const { app } = await testServer({ level: 'silent', randomSeed: 'memo-exact', clock: () => new Date(call.clock) });
  t.teardown(() => app.close());
  BoundedMemo.forgetAll();
  const hits = () => memoLookups().get(MEMO.stageResult)?.hit ?? 0;
  const first = await post(app, '/controlplane/sync', call.request);
  const before = hits();
  // The parent's resourceVersion after a status write: no stage reads it.
  const resynced = structuredClone(call.request);
  resynced.parent.metadata.resourceVersion = 'after-a-status-write';
  const second = await post(app, '/controlplane/sync', resynced);
  t.equal(second.body, first.body, 'the same answer');
  t.ok(hits() - before >= STAGE_TABLE.length - 2, `${hits() - before} stage results reused of ${STAGE_TABLE.length}`);
});
