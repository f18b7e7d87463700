// What sync keeps with a remembered (frozen, shared) request: its reading, and the stage results
// that did not read the clock (src/controlplane/request-reading.ts, src/controlplane/stage-memo.ts). A request answered from what it kept gets exactly the answer it
// would get afresh, at any clock and in any order of clocks; what read the clock, the random
// source or the credential status is never kept; a kept result answers only the decided
// conditions and rollout it was computed with.
import t from 'tap';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { CapturedCall } from '../src/capture/capture.js';
import type { ControlPlaneHookRequest } from '../src/api/hooks.js';
import { syncControlPlane } from '../src/controlplane/sync.js';
import { recordingInput, StageMemo, type StageReads } from '../src/controlplane/stage-memo.js';
import { readRequest } from '../src/controlplane/request-reading.js';
import type { StageInput, StageResult } from '../src/controlplane/stage.js';
import { deepFreeze } from '../src/memo.js';
import { REASON } from '../src/controlplane/conditions.js';
import { seededRandom } from '../src/random.js';
import { REPO_ROOT } from './support/shared.js';

const SYNC_DIR = join(REPO_ROOT, 'hooks', 'controlplane-sync');
const calls = readdirSync(SYNC_DIR)
  .sort()
  .map((f) => ({ file: f, call: JSON.parse(readFileSync(join(SYNC_DIR, f), 'utf8')) as CapturedCall }));

/** Offsets from a file's clock across every threshold the stages test: seconds to a year. */
const OFFSETS_SECONDS = [0, 1, 59, 11 * 60, 16 * 60, 3600, 2 * 86400, 40 * 86400, 400 * 86400];

const answer = (request: ControlPlaneHookRequest, now: Date) => JSON.stringify(syncControlPlane(request, { now, random: seededRandom('stage-memo') }));

t.test('a remembered request answers as a fresh one at every clock, in either order of clocks', async (t) => {
  t.ok(calls.length >= 20, `${calls.length} captured sync requests`);
  for (const { file, call } of calls) {
    const request = call.request as ControlPlaneHookRequest;
    const clock = new Date(call.clock).getTime();
    const clocks = OFFSETS_SECONDS.map((s) => new Date(clock + s * 1000));
    for (const order of [clocks, [...clocks].reverse()]) {
      const remembered = deepFreeze(structuredClone(request));
      const differing = order.filter((now) => answer(remembered, now) !== answer(structuredClone(request), now));
      t.same(differing.map((d) => d.toISOString()), [], `${file}, clocks ${order === clocks ? 'forward' : 'backward'}`);
    }
  }
});

t.test('a remembered converged request reuses its stage results; a request afresh computes its own', async (t) => {
  const { call } = calls.find((c) => /converged/.test(c.file))!;
  const request = call.request as ControlPlaneHookRequest;
  const now = new Date(call.clock);
  const remembered = deepFreeze(structuredClone(request));
  const first = syncControlPlane(remembered, { now, random: seededRandom('x') });
  const second = syncControlPlane(remembered, { now, random: seededRandom('x') });
  t.ok(first.children.length > 5, `${first.children.length} children`);
  const shared = second.children.filter((c, i) => c === first.children[i] && !Object.values(request.children ?? {}).some((g) => Object.values(g).includes(c)));
  t.ok(shared.length > 0, `${shared.length} desired children are the very objects of the call before (kept)`);
  t.ok(shared.every((c) => Object.isFrozen(c)), 'kept children are frozen');
  t.equal(readRequest(remembered), readRequest(remembered), 'one reading per remembered request');
  const plain = structuredClone(request);
  const a = syncControlPlane(plain, { now, random: seededRandom('x') });
  const b = syncControlPlane(plain, { now, random: seededRandom('x') });
  t.notOk(a.children.some((c, i) => c === b.children[i] && !Object.isFrozen(c) && c.kind !== undefined && !Object.values(plain.children ?? {}).some((g) => Object.values(g).includes(c))), 'not frozen, not kept: computed per call');
  t.not(readRequest(plain), readRequest(plain), 'a request afresh is read afresh');
  t.same(JSON.stringify(second), JSON.stringify(a));
});

const input = (decided: Record<string, string>, rollout?: StageInput['rollout']): StageInput =>
  ({
    decided: new Map(Object.entries(decided).map(([type, status]) => [type, { type, status, reason: 'R', message: '', lastTransitionTime: '2026-01-01T00:00:00Z' }])),
    now: new Date('2026-01-01T00:00:00Z'),
    random: () => Buffer.alloc(0),
    credential: undefined,
    rollout,
  }) as unknown as StageInput;

const result: StageResult = { condition: { status: 'True', reason: REASON.InfrastructureReady, message: '' }, outcome: { kind: 'complete' }, children: [] };

/** Runs `read` on a recording input; the result kept unless it read something opaque. */
function keepAfter(memo: StageMemo, at: StageInput, read: (i: StageInput) => void): boolean {
  const reads: StageReads = { decided: new Map() };
  let opaque = false;
  read(recordingInput(at, reads, () => (opaque = true)));
  if (!opaque) memo.keep('S', reads, result, undefined);
  return !opaque;
}

t.test('a kept stage result answers only the decided conditions and rollout it read', async (t) => {
  const memo = new StageMemo();
  t.ok(keepAfter(memo, input({ A: 'True' }, { holdReMint: 'x' }), (i) => (i.decided.get('A'), i.decided.get('B'), i.rollout)));
  t.ok(memo.lookup('S', input({ A: 'True' }, { holdReMint: 'x' })), 'the same values: kept');
  t.ok(memo.lookup('S', input({ A: 'True', C: 'False' }, { holdReMint: 'x' })), 'a condition it did not read differs: kept');
  t.notOk(memo.lookup('S', input({ A: 'False' }, { holdReMint: 'x' })), 'a condition it read differs');
  t.notOk(memo.lookup('S', input({ A: 'True', B: 'True' }, { holdReMint: 'x' })), 'a condition it read as undecided is decided');
  t.notOk(memo.lookup('S', input({ A: 'True' }, {})), 'the rollout it read differs');
  t.notOk(memo.lookup('T', input({ A: 'True' }, { holdReMint: 'x' })), 'another stage');
  const ignoresRollout = new StageMemo();
  keepAfter(ignoresRollout, input({}, { holdReMint: 'x' }), () => undefined);
  t.ok(ignoresRollout.lookup('S', input({ A: 'True' }, {})), 'read nothing: answers any call');
});

t.test('what read the clock, the random source, the credential status or all decided conditions is not kept', async (t) => {
  for (const [what, read] of [
    ['now', (i: StageInput) => i.now],
    ['random', (i: StageInput) => i.random],
    ['credential', (i: StageInput) => i.credential],
    ['decided.size', (i: StageInput) => i.decided.size],
    ['decided.values()', (i: StageInput) => [...i.decided.values()]],
    ['decided.forEach', (i: StageInput) => i.decided.forEach(() => undefined)],
  ] as const) {
    const memo = new StageMemo();
    t.notOk(keepAfter(memo, input({ A: 'True' }), read), what);
    t.notOk(memo.lookup('S', input({ A: 'True' })), `${what}: nothing kept`);
  }
});
