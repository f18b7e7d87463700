// Answers kept by the bytes they answered (src/http/kept-answers.ts): a call with the same bytes is
// answered as it was, and only an answer that is the same at any instant and with any random
// source is ever kept. The time-shift tests guard the watch of the clock (a call of the context's
// `now` is the read): every answer kept at one instant must be the answer computed afresh at another.
import t, { type Test } from 'tap';
import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildServer, type HooksServer } from '../src/server.js';
import { BoundedMemo, MEMO, memoLookups, memoryPressure, memoSheds, switchMemo } from '../src/memo.js';
import { seededRandom } from '../src/random.js';
import { CallWatch } from '../src/http/kept-answers.js';
import { Simulation } from '../src/sim/simulation.js';
import { PHASES, runPhase } from '../src/sim/scenarios.js';
import { CLOUD } from '../src/cli/hook-payloads.js';
import { REPO_ROOT } from './support/shared.js';
import { managedCP } from './support/sync.js';
import { clusterSecretStore, syncRequest } from './support/world.js';

const DAY_MS = 24 * 3600 * 1000;
const HOOKS = join(REPO_ROOT, 'hooks');

/** Hits and misses of the kept answers so far. */
const lookups = () => ({ ...(memoLookups().get(MEMO.answer) ?? { hit: 0, miss: 0 }) });

interface Captured {
  hook: string;
  clock: string;
  randomSeed: string;
  request: unknown;
}

/** Every captured call of hooks/ (every hook, every state the captured runs pass through). */
function capturedCalls(): { file: string; call: Captured }[] {
  return readdirSync(HOOKS, { withFileTypes: true })
    .filter((d) => d.isDirectory())
    .flatMap((d) => readdirSync(join(HOOKS, d.name)).map((f) => join(d.name, f)))
    .filter((f) => f.endsWith('.json'))
    .sort()
    .map((file) => ({ file, call: JSON.parse(readFileSync(join(HOOKS, file), 'utf8')) as Captured }));
}

/** A server whose clock and random source the test moves. */
async function movableServer(t: Test, capture?: { dir: string; key: string }) {
  const state = { now: new Date('2026-11-21T12:00:00Z'), random: seededRandom('kept-answers') };
  const app = await buildServer({ logger: false, clock: () => state.now, random: (n) => state.random(n), capture });
  t.teardown(() => app.close());
  const post = async (hook: string, text: string) => {
    const res = await app.inject({ method: 'POST', url: hook, headers: { 'content-type': 'application/json' }, payload: text });
    return { status: res.statusCode, body: res.body, type: String(res.headers['content-type']) };
  };
  return { app, state, post };
}

/** The value of one series of /metrics (0 when absent). */
async function metricValue(app: HooksServer, series: string): Promise<number> {
  const text = (await app.inject({ method: 'GET', url: '/metrics' })).body;
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? 0 : Number(line.slice(series.length + 1));
}

t.beforeEach(() => {
  BoundedMemo.forgetAll();
  switchMemo(MEMO.answer, true);
});

/** A converged ControlPlane's resync: the captured converged request with its answer's status fed back, and its clock. */
async function steadyResync(post: (hook: string, text: string) => Promise<{ body: string }>, state: { now: Date }): Promise<string> {
  const converged = JSON.parse(readFileSync(join(HOOKS, 'controlplane-sync', 'managed-22-recover-converged.json'), 'utf8')) as Captured & { request: { parent: { status?: unknown } } };
  state.now = new Date(converged.clock);
  const answer = JSON.parse((await post('/controlplane/sync', JSON.stringify(converged.request))).body) as { status: unknown };
  converged.request.parent.status = answer.status;
  BoundedMemo.forgetAll();
  return JSON.stringify(converged.request);
}

t.test('CallWatch: an answer is repeatable until it reads the clock or the random source, logs an event or fails a stage', async (t) => {
  const at = new Date('2026-11-21T12:00:00Z');
  const base = () => ({ now: () => at, random: (n: number) => Buffer.alloc(n), onStage: () => undefined, onEvent: () => undefined });
  const trace = (outcome: 'complete' | 'failed' | 'waiting') => ({ name: 'Keystone', conditionType: 'KeystoneReady' as const, seconds: 0, outcome });
  const uses: [string, (c: ReturnType<CallWatch['watch']>) => void, boolean][] = [
    ['nothing', () => undefined, true],
    ['the clock handed on, not called', (c) => void [c.now].map((now) => now), true],
    ['a stage complete', (c) => c.onStage!(trace('complete')), true],
    ['a stage waiting', (c) => c.onStage!(trace('waiting')), true],
    ['the clock called', (c) => void c.now(), false],
    // What a Date that reported its reads missed: a copy made without a method of Date.prototype.
    ['the instant copied', (c) => void structuredClone(c.now()), false],
    ['the instant read through Date.prototype', (c) => void Date.prototype.getTime.call(c.now()), false],
    ['the random source', (c) => void c.random(4), false],
    ['an event', (c) => c.onEvent!({ level: 'info', reason: 'R', message: 'm', objects: [] }), false],
    ['a stage failed', (c) => c.onStage!(trace('failed')), false],
  ];
  for (const [label, use, repeatable] of uses) {
    const watch = new CallWatch();
    use(watch.watch(base()));
    t.equal(watch.repeatable, repeatable, `${label}: ${repeatable ? 'repeatable' : 'not repeatable'}`);
  }
  const watch = new CallWatch();
  watch.taint();
  t.notOk(watch.repeatable, 'tainted by the runner');
  let told = 0;
  const watched = new CallWatch().watch({ ...base(), onStage: () => told++, onEvent: () => told++ });
  watched.onStage!(trace('failed'));
  watched.onEvent!({ level: 'info', reason: 'R', message: 'm', objects: [] });
  t.equal(told, 2, 'stages and events still reach the runner');
});

t.test('an answer in which a stage failed is never kept: the failing-stage alert counts every call', async (t) => {
  const { app, post } = await movableServer(t);
  const bad = managedCP();
  bad.spec.infrastructure.database.host = 'db';
  const first = JSON.parse((await post('/controlplane/sync', JSON.stringify(syncRequest(bad, [], [clusterSecretStore()])))).body) as { status: unknown };
  bad.status = first.status;
  const text = JSON.stringify(syncRequest(bad, [], [clusterSecretStore()]));
  const series = 'c5c3_operator_reconcile_errors_total{sub_reconciler="Infrastructure",condition_type="InfrastructureReady"}';
  const errors = await metricValue(app, series);
  const before = lookups();
  for (let i = 0; i < 3; i++) await post('/controlplane/sync', text);
  t.equal(await metricValue(app, series), errors + 3, 'the failed stage counted on every call');
  t.equal(lookups().hit, before.hit, 'none answered from a kept answer');
});

t.test('a resync with the same bytes is answered with the answer kept, byte for byte, its conditions counted each call', async (t) => {
  const { app, state, post } = await movableServer(t);
  const text = await steadyResync(post, state);
  const ready = 'c5c3_hooks_controlplane_conditions_total{condition="Ready",status="True",reason="AllReady"}';
  const before = lookups();
  const first = await post('/controlplane/sync', text);
  t.equal(first.status, 200);
  t.same(lookups(), { hit: before.hit, miss: before.miss + 1 }, 'the first call is computed');
  await post('/controlplane/sync', text);
  t.same(lookups(), { hit: before.hit, miss: before.miss + 2 }, 'the second is computed, and its answer kept (its body came before)');
  state.now = new Date(state.now.getTime() + 3 * DAY_MS);
  state.random = seededRandom('another source');
  const third = await post('/controlplane/sync', text);
  t.same(lookups(), { hit: before.hit + 1, miss: before.miss + 2 }, 'the third is answered with the answer kept, days later');
  t.equal(third.status, 200);
  t.equal(third.body, first.body, 'byte for byte');
  t.equal(third.type, first.type, 'as JSON');
  t.equal(await metricValue(app, ready), 4, 'Ready counted on every call (and on the call that made the resync)');
  const changed = text.replace('"resourceVersion":"', '"resourceVersion":"1');
  t.not(changed, text);
  await post('/controlplane/sync', changed);
  t.same(lookups(), { hit: before.hit + 1, miss: before.miss + 3 }, 'a body changed anywhere is computed');
  const finalize = await post('/controlplane/finalize', text);
  t.same(lookups(), { hit: before.hit + 1, miss: before.miss + 4 }, 'the same bytes to another hook are computed');
  t.not(finalize.body, first.body, "and answered as that hook answers them");
  switchMemo(MEMO.answer, false);
  await post('/controlplane/sync', text);
  t.same(lookups(), { hit: before.hit + 1, miss: before.miss + 4 }, 'switched off: not looked up');
});

t.test('under memory pressure the kept answers are emptied, and none is kept until it is over', async (t) => {
  const { state, post } = await movableServer(t);
  const text = await steadyResync(post, state);
  await post('/controlplane/sync', text);
  await post('/controlplane/sync', text);
  const sheds = memoSheds().get(MEMO.answer) ?? 0;
  memoryPressure(true);
  try {
    t.equal(memoSheds().get(MEMO.answer), sheds + 1, 'the shed counted');
    const before = lookups();
    for (let i = 0; i < 3; i++) await post('/controlplane/sync', text);
    t.same(lookups(), { hit: before.hit, miss: before.miss + 3 }, 'emptied, and nothing kept while under pressure');
  } finally {
    memoryPressure(false);
  }
  await post('/controlplane/sync', text);
  const before = lookups();
  await post('/controlplane/sync', text);
  t.same(lookups(), { hit: before.hit + 1, miss: before.miss }, 'kept again once it is over');
});

t.test('every captured call, its answer kept at one instant, is answered at another as it is computed there', async (t) => {
  const { state, post } = await movableServer(t);
  let kept = 0;
  let compared = 0;
  for (const { file, call } of capturedCalls()) {
    for (const shiftMs of [61_000, 400 * DAY_MS]) {
      BoundedMemo.forgetAll();
      state.now = new Date(call.clock);
      state.random = seededRandom('first');
      const text = JSON.stringify(call.request);
      await post(call.hook, text);
      await post(call.hook, text);
      state.now = new Date(Date.parse(call.clock) + shiftMs);
      state.random = seededRandom('second');
      const before = lookups();
      const later = await post(call.hook, text);
      if (lookups().hit > before.hit) kept++;
      switchMemo(MEMO.answer, false);
      BoundedMemo.forgetAll();
      state.random = seededRandom('second');
      const fresh = await post(call.hook, text);
      switchMemo(MEMO.answer, true);
      compared++;
      if (later.status !== fresh.status || later.body !== fresh.body) t.fail(`${file}, ${shiftMs / 1000} s later: the answer differs from the one computed there`);
    }
  }
  t.ok(kept >= 20, `answers kept and compared: ${kept} of ${compared} (the rest read the clock or the random source)`);
  t.ok(kept < compared, 'and not every one: the rest are computed');
});

/**
 * A ControlPlane's lifecycle under the simulation (src/sim/): every call answered from a kept
 * answer is also computed afresh (kept answers off) at the same instant, and must be the same.
 */
async function lifecycle(t: Test, input: Record<string, unknown>, phases: string[], seed: string) {
  let sim: Simulation | undefined;
  const app = await buildServer({ logger: false, clock: () => sim!.now, random: seededRandom(seed) });
  t.teardown(() => app.close());
  const inject = app.inject.bind(app) as unknown as (options: InjectOptions) => Promise<LightMyRequestResponse>;
  let kept = 0;
  let differ = 0;
  const checked = async (options: InjectOptions) => {
    const before = lookups();
    const res = await inject(options);
    if (lookups().hit === before.hit) return res;
    kept++;
    switchMemo(MEMO.answer, false);
    const fresh = await inject(options);
    switchMemo(MEMO.answer, true);
    if (fresh.statusCode !== res.statusCode || fresh.body !== res.body) {
      differ++;
      t.fail(`${String(options.url)} at ${sim!.now.toISOString()}: the kept answer differs from the one computed`);
    }
    return res;
  };
  app.inject = checked as unknown as typeof app.inject;
  sim = new Simulation({ app });
  const cp = sim.createControlPlane(input);
  for (const name of phases) {
    t.same((await runPhase(sim, cp, PHASES[name]!)).problems, [], `${name}: as without kept answers`);
    // At rest: resyncs of the same bytes (the calls kept answers answer).
    for (let i = 0; i < 4; i++) await sim.step();
  }
  t.ok(kept > 0, `${kept} calls answered from kept answers, each the answer computed afresh`);
  t.equal(differ, 0);
}

t.test('a compute cloud through its lifecycle: every kept answer is the answer computed at its instant', async (t) => {
  await lifecycle(t, structuredClone(CLOUD), ['converge', 'upgrade', 'rotate-password', 'outage', 'recover', 'delete'], 'kept-cloud');
});

t.test('scheduled rotation: days pass between identical resyncs; every kept answer is the answer computed at its instant', async (t) => {
  await lifecycle(t, managedCP(), ['converge', 'scheduled'], 'kept-scheduled');
});

t.test('with capture on, a call answered from a kept answer is captured as the computed ones are', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'kept-answers-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const { app, state, post } = await movableServer(t, { dir, key: 'kept-answers' });
  const text = await steadyResync(post, state);
  const before = lookups();
  for (let i = 0; i < 3; i++) t.equal((await post('/controlplane/sync', text)).status, 200);
  t.same(lookups(), { hit: before.hit + 1, miss: before.miss + 2 }, 'the third answered from its kept answer');
  await app.c5c3.capture!.flush();
  const files = readdirSync(dir).filter((f) => f.endsWith('.json')).sort();
  t.equal(files.length, 4, 'every call captured');
  const records = files.slice(1).map((f) => JSON.parse(readFileSync(join(dir, f), 'utf8')) as Captured & { response: unknown });
  t.equal(records[2]!.hook, '/controlplane/sync');
  t.equal(records[2]!.clock, state.now.toISOString(), 'at its clock');
  t.same(records[2]!.request, records[0]!.request, 'its request as a computed call records it');
  t.same(records[2]!.response, records[0]!.response, 'its answer as a computed call records it');
});
