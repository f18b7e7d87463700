// Teardown under K-ORC faults, with the simulator's K-ORC modelled on its deletion path
// (generic/reconciler/controller.go Reconcile → reconcileDelete → resource_actions.go DeleteResource,
// c22784ca): a terminal error does not gate deletion, so an object with an id is deleted (revoked)
// like any other; an object without an id whose adoption lookup is ambiguous can never be deleted,
// only detached. The rule of docs/architecture.md §4.2: detach only what K-ORC cannot delete, revoke
// everything else, detach nothing while Keystone is down.
import t from 'tap';
import { simulation } from './support/simulation.js';
import { PHASES, runPhase, adminCredentialId } from '../src/sim/scenarios.js';
import { AMBIGUOUS_ADOPTION } from '../src/sim/operators.js';
import type { Simulation } from '../src/sim/simulation.js';
import type { ObjectRef } from '../src/sim/cluster.js';
import { managedCP } from './support/sync.js';
import type { Obj } from './support/shared.js';

const ctxOf = (sim: Simulation, cp: ObjectRef) => ({ sim, cp, uid: '', startId: undefined, startMints: 0, records: [] });
const KORC = 'openstack.k-orc.cloud/v1alpha1';
const korcObjects = (sim: Simulation, ns: string) => sim.cluster.list((o) => o.apiVersion === KORC && o.metadata.namespace === ns);
/** Every K-ORC object some answer returned with onDelete: detach (the updates Metacontroller applied). */
const detachedEver = (sim: Simulation) => {
  const out = new Set<string>();
  for (const call of sim.controlPlanes.calls) {
    for (const c of (call.answer.body.children ?? []) as Obj[]) if (c.kind !== 'Region' && c.spec?.managedOptions?.onDelete === 'detach') out.add(`${c.kind}/${c.metadata.name}`);
  }
  return out;
};

async function converged(t: Parameters<typeof simulation>[0]) {
  const { sim, cp } = await simulation(t, managedCP(), 'teardown-faults');
  t.same((await runPhase(sim, cp, PHASES.converge!)).problems, [], 'converged');
  return { sim, cp, acId: adminCredentialId(ctxOf(sim, cp))! };
}

t.test('a live Keystone and only the Endpoint in a terminal error: every object deleted, the admin credential revoked, nothing detached', async (t) => {
  const { sim, cp, acId } = await converged(t);
  sim.world.korcTerminal.set(`Endpoint/${cp.name}-identity-region-ep-public`, { reason: 'UnrecoverableError', message: 'the endpoint cannot be updated' });
  await sim.step();
  const endpoint = sim.get({ apiVersion: KORC, kind: 'Endpoint', namespace: cp.namespace!, name: `${cp.name}-identity-region-ep-public` })!;
  t.match(endpoint.status.conditions.find((c: Obj) => c.type === 'Progressing'), { status: 'False', reason: 'UnrecoverableError' }, 'K-ORC reports the terminal error');
  t.ok(endpoint.status.id, 'on an object with an OpenStack id');
  const catalogBefore = sim.world.openstack.catalog.size;
  sim.cluster.delete(cp, 'user');
  const rounds = await sim.runUntil(() => !sim.get(cp), 60);
  t.ok(rounds, 'the ControlPlane is released');
  t.same(detachedEver(sim), new Set(), 'nothing was detached');
  t.same(sim.world.openstack.revoked, [acId], 'the admin application credential was revoked');
  t.same([...sim.world.openstack.applicationCredentials.keys()], [], 'no credential left valid in Keystone');
  t.equal(sim.world.openstack.catalog.size, catalogBefore - 2, 'the Endpoint and the Service were deleted from the catalog');
  t.same(korcObjects(sim, cp.namespace!), [], 'no K-ORC object left');
});

t.test('an object K-ORC cannot delete (no id, ambiguous adoption): only it is detached; the admin credential is revoked', async (t) => {
  const { sim, cp, acId } = await converged(t);
  // The identity Service as K-ORC would hold it had OpenStack held two of its name when it was
  // created: no id recorded, the adoption lookup ambiguous.
  const service = `Service/${cp.name}-identity-service`;
  sim.world.korcAmbiguousAdoption.add(service);
  const live = sim.get({ apiVersion: KORC, kind: 'Service', namespace: cp.namespace!, name: `${cp.name}-identity-service` })!;
  sim.cluster.updateStatus({ apiVersion: KORC, kind: 'Service', namespace: cp.namespace!, name: live.metadata.name }, { conditions: live.status.conditions }, 'test');
  await sim.step();
  const now = sim.get({ apiVersion: KORC, kind: 'Service', namespace: cp.namespace!, name: live.metadata.name })!;
  t.match(now.status.conditions.find((c: Obj) => c.type === 'Progressing'), { status: 'False', reason: 'InvalidConfiguration', message: AMBIGUOUS_ADOPTION });
  sim.cluster.delete(cp, 'user');
  const rounds = await sim.runUntil(() => !sim.get(cp), 60);
  t.ok(rounds, 'the ControlPlane is released');
  t.same(detachedEver(sim), new Set([service]), 'only the object K-ORC cannot delete was detached');
  t.same(sim.world.openstack.revoked, [acId], 'the admin application credential was revoked');
  t.same([...sim.world.openstack.applicationCredentials.keys()], [], 'no credential left valid in Keystone');
  t.same(korcObjects(sim, cp.namespace!), [], 'no K-ORC object left');
});

t.test('Keystone down with a terminal error: nothing detached, held; once Keystone answers, everything revoked', async (t) => {
  const { sim, cp, acId } = await converged(t);
  sim.world.korcTerminal.set(`Endpoint/${cp.name}-identity-region-ep-public`, { reason: 'UnrecoverableError', message: 'the endpoint cannot be updated' });
  sim.world.korcAmbiguousAdoption.add(`Service/${cp.name}-identity-service`);
  const service = sim.get({ apiVersion: KORC, kind: 'Service', namespace: cp.namespace!, name: `${cp.name}-identity-service` })!;
  sim.cluster.updateStatus({ apiVersion: KORC, kind: 'Service', namespace: cp.namespace!, name: service.metadata.name }, { conditions: service.status.conditions }, 'test');
  await sim.step();
  sim.world.down.add(`Keystone/${cp.name}-keystone`);
  await sim.runUntil(() => true, 3);
  sim.cluster.delete(cp, 'user');
  await sim.runUntil(() => false, 20);
  t.ok(sim.get(cp), 'held while Keystone is down');
  t.same(detachedEver(sim), new Set(), 'nothing detached while Keystone is down');
  t.same(sim.world.openstack.revoked, [], 'nothing revoked yet');
  sim.world.down.delete(`Keystone/${cp.name}-keystone`);
  const rounds = await sim.runUntil(() => !sim.get(cp), 60);
  t.ok(rounds, 'released once Keystone answers');
  t.same(detachedEver(sim), new Set([`Service/${cp.name}-identity-service`]), 'then only the object K-ORC cannot delete was detached');
  t.same(sim.world.openstack.revoked, [acId], 'the admin application credential was revoked');
  t.same(korcObjects(sim, cp.namespace!), [], 'no K-ORC object left');
});
