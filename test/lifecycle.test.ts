// Whole lifecycles under the Metacontroller model with simulated operators (src/sim/): the
// guarantees of issue 7, item 4, for a managed and a brownfield ControlPlane.
import t, { type Test } from 'tap';
import { simulation as simulate } from './support/simulation.js';
import type { Simulation } from '../src/sim/simulation.js';
import { PHASES, SCENARIOS, runPhase, adminCredentialId, conditionOf } from '../src/sim/scenarios.js';
import { aggregateNames } from '../src/sim/aggregate-phases.js';
import { healthyStatusOf } from '../src/sim/operators.js';
import type { ObjectRef } from '../src/sim/cluster.js';
import { brownfieldCP, managedCP } from './support/sync.js';
import type { Obj } from './support/shared.js';

const simulation = (t: Test, cpInput: Obj) => simulate(t, cpInput, 'lifecycle');

const ctxOf = (sim: Simulation, cp: ObjectRef) => ({ sim, cp, uid: '', startId: undefined, startMints: 0, records: [] });
const childChanges = (records: { changes: { verb: string; object: string; by: string }[] }[]) => records.flatMap((r) => r.changes);

for (const [mode, input] of [['managed', managedCP], ['brownfield', brownfieldCP]] as const) {
  t.test(`${mode}: fresh → Ready, rotation, re-mint, outage, deletion`, async (t) => {
    const { sim, cp } = await simulation(t, input());

    const fresh = await runPhase(sim, cp, PHASES.converge!, 20);
    t.same(fresh.problems, [], 'fresh ControlPlane converges');
    // 13: the identity Endpoint is created a round after its Region has an id (catalog-region.ts).
    t.ok(fresh.rounds! <= 13, `Ready within 13 rounds (took ${fresh.rounds})`);
    t.equal(sim.world.openstack.mints.length, 1, 'one credential minted');
    const firstId = adminCredentialId(ctxOf(sim, cp));

    const atRest = await sim.step();
    t.same([atRest.changes, atRest.conditions, atRest.errors], [[], [], []], 'at rest, a further pass changes nothing');
    // The HTTP-level tests' healthy children (test/support/world.ts `healthy`) carry what these operators wrote.
    const parentUid = sim.get(cp)!.metadata.uid;
    for (const c of sim.cluster.list((o) => (o.metadata.ownerReferences ?? []).some((r: Obj) => r.controller && r.uid === parentUid))) {
      const at = c.status?.refreshTime ? new Date(c.status.refreshTime) : sim.now;
      t.same(healthyStatusOf(c, at, c.status?.id), c.status, `${c.kind}/${c.metadata.name}: healthyStatusOf is the status its operator wrote`);
    }

    const rotated = await runPhase(sim, cp, PHASES['rotate-password']!);
    t.same(rotated.problems, [], 'password rotation: exactly one re-mint, Ready again');
    const secondId = adminCredentialId(ctxOf(sim, cp));
    t.not(secondId, firstId, 'a new credential id');
    t.same(sim.world.openstack.revoked, [firstId], 'the old credential revoked');
    t.same([...sim.world.openstack.applicationCredentials.keys()], [secondId], 'one live credential');

    const remint = await runPhase(sim, cp, PHASES.remint!);
    t.same(remint.problems, [], 'reMint request: exactly one re-mint, RotationComplete');
    t.not(adminCredentialId(ctxOf(sim, cp)), secondId);
    const rest = await sim.step();
    t.same(rest.changes, [], 'the CredentialRotation does not rotate again');

    for (const name of ['outage', 'recover']) {
      const phase = await runPhase(sim, cp, PHASES[name]!);
      t.same(phase.problems, [], `${name}: nothing deleted, no mint`);
    }

    const uid = sim.get(cp)!.metadata.uid;
    const deletion = await runPhase(sim, cp, PHASES.delete!);
    t.same(deletion.problems, [], 'deletion: K-ORC objects first, credentials revoked');
    const changes = childChanges(deletion.records);
    const gone = (kind: string) => changes.findIndex((c) => c.verb === 'deleted' && c.object.startsWith(`${kind}/`));
    t.ok(gone('ApplicationCredential') < gone('Keystone') && gone('User') < gone('Keystone'), 'the AC and imports are gone before Keystone');
    t.equal(sim.cluster.list((o) => (o.metadata.ownerReferences ?? []).some((r: Obj) => r.uid === uid)).length, 0, 'no child left');
  });
}

t.test('an observed child is never deleted while the ControlPlane lives, except the AC of a re-mint', async (t) => {
  const { sim, cp } = await simulation(t, managedCP());
  for (const name of ['converge', 'rotate-password', 'remint', 'outage', 'recover']) await runPhase(sim, cp, PHASES[name]!);
  const deleted = childChanges(sim.rounds).filter((c) => c.by === 'metacontroller' && c.verb === 'deleting');
  t.ok(deleted.length > 0);
  t.same([...new Set(deleted.map((c) => c.object))], ['ApplicationCredential/controlplane-keystone-admin-app-credential']);
});

t.test('a phase that cannot reach its goal reports it', async (t) => {
  const { sim, cp } = await simulation(t, managedCP());
  sim.world.down.add('MariaDB/openstack-db');
  const result = await runPhase(sim, cp, PHASES.converge!, 10);
  t.equal(result.rounds, undefined);
  t.match(result.problems, [/did not reach its goal within 10 rounds/]);
});

for (const [mode, input] of [['managed', managedCP], ['brownfield', brownfieldCP]] as const) {
  t.test(`${mode}: a SecretAggregate over the ControlPlane's credentials follows them, waits whole, goes alone`, async (t) => {
    const { sim, cp } = await simulation(t, input());
    t.same((await runPhase(sim, cp, PHASES.converge!)).problems, []);
    const names = aggregateNames(cp);
    const target = () => sim.get({ apiVersion: 'v1', kind: 'Secret', namespace: cp.namespace, name: names.target });
    const reason = () => conditionOf(sim.get({ apiVersion: 'c5c3.io/v1alpha1', kind: 'SecretAggregate', namespace: cp.namespace, name: names.aggregate }), 'Ready')?.reason;
    const dbKeys = mode === 'managed' ? ['password', 'username'] : ['password'];
    const published: Record<string, string> = {};
    for (const name of SCENARIOS.aggregate!) {
      const result = await runPhase(sim, cp, PHASES[name]!);
      t.same(result.problems, [], `${name}: ${PHASES[name]!.title}`);
      if (name === 'aggregate') {
        t.same(Object.keys(target()!.data).sort(), [...dbKeys, 'clouds.yaml', 'transport_url'].sort(), 'every db key, the selected transport_url, the app-credential clouds.yaml');
        t.equal(reason(), 'Aggregated');
        const rest = await sim.step();
        t.same([rest.changes, rest.conditions], [[], []], 'at rest, a further pass changes nothing');
        Object.assign(published, target()!.data);
      }
      if (name === 'remove-source-key') t.same(target()!.data, published, 'the target kept its last content while waiting');
      if (name === 'aggregate-current') {
        const cloud = sim.get({ apiVersion: 'v1', kind: 'Secret', namespace: cp.namespace, name: `${cp.name}-admin-app-credential` })!.data['clouds.yaml'];
        t.equal(target()!.data['clouds.yaml'], cloud, 'after the password rotation the aggregate holds the new credential');
        t.not(cloud, published['clouds.yaml']);
      }
    }
    t.notOk(target(), 'the target went with the aggregate');
    t.ok(sim.get(cp) && conditionOf(sim.get(cp), 'Ready')?.status === 'True', 'the ControlPlane is untouched');
    const deletedByMetacontroller = childChanges(sim.rounds).filter((c) => c.by === 'metacontroller' && c.verb === 'deleting' && c.object.startsWith('Secret/'));
    t.same(deletedByMetacontroller, [], 'Metacontroller never deleted a Secret (the target went by garbage collection)');
  });
}
