// The release-upgrade scenarios of the simulation (src/sim/upgrade-phases.ts): upgrade walks every
// phase to Complete; upgrade-fails (the stand-in Keystone never Ready with the new image) rolls
// back and holds the old release; upgrade-refused (a downgrade) starts nothing. For a managed and
// a brownfield ControlPlane, nothing deleted and nothing minted on the way.
import t from 'tap';
import { simulation } from './support/simulation.js';
import { PHASES, SCENARIOS, runPhase, conditionOf } from '../src/sim/scenarios.js';
import { SCENARIO_STARTS_ONE_RELEASE_EARLIER } from '../src/sim/upgrade-phases.js';
import { formatRound } from '../src/sim/timeline.js';
import { brownfieldCP, managedCP } from './support/sync.js';

t.test('the upgrade scenarios are listed and start one release early', async (t) => {
  t.same(SCENARIOS.upgrade, ['upgrade']);
  t.same(SCENARIOS['upgrade-fails'], ['upgrade-fails']);
  t.same(SCENARIOS['upgrade-refused'], ['upgrade-refused']);
  t.same([...SCENARIO_STARTS_ONE_RELEASE_EARLIER].sort(), ['upgrade', 'upgrade-fails', 'upgrade-verification-fails', 'upgrade-verified']);
});

for (const [mode, input] of [['managed', managedCP], ['brownfield', brownfieldCP]] as const) {
  t.test(`${mode}: upgrade 2025.1 → 2025.2, then a failing upgrade rolled back, then a refused downgrade`, async (t) => {
    const cp0 = input();
    cp0.spec.openStackRelease = '2025.1';
    const { sim, cp } = await simulation(t, cp0, 'upgrade');
    t.same((await runPhase(sim, cp, PHASES.converge!, 20)).problems, []);

    const up = await runPhase(sim, cp, PHASES.upgrade!);
    t.same(up.problems, [], 'upgrade: every phase, Complete, nothing deleted or minted');
    t.equal(sim.get(cp)!.status.services[0].release, '2025.2');
    const timeline = up.records.flatMap((r) => formatRound(r, sim.rounds[0]!.at)).join('\n');
    for (const phase of ['Validating', 'UpdatingInfra', 'UpdatingKeystone', 'UpdatingServices', 'Verifying', 'Complete', 'Idle']) {
      t.match(timeline, `updatePhase=${phase}`, `the timeline shows ${phase}`);
    }

    const start = sim.now.getTime();
    const fails = await runPhase(sim, cp, PHASES['upgrade-fails']!);
    t.same(fails.problems, [], 'upgrade-fails: rolled back, the old release Ready, nothing deleted or minted');
    const status = sim.get(cp)!.status;
    t.match(conditionOf(sim.get(cp), 'Ready'), { status: 'False', reason: 'RolledBack', message: /The upgrade to 2026.1 was rolled back \(UpdateDeadlineExceeded/ });
    t.equal(status.services[0].release, '2025.2');
    const rolledBackAt = Date.parse(status.lastUpdate.finishedAt);
    t.ok(rolledBackAt - start >= 15 * 60_000 && rolledBackAt - start < 17 * 60_000, 'rolled back at the 15-minute deadline');

    const refused = await runPhase(sim, cp, PHASES['upgrade-refused']!);
    t.same(refused.problems, [], 'upgrade-refused: DowngradeRefused, the running release stays');
    t.match(conditionOf(sim.get(cp), 'KeystoneReady'), { status: 'False', reason: 'DowngradeRefused', message: /2025.2 → 2025.1/ });
  });
}
