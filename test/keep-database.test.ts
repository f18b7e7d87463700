// Deleting a ControlPlane and keeping its managed MariaDB (README "Deleting a ControlPlane and
// keeping its database", issue 56), under the simulated Metacontroller (src/sim/metacontroller.ts,
// modelled on its ClaimChildren: a controlled child whose labels no longer match the parent's
// selector is released, an orphan that matches is adopted). What the hooks do with a MariaDB that
// lost its controller-uid label: Metacontroller removes the owner reference, and the
// infrastructure stage then finds the MariaDB among the related objects, not the children, and
// reads it as an existing one (docs/architecture.md §2.3): it never emits it again, so
// Metacontroller neither re-adopts it (no label put back) nor deletes it, the ControlPlane stays
// Ready on its readiness, and the garbage collector leaves it when the ControlPlane goes. Without
// the release, the default of seed 000 holds: the MariaDB goes with its ControlPlane.
import t from 'tap';
import { simulation } from './support/simulation.js';
import { managedCP } from './support/sync.js';
import { PHASES, runPhase } from '../src/sim/scenarios.js';
import { controlPlaneReady, isTrue, type Phase, type PhaseContext } from '../src/sim/phase.js';
import { CONTROLLER_UID } from '../src/sim/metacontroller.js';
import type { Simulation } from '../src/sim/simulation.js';
import type { Obj } from './support/shared.js';

const mariadbs = (sim: Simulation): Obj[] => sim.cluster.list((o) => o.kind === 'MariaDB');
const deletedMariaDBs = (ctx: PhaseContext) =>
  ctx.records.flatMap((r) => r.changes).filter((c) => c.object.startsWith('MariaDB/') && (c.verb === 'deleting' || c.verb === 'deleted'));

/** `kubectl label mariadb <name> controller-uid-`, then rounds until Metacontroller released it and the ControlPlane is Ready. */
const release = (name: string): Phase => ({
  name: 'release-database',
  title: `the MariaDB ${name} loses its controller-uid label`,
  act: (ctx) => {
    const db = mariadbs(ctx.sim).find((o) => o.metadata.name === name) as Obj;
    const { [CONTROLLER_UID]: _dropped, ...labels } = db.metadata.labels ?? {};
    ctx.sim.cluster.update({ ...db, metadata: { ...db.metadata, labels } }, 'user');
  },
  done: (ctx) => (mariadbs(ctx.sim).find((o) => o.metadata.name === name)?.metadata.ownerReferences ?? []).length === 0 && controlPlaneReady(ctx),
  verify: (ctx) => deletedMariaDBs(ctx).map((c) => `${c.object} ${c.verb}`),
});

t.test('released by its label, the managed MariaDB outlives its ControlPlane: unowned, never re-adopted or deleted', async (t) => {
  const { sim, cp } = await simulation(t, managedCP(), 'keep-database');
  t.same((await runPhase(sim, cp, PHASES.converge as Phase)).problems, []);
  const uid = sim.get(cp)?.metadata.uid;
  const [db, ...more] = mariadbs(sim);
  t.equal(more.length, 0, 'one managed MariaDB');
  t.equal(db?.metadata.labels?.[CONTROLLER_UID], uid, 'Metacontroller selects it by controller-uid');
  t.ok((db?.metadata.ownerReferences ?? []).some((r: Obj) => r.controller && r.uid === uid), 'controlled by the ControlPlane');
  const name = String(db?.metadata.name);

  t.same((await runPhase(sim, cp, release(name))).problems, [], 'released, nothing deleted, the ControlPlane Ready');
  t.notOk(sim.controlPlanes.observedChildren(sim.get(cp) as Obj).some((o) => o.kind === 'MariaDB'), 'no longer a child');

  // Many resyncs later: still unowned and unlabelled (the hooks do not emit it, so Metacontroller
  // neither puts the label back nor adopts it), the same object, the ControlPlane Ready on its readiness.
  const first = sim.rounds.length;
  await sim.runUntil(() => false, 30);
  const kept = mariadbs(sim).find((o) => o.metadata.name === name);
  t.equal(kept?.metadata.uid, db?.metadata.uid, 'the same MariaDB');
  t.same(kept?.metadata.ownerReferences ?? [], [], 'no owner reference');
  t.notOk(kept?.metadata.labels?.[CONTROLLER_UID], 'no controller-uid label');
  t.same(sim.rounds.slice(first).flatMap((r) => r.changes).filter((c) => c.object.startsWith('MariaDB/')), [], 'not touched by anyone');
  t.ok(isTrue(sim.get(cp), 'InfrastructureReady') && controlPlaneReady({ sim, cp } as PhaseContext), 'InfrastructureReady and Ready');

  t.same((await runPhase(sim, cp, PHASES.delete as Phase)).problems, [], 'the ordered teardown');
  t.notOk(sim.get(cp), 'the ControlPlane is gone');
  const after = mariadbs(sim);
  t.same(after.map((o) => [o.metadata.name, o.metadata.uid, o.metadata.ownerReferences ?? [], o.metadata.deletionTimestamp]), [[name, db?.metadata.uid, [], undefined]], 'the MariaDB is still there, unowned, not Terminating');
});

t.test('by default (seed 000) the managed MariaDB goes with its ControlPlane', async (t) => {
  const { sim, cp } = await simulation(t, managedCP(), 'keep-database-default');
  t.same((await runPhase(sim, cp, PHASES.converge as Phase)).problems, []);
  t.equal(mariadbs(sim).length, 1);
  t.same((await runPhase(sim, cp, PHASES.delete as Phase)).problems, []);
  t.same(mariadbs(sim), [], 'deleted with it');
});
