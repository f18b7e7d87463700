// The stage results kept by what each stage reads (src/controlplane/stage-memo.ts, issue 43): a
// warm server (its memos hold a request that differs from this one in a single observed value)
// answers exactly as one with fresh memo state (BoundedMemo.forgetAll: what a new process holds),
// over captured sync requests of every stage's work; and a resync whose body changed only where no
// stage looks reuses the results. (test/memo-exact.test.ts: the same for the spec and Secrets.)
import t from 'tap';
import fc from 'fast-check';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { BoundedMemo, MEMO, memoLookups } from '../src/memo.js';
import { STAGE_TABLE } from '../src/controlplane/pipeline.js';
import { testServer, post } from './support/server.js';
import { REPO_ROOT, type Obj } from './support/shared.js';
import { textWith } from './support/json-text.js';

// Half of memo-exact's pairs: each is five calls with a compute cloud's request (within tap's timeout on a busy machine).
const RUNS = Math.max(50, Math.floor(Number(process.env.PROPERTY_RUNS ?? 10_000) / 80));
const SEED = Number(process.env.PROPERTY_SEED ?? 20261121);

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
