// What sync keeps: the stage results keyed by what each stage reads (src/controlplane/stage-memo.ts).
// What called the clock, the random source, the previous conditions or a kind the
// stage did not declare is never kept; a kept result answers only its key and the decided
// conditions, rollout, credential status and annotations it was computed with.
import t from 'tap';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { CapturedCall } from '../src/capture/capture.js';
import type { ControlPlaneHookRequest } from '../src/api/hooks.js';
import { syncControlPlane } from '../src/controlplane/sync.js';
import { DeclaredIndex, recordingInput, STAGE_MEMO_CONTROLPLANES, StageMemo, type StageReads } from '../src/controlplane/stage-memo.js';
import type { Stage, StageInput, StageResult } from '../src/controlplane/stage.js';
import { BoundedMemo, sameAs } from '../src/memo.js';
import { parseJsonText } from '../src/json-body.js';
import { ObjectIndex } from '../src/k8s/observed.js';
import { GVK } from '../src/k8s/kinds.js';
import { REASON } from '../src/controlplane/conditions.js';
import { seededRandom } from '../src/random.js';
import { REPO_ROOT } from './support/shared.js';

const SYNC_DIR = join(REPO_ROOT, 'hooks', 'controlplane-sync');
const calls = readdirSync(SYNC_DIR)
  .sort()
  .map((f) => ({ file: f, call: JSON.parse(readFileSync(join(SYNC_DIR, f), 'utf8')) as CapturedCall }));

/** Offsets from a file's clock across every threshold the stages test: seconds to a year. */
t.test('a request the hook routes parsed reuses the stage results of an earlier one with the same objects; an in-process request computes its own', async (t) => {
  BoundedMemo.forgetAll();
  const { call } = calls.find((c) => /converged/.test(c.file))!;
  const text = JSON.stringify(call.request);
  const now = new Date(call.clock);
  // Two bodies parsed from the same text (a resync after the body memo let the first go): no object shared.
  const parsed = () => parseJsonText(text, true) as ControlPlaneHookRequest;
  const [one, two] = [parsed(), parsed()];
  const first = syncControlPlane(one, { now: () => now, random: seededRandom('x') });
  const second = syncControlPlane(two, { now: () => now, random: seededRandom('x') });
  t.ok(first.children.length > 5, `${first.children.length} children`);
  const third = syncControlPlane(parsed(), { now: () => now, random: seededRandom('x') });
  const observed = (r: ControlPlaneHookRequest) => Object.values(r.children ?? {}).flatMap((g) => Object.values(g));
  // A kept result answers with a copy of its own, standing for its place in the kept text (memo.ts standFor).
  const copies = second.children.filter((c) => sameAs(c) !== c && !observed(two).includes(c));
  t.ok(copies.length > 0, `${copies.length} desired children are copies of kept results (kept by what their stages read)`);
  t.notOk(first.children.some((c) => sameAs(c) !== c), 'the first call computed its own: none is a copy');
  t.ok(copies.every((c) => Object.isFrozen(c) && !first.children.includes(c)), 'copies are frozen, and their own objects');
  t.same(
    third.children.map((c) => (sameAs(c) === c ? 'computed' : second.children.some((d) => sameAs(d) === sameAs(c)) ? 'the same place' : 'another place')),
    third.children.map((c) => (sameAs(c) === c ? 'computed' : 'the same place')),
    'the next call\'s copies stand for the same places',
  );
  const plain = structuredClone(call.request) as ControlPlaneHookRequest;
  const a = syncControlPlane(plain, { now: () => now, random: seededRandom('x') });
  const b = syncControlPlane(plain, { now: () => now, random: seededRandom('x') });
  t.notOk([...a.children, ...b.children].some((c) => sameAs(c) !== c), 'no text to key by: computed per call');
  t.same(JSON.stringify(second), JSON.stringify(a));
});

const input = (decided: Record<string, string>, rollout?: StageInput['rollout']): StageInput =>
  ({
    decided: new Map(Object.entries(decided).map(([type, status]) => [type, { type, status, reason: 'R', message: '', lastTransitionTime: '2026-01-01T00:00:00Z' }])),
    now: () => new Date('2026-01-01T00:00:00Z'),
    random: () => Buffer.alloc(0),
    credential: undefined,
    rollout,
  }) as unknown as StageInput;

const result: StageResult = { condition: { status: 'True', reason: REASON.InfrastructureReady, message: '' }, outcome: { kind: 'complete' }, children: [] };

/** A stage that reads no observed object, by name (its key is the ControlPlane's and the common part's). */
const stage = (name: string) => ({ name, observes: { children: [], related: [] } }) as unknown as Stage;
let uid = 0;
/** A memo of a ControlPlane of its own. */
const memoOf = () => new StageMemo({ cp: { name: 'cp', namespace: 'ns', uid: `u${uid++}`, generation: 1 }, common: 'c', children: new ObjectIndex(undefined), related: new ObjectIndex(undefined) });
const S = stage('S');

/** Runs `read` on a recording input; the result kept unless it read something opaque. */
function keepAfter(memo: StageMemo, at: StageInput, read: (i: StageInput) => void): boolean {
  const reads: StageReads = { decided: new Map() };
  let opaque = false;
  read(recordingInput(S, at, reads, () => (opaque = true)));
  memo.begin();
  if (!opaque) memo.keep(S, memo.keyOf(S)!, reads, result, undefined);
  memo.end();
  return !opaque;
}
/** A call that looks `s` up (each call finds what the calls before it kept, packed at their end). */
const lookup = (memo: StageMemo, s: Stage, at: StageInput) => {
  memo.begin();
  const kept = memo.lookup(s, memo.keyOf(s), at);
  memo.end();
  return kept;
};

t.test('a kept stage result answers only the decided conditions and rollout it read, with its key', async (t) => {
  const memo = memoOf();
  t.ok(keepAfter(memo, input({ A: 'True' }, { holdReMint: 'x' }), (i) => (i.decided.get('A'), i.decided.get('B'), i.rollout)));
  t.ok(lookup(memo, S, input({ A: 'True' }, { holdReMint: 'x' })), 'the same values: kept');
  t.ok(lookup(memo, S, input({ A: 'True', C: 'False' }, { holdReMint: 'x' })), 'a condition it did not read differs: kept');
  t.notOk(lookup(memo, S, input({ A: 'False' }, { holdReMint: 'x' })), 'a condition it read differs');
  t.notOk(lookup(memo, S, input({ A: 'True', B: 'True' }, { holdReMint: 'x' })), 'a condition it read as undecided is decided');
  t.notOk(lookup(memo, S, input({ A: 'True' }, {})), 'the rollout it read differs');
  t.notOk(lookup(memo, stage('T'), input({ A: 'True' }, { holdReMint: 'x' })), 'another stage');
  memo.begin();
  t.notOk(memo.lookup(S, 'another key', input({ A: 'True' }, { holdReMint: 'x' })), 'another key (what it reads of the request differs)');
  t.notOk(lookup(memoOf(), S, input({ A: 'True' }, { holdReMint: 'x' })), 'another ControlPlane');
  const ignoresRollout = memoOf();
  keepAfter(ignoresRollout, input({}, { holdReMint: 'x' }), () => undefined);
  t.ok(lookup(ignoresRollout, S, input({ A: 'True' }, {})), 'read nothing: answers any call with its key');
});

t.test('a kept result answers with a frozen copy of every value it held: undefined, -0, non-finite numbers and Maps too', async (t) => {
  const memo = memoOf();
  const odd = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x' }, data: { none: undefined, zero: -0, big: Infinity, small: -Infinity, nan: NaN } };
  const reads: StageReads = { decided: new Map([['A', undefined]]) };
  memo.begin();
  memo.keep(S, memo.keyOf(S)!, reads, { ...result, children: [odd as unknown as StageResult['children'][number]], resyncAfterSeconds: 30 }, undefined);
  memo.end();
  const kept = lookup(memo, S, input({}));
  const child = kept?.result.children[0] as unknown as typeof odd | undefined;
  t.ok(child !== undefined && child !== odd, 'a copy');
  t.ok(child !== undefined && 'none' in child.data && child.data.none === undefined, 'an undefined property stays, undefined');
  t.ok(child && Object.is(child.data.zero, -0) && child.data.big === Infinity && child.data.small === -Infinity && Number.isNaN(child.data.nan), '-0, ±Infinity and NaN as they were');
  t.equal(kept?.result.resyncAfterSeconds, 30);
  t.ok(kept && Object.isFrozen(kept.result) && Object.isFrozen(child) && Object.isFrozen(child?.data), 'frozen through');
  t.not(lookup(memo, S, input({}))?.result.children[0], child, 'each call its own copy');
});

t.test('what read the clock, the random source, the previous conditions, all decided conditions or an undeclared kind is not kept', async (t) => {
  for (const [what, read] of [
    ['now()', (i: StageInput) => i.now()],
    ['random', (i: StageInput) => i.random(1)],
    ['previous', (i: StageInput) => i.previous],
    ['decided.size', (i: StageInput) => i.decided.size],
    ['decided.values()', (i: StageInput) => [...i.decided.values()]],
    ['decided.forEach', (i: StageInput) => i.decided.forEach(() => undefined)],
    ['children.all()', (i: StageInput) => i.children.all()],
    ['children.ofKind(undeclared)', (i: StageInput) => i.children.ofKind(GVK.Secret)],
    ['related.get(undeclared)', (i: StageInput) => i.related.get(GVK.Secret, 'ns', 'x')],
  ] as const) {
    const memo = memoOf();
    t.notOk(keepAfter(memo, { ...input({ A: 'True' }), children: new ObjectIndex(undefined), related: new ObjectIndex(undefined) }, read), what);
    t.notOk(lookup(memo, S, input({ A: 'True' })), `${what}: nothing kept`);
  }
});

t.test('the credential status and the annotations a stage read are part of what its result answers', async (t) => {
  const memo = memoOf();
  const at = (credential: unknown, annotations: unknown) => ({ ...input({}), credential, parentAnnotations: annotations }) as StageInput;
  t.ok(keepAfter(memo, at({ id: 'a' }, { x: '1' }), (i) => (i.credential, i.parentAnnotations, i.random, i.now)), 'the random source and the clock handed on, not called: kept');
  t.ok(lookup(memo, S, at({ id: 'a' }, { x: '1' })), 'the same');
  t.notOk(lookup(memo, S, at({ id: 'b' }, { x: '1' })), 'another credential');
  t.notOk(lookup(memo, S, at({ id: 'a' }, { x: '2' })), 'other annotations');
});

t.test('once full, the memo gives a ControlPlane new places only when it was called recently: a fleet larger than the memo, resynced in turn, keeps the first ones answered', async (t) => {
  BoundedMemo.forgetAll();
  t.teardown(() => BoundedMemo.forgetAll());
  const stages = Array.from({ length: 16 }, (_, i) => stage(`S${i}`));
  /** The reading of ControlPlane `i` (its spec digest `common`). */
  const memoOfCp = (i: number, common = 'c') =>
    new StageMemo({ cp: { name: `cp${i}`, namespace: `ns${i}`, uid: `fleet-${i}`, generation: 1 }, common, children: new ObjectIndex(undefined), related: new ObjectIndex(undefined) });
  /** One call of ControlPlane `i`: each stage looked up, kept when missed; how many were found. */
  const call = (i: number, common = 'c', memo = memoOfCp(i, common)) => {
    memo.begin();
    let found = 0;
    for (const s of stages) {
      const key = memo.keyOf(s)!;
      if (memo.lookup(s, key, input({}))) found++;
      else memo.keep(s, key, { decided: new Map() }, result, undefined);
    }
    memo.end();
    return found;
  };
  const fleet = Math.ceil(STAGE_MEMO_CONTROLPLANES * 1.25);
  const round = () => Array.from({ length: fleet }, (_, i) => call(i));
  t.equal(round().reduce((a, b) => a + b, 0), 0, 'the first round finds nothing');
  for (const n of [2, 3]) {
    const found = round();
    // Least recently used first out alone would find nothing: each would be pushed out before its turn.
    t.same(
      found.map((f, i) => (i < STAGE_MEMO_CONTROLPLANES ? f === 16 : f === 0)),
      found.map(() => true),
      `round ${n}: the first ${STAGE_MEMO_CONTROLPLANES} ControlPlanes kept are found whole, the others are not kept in their place`,
    );
  }
  t.equal(call(fleet + 1), 0, 'a ControlPlane called for the first time, the memo full: nothing found');
  t.equal(call(fleet + 1), 0, 'nothing found the next call either (the first kept nothing); called recently, this one keeps');
  t.equal(call(fleet + 1), 16, 'found the third time');
  t.equal(call(10, 'c2'), 0, 'a kept ControlPlane whose spec changed: not found');
  for (let i = 0; i < STAGE_MEMO_CONTROLPLANES; i++) call(2 * fleet + i);
  t.equal(call(10, 'c2'), 16, 'its new results took its own places, though it had not been called recently');
  t.equal(call(STAGE_MEMO_CONTROLPLANES - 1), 16, 'the others kept are still found');
  // A remembered body's reading, and so its StageMemo, serves every call with that body: each call decides anew.
  const shared = memoOfCp(3 * fleet);
  t.same([call(3 * fleet, 'c', shared), call(3 * fleet, 'c', shared), call(3 * fleet, 'c', shared)], [0, 0, 16], 'one reading called again soon after: kept the second time, found the third');
});

t.test('a stage sees its declared kinds through DeclaredIndex, which answers every question ObjectIndex does', async (t) => {
  const own = Object.getOwnPropertyNames(ObjectIndex.prototype).filter((n) => n !== 'constructor');
  const overridden = Object.getOwnPropertyNames(DeclaredIndex.prototype);
  t.same(own.filter((n) => !overridden.includes(n)), [], 'a method DeclaredIndex does not override would answer from an empty index');
});
