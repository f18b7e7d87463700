// The Tempest-verified upgrade scenarios of the simulation (src/sim/verification-phases.ts, the
// stand-in Job controller src/sim/jobs.ts): upgrade-verified passes through Verifying with a Job
// that completes, then Complete; upgrade-verification-fails rolls back with VerificationFailed and
// holds the old release. For a managed and a brownfield ControlPlane: one Job per rollout, released
// after it ended, nothing else deleted and nothing minted.
import t from 'tap';
import { simulation } from './support/simulation.js';
import { PHASES, SCENARIOS, runPhase, conditionOf } from '../src/sim/scenarios.js';
import { formatRound } from '../src/sim/timeline.js';
import { brownfieldCP, managedCP } from './support/sync.js';

t.test('the verification scenarios are listed', async (t) => {
  t.same(SCENARIOS['upgrade-verified'], ['upgrade-verified']);
  t.same(SCENARIOS['upgrade-verification-fails'], ['upgrade-verification-fails']);
});

for (const [mode, input] of [['managed', managedCP], ['brownfield', brownfieldCP]] as const) {
  t.test(`${mode}: an upgrade Tempest verifies, then one whose Tempest fails is rolled back`, async (t) => {
    const cp0 = input();
    cp0.spec.openStackRelease = '2025.1';
    const { sim, cp } = await simulation(t, cp0, 'upgrade-verified');
    t.same((await runPhase(sim, cp, PHASES.converge!, 20)).problems, []);

    const up = await runPhase(sim, cp, PHASES['upgrade-verified']!);
    t.same(up.problems, [], 'upgrade-verified: every phase, one Job, Complete, the Job released, nothing else deleted or minted');
    const timeline = up.records.flatMap((r) => formatRound(r, sim.rounds[0]!.at)).join('\n');
    t.match(timeline, /updatePhase=Verifying[\s\S]*created Job\/\S+-verify-2025\.2-[0-9a-f]{6}[\s\S]*updatePhase=Complete[\s\S]*its pod succeeded[\s\S]*updatePhase=Idle/, 'the timeline shows Verifying with its Job, the Job succeeding and the rollout Complete');
    t.match(timeline, /deleted Job\/\S+-verify-2025\.2-[0-9a-f]{6}/, 'the finished rollout\'s Job is released');
    t.equal(sim.get(cp)!.status.services[0].release, '2025.2');
    t.equal(sim.get(cp)!.status.lastUpdate.result, 'Complete');

    const fails = await runPhase(sim, cp, PHASES['upgrade-verification-fails']!);
    t.same(fails.problems, [], 'upgrade-verification-fails: rolled back, the old release Ready, nothing else deleted or minted');
    t.match(conditionOf(sim.get(cp), 'Ready'), { status: 'False', reason: 'RolledBack', message: /The upgrade to 2026.1 was rolled back \(VerificationFailed: Tempest on 2026.1: Job \S+-verify-2026\.1-[0-9a-f]{6} failed \(BackoffLimitExceeded/ });
    t.equal(sim.get(cp)!.status.services[0].release, '2025.2', 'the old release is held');
  });
}
