// Taking over ControlPlanes from the reference Go operator (docs/hooks.md "Taking over from the
// reference operator", docs/architecture.md §3.4): the runbook's steps on a world built the way the Go
// operator leaves it converge with zero deletions, zero mints and every child kept (same uid);
// each step is needed; and the sync hook adopts a reference-operator AC at the HTTP level.
import t, { type Test } from 'tap';
import { simulation as simulate } from './support/simulation.js';
import type { Simulation } from '../src/sim/simulation.js';
import { PHASES, runPhase, adminCredentialId, conditionOf } from '../src/sim/scenarios.js';
import { REFERENCE_FINALIZER } from '../src/sim/takeover-phases.js';
import { brownfieldCP, managedCP, sync } from './support/sync.js';
import { testServer } from './support/server.js';
import { clusterSecretStore } from './support/world.js';
import { acOf, find, names, sha256 } from './support/korc.js';
import type { Obj } from './support/shared.js';

const simulation = (t: Test, cpInput: Obj) => simulate(t, cpInput, 'takeover');

const controlled = (sim: Simulation, uid: string) => sim.cluster.list((o) => (o.metadata.ownerReferences ?? []).some((r: Obj) => r.controller && r.uid === uid));

for (const [mode, input] of [['managed', managedCP], ['brownfield', brownfieldCP]] as const) {
  t.test(`${mode}: the runbook takes over with zero deletions and zero mints`, async (t) => {
    const { sim, cp } = await simulation(t, input());
    t.same((await runPhase(sim, cp, PHASES.converge!)).problems, []);
    const id = adminCredentialId({ sim, cp, uid: '', startId: undefined, startMints: 0, records: [] });
    t.same((await runPhase(sim, cp, PHASES['reference-operator']!)).problems, []);
    const uid = sim.get(cp)!.metadata.uid;
    const ac = controlled(sim, uid).find((o) => o.kind === 'ApplicationCredential')!;
    t.notOk(ac.metadata.annotations?.['c5c3.io/secret-sha256'], 'the world has none of our bookkeeping');
    t.same(sim.get(cp)!.metadata.finalizers, [REFERENCE_FINALIZER]);

    const takeover = await runPhase(sim, cp, PHASES.takeover!);
    t.same(takeover.problems, [], 'converged: nothing deleted or released, nothing minted, the same objects');
    t.equal(sim.world.openstack.mints.length, 1, 'still the one credential minted at the start');
    const adopted = controlled(sim, uid).find((o) => o.kind === 'ApplicationCredential')!;
    t.equal(adopted.metadata.uid, ac.metadata.uid, 'the same AC object');
    t.equal(conditionOf(sim.get(cp), 'KORCReady')?.status, 'True');
    t.match(adopted.metadata.annotations, { 'c5c3.io/secret-sha256': /^[0-9a-f]{64}$/, 'c5c3.io/rotation-requests': '' }, 'bookkeeping stamped');
    t.same(adopted.spec.resource, ac.spec.resource, 'its resource untouched (immutable in K-ORC)');
    t.equal(adminCredentialId({ sim, cp, uid, startId: undefined, startMints: 0, records: [] }), id);
    t.ok(sim.get(cp)!.metadata.finalizers.every((f: string) => f !== REFERENCE_FINALIZER), "Metacontroller's finalizer only");

    // Life goes on: a requested re-mint mints exactly once; deletion tears down in order.
    t.same((await runPhase(sim, cp, PHASES.remint!)).problems, [], 'one re-mint after the takeover');
    t.same((await runPhase(sim, cp, PHASES.delete!)).problems, [], 'ordered teardown, credentials revoked');
  });
}

t.test('each step of the runbook is needed', async (t) => {
  t.test('without the controller-uid labels Metacontroller releases the children and nothing converges', async (t) => {
    const { sim, cp } = await simulation(t, managedCP());
    await runPhase(sim, cp, PHASES.converge!);
    await runPhase(sim, cp, PHASES['reference-operator']!);
    const uid = sim.get(cp)!.metadata.uid;
    const before = controlled(sim, uid).length;
    const mints = sim.world.openstack.mints.length;
    sim.controlPlanes.paused = false;
    const first = sim.rounds.length;
    await sim.runUntil(() => false, 20);
    const changes = sim.rounds.slice(first).flatMap((r) => r.changes);
    t.ok(changes.some((c) => c.by === 'metacontroller (released)'), 'children released (owner reference removed)');
    t.ok(before > 0 && controlled(sim, uid).length < before, 'fewer children owned than before');
    t.ok(changes.some((c) => c.object.includes('AlreadyExists')), 'its creates hit AlreadyExists');
    t.not(conditionOf(sim.get(cp), 'Ready')?.status, 'True', 'the ControlPlane does not converge');
    t.equal(sim.world.openstack.mints.length, mints, 'nothing minted either (the AC create is swallowed)');
  });

  t.test('with the reference finalizer left on, a deleted ControlPlane never goes', async (t) => {
    const { sim, cp } = await simulation(t, managedCP());
    await runPhase(sim, cp, PHASES.converge!);
    await runPhase(sim, cp, PHASES['reference-operator']!);
    const uid = sim.get(cp)!.metadata.uid;
    for (const o of controlled(sim, uid)) sim.cluster.update({ ...o, metadata: { ...o.metadata, labels: { ...o.metadata.labels, 'controller-uid': uid } } }, 'user');
    sim.controlPlanes.paused = false;
    await sim.runUntil(() => false, 10);
    sim.cluster.delete(cp, 'user');
    await sim.runUntil(() => false, 40);
    t.ok(sim.get(cp), 'the ControlPlane is still there');
    t.same(sim.get(cp)!.metadata.finalizers, [REFERENCE_FINALIZER], "Metacontroller released its own finalizer; the reference operator's holds it");
  });
  t.end();
});

t.test('HTTP: a sync of a reference-operator AC adopts it, keeps everything and stamps the bookkeeping', async (t) => {
  const { sim, cp } = await simulation(t, managedCP());
  await runPhase(sim, cp, PHASES.converge!);
  await runPhase(sim, cp, PHASES['reference-operator']!);
  const parent = sim.get(cp)!;
  const children: Obj[] = controlled(sim, parent.metadata.uid).map((o) => ({ ...o, metadata: { ...o.metadata, labels: { ...o.metadata.labels, 'controller-uid': parent.metadata.uid } } }));
  const secretNames = [`${cp.name}-keystone-admin-credentials`, 'k-orc-clouds-yaml'];
  const related = [clusterSecretStore(), ...sim.cluster.list((o) => o.kind === 'Secret' && secretNames.includes(o.metadata.name))];
  const { app } = await testServer();
  t.teardown(() => app.close());
  const res = await sync(app, parent, children, related);
  const N = names(cp.name);
  t.same(
    children.map((c) => `${c.kind}/${c.metadata.name}`).filter((id) => !res.children.some((d) => `${d.kind}/${d.metadata.name}` === id)),
    [],
    'every observed child is in the answer',
  );
  const ac = acOf(res.children)!;
  const value = Buffer.from(find(children, 'Secret', N.ac)!.data.value, 'base64').toString('utf8');
  t.same(ac.spec.resource, find(children, 'ApplicationCredential')!.spec.resource, 'kept with its own resource');
  t.equal(ac.metadata.annotations['c5c3.io/secret-sha256'], sha256(value), 'secret hash stamped from the Secret');
  t.equal(find(res.children, 'Secret', N.ac)!.metadata.annotations['c5c3.io/minted-secret-sha256'], sha256(value), 'the Secret records it as used');
  t.match(conditionOf(res, 'KORCReady'), { status: 'True', message: /adopted: c5c3.io\/rotation-requests, c5c3.io\/secret-sha256 stamped/ });
});
