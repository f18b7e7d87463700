// An OpenBao that lost what it held (docs/architecture.md §3.9): once an ExternalSecret of the
// ControlPlane reports a failed read (ESO's exact words, k8s/eso.ts ESO_READ_FAILURE), every
// PushSecret of the ControlPlane is asked to push again, the ExternalSecret reading a backup is
// asked to read again only after that push is proven, the Ready message names the paths, and
// nothing observed is dropped or minted. Then the whole story in the simulator (src/sim/
// openbao-phases.ts), where OpenBao loses everything.
import t from 'tap';
import { testServer } from './support/server.js';
import { converge, step, conditionOf, ids, type World } from './support/sync.js';
import { clusterSecretStore, healthy, type StatusOf } from './support/world.js';
import { fixtureControlPlane, type Obj } from './support/shared.js';
import { simulation } from './support/simulation.js';
import { PHASES, runPhase, adminCredentialId } from '../src/sim/scenarios.js';
import { OPENBAO_REPUSH_BOUND_SECONDS } from '../src/sim/openbao-phases.js';
import { ESO_READ_FAILURE, esoResourceVersion } from '../src/k8s/eso.js';
import { remoteKeys, serviceRemoteKeys } from '../src/controlplane/names.js';

const ANNOTATION = 'c5c3.io/openbao-read-failed-at';
const FAILED_AT = '2026-11-21T11:00:00Z';

const servicesCP = () => fixtureControlPlane('controlplane-services.yaml');
const byName = (children: Obj[], kind: string, name: string) => children.find((c) => c.kind === kind && c.metadata.name === name);
const failedRead = (since = FAILED_AT): Obj => ({ conditions: [{ type: 'Ready', status: 'False', reason: ESO_READ_FAILURE.reason, message: ESO_READ_FAILURE.message, lastTransitionTime: since }] });

/** The world with the ExternalSecret `name` reporting a failed read (ESO keeps the target Secret). */
function failing(world: World, name: string, since = FAILED_AT): World {
  return { ...world, children: world.children.map((c) => (c.kind === 'ExternalSecret' && c.metadata.name === name ? { ...c, status: { ...c.status, ...failedRead(since) } } : c)) };
}

/** ESO did nothing: every child keeps the status it had. */
const idle: StatusOf = () => undefined;

/** One pass, the related objects as they were (the Secrets ESO made stay while reads fail: deletionPolicy Retain). */
const pass = (app: Parameters<typeof step>[0], world: World, statusOf: StatusOf = idle, base: Obj[] = world.related) => step(app, world, statusOf, base);

async function servicesWorld() {
  const { app } = await testServer();
  const cp = servicesCP();
  const world = await converge(app, cp);
  return { app, cp, world, name: cp.metadata.name as string, ns: cp.metadata.namespace as string };
}

t.test('a failed read of the DB credential: every backup pushed again, the paths named, nothing dropped or minted', async (t) => {
  const { app, world, name, ns } = await servicesWorld();
  t.equal(conditionOf(world.response.status, 'Ready').status, 'True', 'converged');
  const next = await pass(app, failing(world, `${name}-keystone-db-credentials`));
  const answer = next.response;
  t.same(ids(answer.children), ids(world.children), 'every observed child answered, none added');
  const pushes = answer.children.filter((c) => c.kind === 'PushSecret');
  t.same(pushes.map((p) => p.metadata.name).sort(), [`${name}-admin-app-credential-backup`, `${name}-glance-service-user-backup`, `${name}-placement-service-user-backup`]);
  for (const p of pushes) t.equal(p.metadata.annotations?.[ANNOTATION], FAILED_AT, `${p.metadata.name} asked to push again`);
  // The clouds.yaml ExternalSecret did not fail: nothing asks it to read.
  t.equal(byName(answer.children, 'ExternalSecret', 'k-orc-clouds-yaml')!.metadata.annotations?.[ANNOTATION], undefined);
  const ready = conditionOf(answer.status, 'Ready');
  t.equal(ready.status, 'False');
  t.equal(ready.reason, 'NotAllReady');
  t.match(ready.message, `to be restored by a person, who put them there: ${remoteKeys(ns, name).db}`);
  for (const path of [remoteKeys(ns, name).adminAppCredential, serviceRemoteKeys(ns, name, 'placement').password, serviceRemoteKeys(ns, name, 'glance').password]) {
    t.match(ready.message, path, `Ready names the backup ${path} pushed again`);
  }
  t.equal(conditionOf(answer.status, 'DBCredentialsReady').reason, 'WaitingForDBCredentialSecret', 'the stage waits (the chain stops there)');
  t.equal(answer.status.adminApplicationCredential?.id, world.response.status.adminApplicationCredential?.id, 'the same credential');
  const ac = byName(answer.children, 'ApplicationCredential', `${name}-admin-app-credential`);
  t.same(ac?.spec, byName(world.children, 'ApplicationCredential', `${name}-admin-app-credential`)?.spec, 'the admin credential kept as it is');
  // The same failure again (ESO retrying): the same answer, no second request.
  const again = await pass(app, next);
  t.same(again.response.children, answer.children, 'a failure that goes on asks nothing more');
});

t.test('the backup of a failed read is read again only after its push is proven; once read, nothing moves', async (t) => {
  const { app, world } = await servicesWorld();
  const es = 'k-orc-clouds-yaml';
  const asked = (w: World) => byName(w.response.children, 'ExternalSecret', es)!.metadata.annotations?.[ANNOTATION];
  const first = await pass(app, failing(world, es));
  t.equal(asked(first), undefined, 'not read again before the push');
  t.ok(first.response.children.filter((c) => c.kind === 'PushSecret').every((p) => p.metadata.annotations?.[ANNOTATION] === FAILED_AT), 'every backup asked to push again');
  const waiting = await pass(app, first);
  t.equal(asked(waiting), undefined, 'still not: the push is not proven (ESO has not pushed the new metadata)');
  // ESO pushed: each PushSecret's status is a push of its metadata as it is now.
  const pushed: World = { ...waiting, children: waiting.children.map((c) => (c.kind === 'PushSecret' ? { ...c, status: { ...c.status, syncedResourceVersion: esoResourceVersion(c) } } : c)) };
  const read = await pass(app, pushed);
  t.equal(asked(read), FAILED_AT, 'asked to read again once the push is proven');
  // ESO read it (Ready again): the annotations stay as observed, pass after pass.
  const recovered = await pass(app, read, healthy);
  const again = await pass(app, recovered, healthy);
  for (const kind of ['PushSecret', 'ExternalSecret']) {
    for (const c of again.response.children.filter((o) => o.kind === kind)) {
      const observed = recovered.children.find((o) => o.kind === kind && o.metadata.name === c.metadata.name)!;
      t.equal(c.metadata.annotations?.[ANNOTATION], observed.metadata.annotations?.[ANNOTATION], `${kind} ${c.metadata.name} keeps its annotation as observed`);
    }
  }
  t.equal(conditionOf(again.response.status, 'Ready').status, 'True', 'Ready again, nothing named');
  t.notMatch(conditionOf(again.response.status, 'Ready').message, 'OpenBao');
});

t.test('the request only moves forward; a ClusterSecretStore that is not Ready is no loss', async (t) => {
  const { app, world, name } = await servicesWorld();
  const db = `${name}-keystone-db-credentials`;
  const later = await pass(app, failing(world, db, '2026-11-21T11:30:00Z'));
  for (const p of later.response.children.filter((c) => c.kind === 'PushSecret')) t.equal(p.metadata.annotations?.[ANNOTATION], '2026-11-21T11:30:00Z');
  // An older failure of another ExternalSecret does not move it back.
  const next = await pass(app, failing(later, `${name}-keystone-admin-credentials`, '2026-11-21T10:00:00Z'));
  for (const p of next.response.children.filter((c) => c.kind === 'PushSecret')) t.equal(p.metadata.annotations?.[ANNOTATION], '2026-11-21T11:30:00Z', `${p.metadata.name}: not moved back`);
  t.match(conditionOf(next.response.status, 'Ready').message, `${remoteKeys(world.parent.metadata.namespace, name).adminPassword}, ${remoteKeys(world.parent.metadata.namespace, name).db}`, 'both named');

  const store = world.related.map((r) => (r.kind === 'ClusterSecretStore' ? clusterSecretStore(false) : r));
  const notReady = await pass(app, failing(world, db), idle, store);
  for (const p of notReady.response.children.filter((c) => c.kind === 'PushSecret')) t.equal(p.metadata.annotations?.[ANNOTATION], undefined, `${p.metadata.name}: no push asked while the store is not Ready`);
  t.notMatch(conditionOf(notReady.response.status, 'Ready').message, 'OpenBao (ClusterSecretStore');
});

t.test("another SecretSyncedError (not ESO's provider read) asks nothing", async (t) => {
  const { app, world, name } = await servicesWorld();
  const db = `${name}-keystone-db-credentials`;
  const other: World = { ...world, children: world.children.map((c) => (c.kind === 'ExternalSecret' && c.metadata.name === db ? { ...c, status: { conditions: [{ ...failedRead().conditions[0], message: 'could not update secret' }] } } : c)) };
  const next = await pass(app, other);
  for (const p of next.response.children.filter((c) => c.kind === 'PushSecret')) t.equal(p.metadata.annotations?.[ANNOTATION], undefined);
});

t.test('simulated: OpenBao restarted empty — backups pushed again within a minute of the first failed read, the rest named, then restored by a person', async (t) => {
  const { sim, cp } = await simulation(t, servicesCP(), 'openbao');
  t.same((await runPhase(sim, cp, PHASES.converge!)).problems, []);
  const id = adminCredentialId({ sim, cp, uid: '', startId: undefined, startMints: 0, records: [] });
  const lost = await runPhase(sim, cp, PHASES['openbao-lost']!);
  t.same(lost.problems, [], `nothing deleted or minted, every backup back within ${OPENBAO_REPUSH_BOUND_SECONDS} s, the paths named`);
  const ns = cp.namespace!;
  t.ok(sim.world.openbao.get(remoteKeys(ns, cp.name).adminAppCredential)?.['clouds.yaml'], 'the admin credential backup is in OpenBao again');
  t.notOk(sim.world.openbao.get(remoteKeys(ns, cp.name).db), 'what a person put there is not invented');
  const restored = await runPhase(sim, cp, PHASES['openbao-restored']!);
  t.same(restored.problems, []);
  t.equal(adminCredentialId({ sim, cp, uid: '', startId: undefined, startMints: 0, records: [] }), id, 'the same credential all along');
  t.equal(sim.world.openstack.mints.length, 1, 'minted once, at the start');
});
