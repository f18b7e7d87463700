// The release path rules and the defensive reading of the rollout memory (rollout/).
import t from 'tap';
import { checkPath, parseRelease } from '../src/controlplane/rollout/release-path.js';
import { readRolloutMemory } from '../src/controlplane/rollout/rollout-state.js';
import { deadlineSeconds } from '../src/controlplane/rollout/rollout.js';

t.test('parseRelease: YYYY.1 and YYYY.2 only', async (t) => {
  t.same(parseRelease('2025.1'), { year: 2025, cycle: 1 });
  t.same(parseRelease('2025.2'), { year: 2025, cycle: 2 });
  for (const bad of ['2025.3', '2025.0', '2025', '25.1', '2025.1 ', 'x', '', 2025.1, undefined, null]) {
    t.equal(parseRelease(bad), undefined, `${JSON.stringify(bad)} is not a release`);
  }
});

t.test('checkPath: one release forward, SLURP to SLURP, the same release; everything else refused', async (t) => {
  const allowed: [string, string, string][] = [
    ['2025.1', '2025.2', 'forward'],
    ['2025.2', '2026.1', 'forward'],
    ['2024.1', '2025.1', 'skip-level'],
    ['2025.1', '2026.1', 'skip-level'],
    ['2025.2', '2025.2', 'same'],
  ];
  for (const [from, to, kind] of allowed) t.same(checkPath(from, to), { ok: true, kind }, `${from} → ${to} is ${kind}`);
  const refused: [string, string, string, RegExp][] = [
    ['2025.2', '2025.1', 'DowngradeRefused', /upgrade 2025.2 → 2025.1 refused: a downgrade/],
    ['2026.1', '2024.1', 'DowngradeRefused', /2026.1 → 2024.1/],
    ['2024.2', '2025.2', 'UnsupportedSkipLevel', /upgrade 2024.2 → 2025.2 refused: skipping releases is supported only from one SLURP/],
    ['2025.1', '2026.2', 'UnsupportedSkipLevel', /2025.1 → 2026.2/],
    ['2024.1', '2026.1', 'UnsupportedSkipLevel', /2024.1 → 2026.1/],
    ['2024.1', '2025.2', 'UnsupportedSkipLevel', /2024.1 → 2025.2/],
    ['2025.1', '2025.9', 'UnparsableRelease', /upgrade 2025.1 → 2025.9 refused: "2025.9" is not an OpenStack release/],
    ['latest', '2025.2', 'UnparsableRelease', /"latest" is not an OpenStack release/],
  ];
  for (const [from, to, reason, message] of refused) {
    const c = checkPath(from, to);
    t.match(c, { ok: false, reason, message }, `${from} → ${to} is refused with ${reason}`);
  }
});

t.test('deadlineSeconds: 1m to 24h of whole h/m/s components', async (t) => {
  t.equal(deadlineSeconds('15m'), 900);
  t.equal(deadlineSeconds('1m'), 60);
  t.equal(deadlineSeconds('2h30m'), 9000);
  t.equal(deadlineSeconds('24h'), 86400);
  for (const bad of ['59s', '25h', '15', '15 m', '-1m', '', 15, undefined]) t.equal(deadlineSeconds(bad), undefined, `${JSON.stringify(bad)} refused`);
});

const target = (release: string) => ({ release, image: { repository: 'ghcr.io/c5c3/keystone', tag: release } });
const rollout = { from: target('2025.1'), to: target('2025.2'), startedAt: '2026-11-21T12:00:00Z', phaseStartedAt: '2026-11-21T12:00:05Z', generation: 2 };

t.test('readRolloutMemory: a well-formed memory reads back whole', async (t) => {
  const last = { ...rollout, result: 'Complete', finishedAt: '2026-11-21T12:01:00Z' };
  const status = { updatePhase: 'UpdatingKeystone', rollout, lastUpdate: last, services: [{ name: 'keystone', ready: false, release: '2025.1' }] };
  const memory = readRolloutMemory(status);
  t.equal(memory.phase, 'UpdatingKeystone');
  t.same(memory.rollout, rollout);
  t.equal(memory.release, '2025.1');
  t.same(memory.lastUpdate, { from: last.from, to: last.to, result: 'Complete', startedAt: last.startedAt, finishedAt: last.finishedAt, generation: 2 });
});

t.test('readRolloutMemory: anything malformed is dropped, never thrown', async (t) => {
  const cases: [string, unknown][] = [
    ['no status', undefined],
    ['status a string', 'x'],
    ['unknown phase', { updatePhase: 'Exploding', rollout }],
    ['rollout phase without a record', { updatePhase: 'Verifying' }],
    ['record with an unparsable release', { updatePhase: 'Verifying', rollout: { ...rollout, to: target('latest') } }],
    ['record with an image without a tag', { updatePhase: 'Verifying', rollout: { ...rollout, from: { release: '2025.1', image: { repository: 'r' } } } }],
    ['record with a bad time', { updatePhase: 'Verifying', rollout: { ...rollout, phaseStartedAt: 'yesterday' } }],
    ['record with a fractional generation', { updatePhase: 'Verifying', rollout: { ...rollout, generation: 1.5 } }],
    ['record an array', { updatePhase: 'Verifying', rollout: [rollout] }],
  ];
  for (const [name, status] of cases) {
    const memory = readRolloutMemory(status);
    t.equal(memory.phase, 'Idle', `${name}: reads as Idle`);
    t.equal(memory.rollout, undefined, `${name}: no rollout`);
  }
  t.equal(readRolloutMemory({ lastUpdate: { ...rollout, result: 'Maybe', finishedAt: '2026-11-21T12:01:00Z' } }).lastUpdate, undefined, 'unknown result dropped');
  t.equal(readRolloutMemory({ services: [{ name: 'keystone', release: 'latest' }] }).release, undefined, 'unparsable release dropped');
  t.equal(readRolloutMemory({ services: 'keystone' }).release, undefined);
  t.equal(readRolloutMemory({ updatePhase: 'Complete', rollout }).rollout, undefined, 'Complete carries no rollout');
});
