// The memo hit and miss counters of /metrics (memo.ts MEMO, metrics.ts): an operator reads from
// them whether each memo pays in their cluster, so they must count what the memos really do.
import t from 'tap';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { REPO_ROOT } from './support/shared.js';
import { testServer, post } from './support/server.js';
import { BoundedMemo, MEMO, type MemoName } from '../src/memo.js';
import type { HooksServer } from '../src/server.js';

const dir = pathToFileURL(join(REPO_ROOT, 'hooks', 'controlplane-sync/'));
const file = readdirSync(dir).find((f) => /^managed-\d+-recover-converged\.json$/.test(f))!;
const converged = JSON.parse(readFileSync(new URL(file, dir), 'utf8')) as { request: { parent: { metadata: Record<string, unknown> } } };

type Counts = Map<string, number>;
async function lookups(app: HooksServer): Promise<Counts> {
  const text = (await app.inject({ method: 'GET', url: '/metrics' })).body;
  const counts: Counts = new Map();
  for (const m of text.matchAll(/^c5c3_hooks_memo_lookups_total\{memo="([a-z_]+)",result="(hit|miss)"\} (\d+)$/gm)) counts.set(`${m[1]}/${m[2]}`, Number(m[3]));
  return counts;
}
/** The converged request with the status its answer reports fed back (a converged ControlPlane's resync: its answer is kept). */
async function steady(app: HooksServer, resourceVersion = 'steady'): Promise<string> {
  const request = { ...converged.request, parent: { ...converged.request.parent, metadata: { ...converged.request.parent.metadata, resourceVersion } } };
  const answer = JSON.parse((await post(app, '/controlplane/sync', JSON.stringify(request))).body) as { status: unknown };
  return JSON.stringify({ ...request, parent: { ...request.parent, status: answer.status } });
}
const moved = (before: Counts, after: Counts, memo: MemoName, result: 'hit' | 'miss') => (after.get(`${memo}/${result}`) ?? 0) - (before.get(`${memo}/${result}`) ?? 0);

t.test('every memo has a hit and a miss series, with no per-object labels', async (t) => {
  const { app } = await testServer({ level: 'silent' });
  t.teardown(() => app.close());
  const counts = await lookups(app);
  for (const memo of Object.values(MEMO)) {
    t.ok(counts.has(`${memo}/hit`), `${memo} hit`);
    t.ok(counts.has(`${memo}/miss`), `${memo} miss`);
  }
  const text = (await app.inject({ method: 'GET', url: '/metrics' })).body;
  t.match(text, /# TYPE c5c3_hooks_memo_lookups_total counter/);
});

t.test('a converged ControlPlane resynced with the same bytes: the kept answer is hit', async (t) => {
  const { app } = await testServer({ level: 'silent' });
  t.teardown(() => app.close());
  const body = await steady(app);
  const before = await lookups(app);
  for (let i = 0; i < 4; i++) t.equal((await post(app, '/controlplane/sync', body)).status, 200);
  const after = await lookups(app);
  for (const memo of [MEMO.answer]) {
    t.ok(moved(before, after, memo, 'hit') > 0, `${memo}: hits`);
  }
});

t.test('bodies in flight over half the in-flight budget empty the kept answers, and count it', async (t) => {
  const resynced = (n: number) => JSON.stringify({ ...converged.request, parent: { ...converged.request.parent, metadata: { ...converged.request.parent.metadata, resourceVersion: `shed-${n}` } } });
  const size = resynced(0).length;
  // A fleet's bodies (well under half the budget) and one body over half of it (JSON allows the trailing blanks).
  const { app } = await testServer({ level: 'silent', maxInflightBytes: 4 * size });
  t.teardown(() => app.close());
  BoundedMemo.forgetAll();
  const sheds = async () => {
    const text = (await app.inject({ method: 'GET', url: '/metrics' })).body;
    return Object.fromEntries([...text.matchAll(/^c5c3_hooks_memo_sheds_total\{memo="([a-z_]+)"\} (\d+)$/gm)].map((m) => [m[1], Number(m[2])]));
  };
  const call = async (body: string) => {
    const before = await lookups(app);
    const res = await post(app, '/controlplane/sync', body);
    t.equal(res.status, 200);
    const after = await lookups(app);
    return { hits: moved(before, after, MEMO.answer, 'hit'), answer: res.body };
  };
  const body = await steady(app);
  const shedBefore = await sheds();
  // Kept when a body comes a second time (kept-answers.ts), answered from memory from the third on.
  t.equal((await call(body)).hits, 0, 'the first call is computed');
  await call(body);
  const warm = await call(body);
  t.equal(warm.hits, 1, 'the body again: its kept answer');

  const big = await call(resynced(3) + ' '.repeat(2 * size + 1));
  t.equal(JSON.parse(big.answer).status.conditions.length, JSON.parse(warm.answer).status.conditions.length, 'over half the budget: answered as well');
  const shedAfter = await sheds();
  t.equal((shedAfter[MEMO.answer] ?? 0) - (shedBefore[MEMO.answer] ?? 0), 1, 'answer: one shed counted');

  const dropped = await call(body);
  t.equal(dropped.hits, 0, 'the kept answer was dropped under pressure');
  t.equal(dropped.answer, warm.answer, 'and the body is answered alike');
  t.equal((await call(body)).hits, 1, 'back under half, answers are kept again');
  t.same(await sheds(), shedAfter, 'no shed while under half');
});
