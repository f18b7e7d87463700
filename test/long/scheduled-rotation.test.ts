// Scheduled rotation (issue 19) through the hooks, Metacontroller's model and the stand-in
// operators (src/sim/scheduled-phases.ts): 400 simulated days of make-before-break rotations with
// K-ORC authenticating after every round, the status fields, then a 200-day outage past expiry
// that ends in exactly one break-before-make re-mint.
import t from 'tap';
import { simulation } from '../support/simulation.js';
import { PHASES, runPhase, conditionOf } from '../../src/sim/scenarios.js';
import { SCHEDULE } from '../../src/sim/scheduled-phases.js';
import { DAY_MS } from '../../src/controlplane/credential/schedule.js';
import { managedCP } from '../support/sync.js';
import type { Obj } from '../support/shared.js';

t.test('scheduled: 400 days, four make-before-break rotations, never without a credential K-ORC can use', async (t) => {
  const { sim, cp } = await simulation(t, managedCP(), 'scheduled');
  t.same((await runPhase(sim, cp, PHASES.converge!)).problems, []);
  const scheduled = await runPhase(sim, cp, PHASES.scheduled!);
  t.same(scheduled.problems, [], 'authenticated after every round, at most two ACs, four mints, every superseded one revoked');
  const os = sim.world.openstack;
  t.equal(os.mints.length, 5, 'the first credential and four scheduled replacements');
  t.same(os.revoked, os.mints.slice(0, 4), 'every superseded credential revoked, in order');
  t.ok(scheduled.rounds! < 1000, `400 days in ${scheduled.rounds} rounds (the clock jumps to the next deadline)`);

  // The timeline: mint alongside, switch, grace, revoke, in this order for each rotation.
  const messages = scheduled.records.flatMap((r) => r.conditions).filter((c) => c.type === 'KORCReady').map((c) => c.message ?? '');
  const order = ['minting replacement', 'publishing replacement', 'is revoked at', 'revoking superseded'];
  let at = 0;
  for (let rotation = 0; rotation < 4; rotation++) {
    for (const what of order) {
      const found = messages.findIndex((m, i) => i >= at && m.includes(what));
      t.ok(found >= 0, `rotation ${rotation + 1}: ${what}`);
      at = found;
    }
  }

  const parent = sim.get(cp)!;
  const status = parent.status.adminApplicationCredential;
  const ac = sim.cluster.list((o) => o.kind === 'ApplicationCredential' && o.status?.id === status.id)[0] as Obj;
  t.equal(status.expiresAt, ac.spec.resource.expiresAt, 'status.expiresAt is the live AC spec.resource.expiresAt');
  const lifetime = Date.parse(status.expiresAt) - Date.parse(ac.metadata.creationTimestamp);
  t.ok(Math.abs(lifetime - SCHEDULE.intervalDays * DAY_MS) < 60_000, 'expiresAt = mint time + interval');
  t.equal(Date.parse(status.rotationEligibleAt), Date.parse(status.expiresAt) - SCHEDULE.preRotationDays * DAY_MS, 'rotationEligibleAt = expiresAt − preRotationDays');
  t.notOk(status.superseded, 'no superseded credential at rest');
  t.equal(conditionOf(parent, 'Ready')?.status, 'True');
  const cr = sim.cluster.list((o) => o.kind === 'CredentialRotation')[0]!;
  t.equal(cr.status.nextRotationTime, status.rotationEligibleAt, 'the CredentialRotation reports the next rotation');
  t.equal(cr.status.lastRotationTime, status.lastRotation, 'and the last one');
  t.match(conditionOf(cr, 'Ready'), { status: 'True', message: /rotates the credential on this schedule, next at/ });

  const outage = await runPhase(sim, cp, PHASES['scheduled-outage']!);
  t.same(outage.problems, [], 'one break-before-make re-mint, with a reason that says the credential expired');
  t.equal(os.mints.length, 6, 'one rotation after 200 days down, not two');
  t.equal(os.applicationCredentials.size, 1);
});
