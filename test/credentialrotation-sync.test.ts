// POST /credentialrotation/sync and the rotation handshake with the ControlPlane sync hook
// (docs/architecture.md §3.6, §3.7): every row of the handshake table (docs/architecture.md §3.7), the one-shot
// latch, completion, and the end-to-end handshake (never lost, never replayed).
import t from 'tap';
import { testServer, post } from './support/server.js';
import { ADMIN_PASSWORD, applyResponse, clusterSecretStore, healthy, objectMap, orcStatus } from './support/world.js';
import { converge, conditionOf, managedCP, sync, type World } from './support/sync.js';
import { acOf } from './support/korc.js';
import type { Obj } from './support/shared.js';
import type { HooksServer } from '../src/server.js';

type Answer = { status: Obj; attachments: Obj[]; resyncAfterSeconds?: number; labels?: unknown; annotations?: unknown };

const rotation = (spec: Obj = { target: 'adminApplicationCredential', reMint: true }, generation = 1, status?: Obj, name = 'rotate-admin'): Obj => ({
  apiVersion: 'c5c3.io/v1alpha1',
  kind: 'CredentialRotation',
  metadata: { name, namespace: 'openstack', uid: `uid-${name}`, generation, labels: { team: 'x' }, annotations: { note: 'y' } },
  spec,
  ...(status ? { status } : {}),
});
const controlPlane = (name = 'controlplane-keystone', korcReason = 'ApplicationCredentialMinted'): Obj => ({
  apiVersion: 'c5c3.io/v1alpha1', kind: 'ControlPlane', metadata: { name, namespace: 'openstack', uid: `uid-${name}` }, spec: {},
  status: { conditions: [{ type: 'KORCReady', status: korcReason === 'ApplicationCredentialMinted' ? 'True' : 'False', reason: korcReason, message: '', lastTransitionTime: '2026-01-01T00:00:00Z' }] },
});
const adminAc = (requests?: string, available = true): Obj => ({
  apiVersion: 'openstack.k-orc.cloud/v1alpha1', kind: 'ApplicationCredential',
  metadata: { name: 'controlplane-keystone-admin-app-credential', namespace: 'openstack', generation: 1, creationTimestamp: '2026-11-21T11:00:00Z', labels: { 'c5c3.io/credential': 'admin-application-credential' }, annotations: requests ? { 'c5c3.io/rotation-requests': requests } : {} },
  spec: {}, status: orcStatus(1, { available, id: 'id-1' }),
});

async function rotate(app: HooksServer, object: Obj, related: Obj[]): Promise<Answer> {
  const res = await post(app, '/credentialrotation/sync', { controller: {}, object, related: objectMap(related), attachments: {} });
  if (res.status !== 200) throw new Error(`credentialrotation sync answered ${res.status}: ${res.body}`);
  return res.json as Answer;
}
const ready = (a: Answer) => conditionOf(a.status, 'Ready');

t.test('every row of the handshake table (docs/architecture.md §3.7)', async (t) => {
  const { app } = await testServer();
  t.teardown(() => app.close());
  const rows: [string, Obj, Obj[], string, 'True' | 'False', number | undefined][] = [
    ['unsupported target', rotation({ target: 'databasePassword', reMint: true }), [controlPlane(), adminAc()], 'UnsupportedTarget', 'False', undefined],
    ['no ControlPlane', rotation(), [], 'NoControlPlane', 'False', 10],
    ['two ControlPlanes', rotation(), [controlPlane('a'), controlPlane('b')], 'AmbiguousControlPlane', 'False', undefined],
    ['bootstrap, AC exists', rotation({ target: 'adminApplicationCredential', bootstrap: true, reMint: true }), [controlPlane(), adminAc()], 'BootstrapComplete', 'True', undefined],
    ['bootstrap, AC absent', rotation({ target: 'adminApplicationCredential', bootstrap: true }), [controlPlane()], 'WaitingForBootstrap', 'False', 10],
    ['rotation, AC absent', rotation({ target: 'adminApplicationCredential' }), [controlPlane()], 'WaitingForApplicationCredential', 'False', 10],
    ['admin password not readable', rotation(), [controlPlane(undefined, 'WaitingForAdminPassword')], 'WaitingForAdminPassword', 'False', 10],
    ['admin password unreadable (AdminPasswordError), an AC exists: not latched', rotation(), [controlPlane(undefined, 'AdminPasswordError'), adminAc()], 'WaitingForAdminPassword', 'False', 10],
    ['nothing requested', rotation({ target: 'adminApplicationCredential' }), [controlPlane(), adminAc()], 'NoRotationNeeded', 'True', undefined],
    ['reMint, AC absent: not latched', rotation(), [controlPlane()], 'WaitingForApplicationCredential', 'False', 10],
    ['reMint', rotation(), [controlPlane(), adminAc()], 'RotationTriggered', 'True', undefined],
  ];
  for (const [name, cr, related, reason, status, resync] of rows) {
    const answer = await rotate(app, cr, related);
    t.match(ready(answer), { type: 'Ready', status, reason, observedGeneration: 1, lastTransitionTime: '2026-11-21T12:00:00Z' }, name);
    t.equal(answer.resyncAfterSeconds, resync, `${name}: resync ${resync}`);
    t.equal(answer.status.observedGeneration, 1, `${name}: observedGeneration written by the hook`);
    t.same(answer.attachments, [], `${name}: no attachments`);
    t.notOk('labels' in answer || 'annotations' in answer, `${name}: labels and annotations left alone`);
    const latched = reason === 'RotationTriggered';
    t.equal(answer.status.lastTriggeredGeneration, latched ? 1 : undefined, `${name}: ${latched ? 'latched' : 'not latched'}`);
  }
  const other = { ...controlPlane('elsewhere'), metadata: { ...controlPlane('elsewhere').metadata, namespace: 'tenant-b' } };
  t.match(ready(await rotate(app, rotation(), [other])), { reason: 'NoControlPlane' }, 'a ControlPlane of another namespace does not count');
});

t.test('the latch: one rotation per generation; completion reported', async (t) => {
  const { app, logs } = await testServer();
  t.teardown(() => app.close());
  const first = await rotate(app, rotation(undefined, 3), [controlPlane(), adminAc('uid-rotate-admin/1')]);
  t.match(ready(first), { reason: 'RotationTriggered' });
  t.equal(first.status.lastTriggeredGeneration, 3);
  t.equal(first.status.lastTriggeredTime, '2026-11-21T12:00:00Z', 'the latch records when it happened');
  t.match(conditionOf(first.status, 'RotationComplete'), { status: 'False', reason: 'RotationInProgress', message: /uid-rotate-admin\/3/ });
  t.ok(logs.some((l) => l.includes('"reason":"RotationNudged"')), 'the seed event becomes a log line');
  const latched = rotation(undefined, 3, first.status);
  const again = await rotate(app, latched, [controlPlane(), adminAc('uid-rotate-admin/1')]);
  t.match(ready(again), { status: 'True', reason: 'NoRotationNeeded', message: /already requested/ }, 'the same generation again: no new request');
  t.equal(again.status.lastTriggeredGeneration, 3);
  t.equal(again.status.lastTriggeredTime, '2026-11-21T12:00:00Z', 'the latch time is kept');
  t.equal(again.resyncAfterSeconds, undefined, 'no poll while pending: the AC and the ControlPlane are related objects');
  const during = await rotate(app, latched, [controlPlane(undefined, 'ReMinting')]);
  t.match(ready(during), { reason: 'WaitingForApplicationCredential' }, 'while the old AC is gone');
  const done = await rotate(app, latched, [controlPlane(), adminAc('uid-other/1,uid-rotate-admin/3')]);
  t.match(conditionOf(done.status, 'RotationComplete'), { status: 'True', reason: 'RotationCompleted' });
  t.equal(done.resyncAfterSeconds, undefined);
  t.match(conditionOf((await rotate(app, latched, [controlPlane(), adminAc('uid-rotate-admin/3', false)])).status, 'RotationComplete'), { status: 'False' }, 'listed but not Available yet');
  const edited = await rotate(app, rotation(undefined, 4, done.status), [controlPlane(), adminAc('uid-rotate-admin/3')]);
  t.match(ready(edited), { reason: 'RotationTriggered' }, 'a new generation is a new request');
  t.equal(edited.status.lastTriggeredGeneration, 4);
  const blocked = await rotate(app, rotation(undefined, 5, edited.status), [controlPlane(undefined, 'WaitingForAdminPassword'), adminAc()]);
  t.equal(blocked.status.lastTriggeredGeneration, 4, 'not latched while the ControlPlane cannot act');
  const scheduled = await rotate(app, rotation({ target: 'adminApplicationCredential', intervalDays: 30, gracePeriodDays: 2 }), [controlPlane(), adminAc()]);
  t.match(ready(scheduled), { reason: 'NoRotationNeeded', message: /the schedule applies once ControlPlane .* has rotation mode Scheduled \(it has PasswordDriven\)/ });
  t.notOk(scheduled.status.nextRotationTime, 'no schedule in force, no next rotation');
  t.notOk(logs.some((l) => l.includes('"reason":"ScheduledRotationDeferred"')), 'no longer deferred');
});

/** The CredentialRotation decorator's view of a ControlPlane world. */
const seen = (world: World): Obj[] => [world.parent, ...world.children.filter((c) => c.kind === 'ApplicationCredential')];
const base = (crs: Obj[]) => [clusterSecretStore(), ...crs];

t.test('end to end: latch → one re-mint → recreated AC kept → completion; never lost, never replayed', async (t) => {
  const { app } = await testServer();
  t.teardown(() => app.close());
  const world = await converge(app, managedCP());
  const firstId = world.response.status.adminApplicationCredential.id;

  // The decorator latches; the ControlPlane drops the AC once.
  const a = rotation(undefined, 1, undefined, 'rotate-a');
  const latchedA = rotation(undefined, 1, (await rotate(app, a, seen(world))).status, 'rotate-a');
  const start = await sync(app, world.parent, world.children, [...base([latchedA]), ...world.related.filter((r) => r.kind === 'Secret')]);
  t.notOk(acOf(start.children), 'the AC is dropped for the re-mint');
  // A second request arrives during the re-mint: the next mint honours both.
  const b = rotation(undefined, 1, undefined, 'rotate-b');
  const terminating = { ...acOf(world.children)!, metadata: { ...acOf(world.children)!.metadata, deletionTimestamp: '2026-11-21T11:59:30Z' } };
  const midWorld: World = { ...world, children: [...applyResponse(start.children, world.parent, healthy, world.children), terminating as Obj] };
  const latchedB = rotation(undefined, 1, (await rotate(app, b, seen(midWorld))).status, 'rotate-b');
  t.equal(latchedB.status.lastTriggeredGeneration, 1, 'latched at once during a re-mint');
  const after = await converge(app, { ...world.parent, status: start.status }, base([latchedA, latchedB]), healthy, ADMIN_PASSWORD, midWorld.children.filter((c) => c.kind !== 'ApplicationCredential'));
  t.equal(acOf(after.children)!.metadata.annotations['c5c3.io/rotation-requests'], 'uid-rotate-a/1,uid-rotate-b/1', 'one mint honours both');
  t.not(after.response.status.adminApplicationCredential.id, firstId, 'a new credential');
  t.match(conditionOf(after.response.status, 'Ready'), { status: 'True' });

  // Further syncs keep the recreated AC (resyncs and restarts replay nothing).
  const again = await sync(app, after.parent, after.children, after.related);
  t.same(acOf(again.children), acOf(after.response.children), 'kept');
  t.match(conditionOf(again.status, 'KORCReady'), { status: 'True' });
  for (const cr of [latchedA, latchedB]) {
    const answer = await rotate(app, cr, seen(after));
    t.match(conditionOf(answer.status, 'RotationComplete'), { status: 'True', reason: 'RotationCompleted' }, `${cr.metadata.name}: completion reported`);
  }

  // Deleted and re-created under the same name: a new uid at generation 1, a new request.
  const recreated = { ...rotation(undefined, 1, undefined, 'rotate-a'), metadata: { ...rotation(undefined, 1, undefined, 'rotate-a').metadata, uid: 'uid-new' } };
  const answer = await rotate(app, recreated, seen(after));
  t.match(ready(answer), { reason: 'RotationTriggered' }, 're-created: a new request');
  const relatched = { ...recreated, status: answer.status };
  const remint = await sync(app, after.parent, after.children, [...base([relatched, latchedB]), ...after.related.filter((r) => r.kind === 'Secret')]);
  t.notOk(acOf(remint.children), 'it re-mints once');
  const final = await converge(app, { ...after.parent, status: remint.status }, base([relatched, latchedB]), healthy, ADMIN_PASSWORD, applyResponse(remint.children, after.parent, healthy, after.children));
  t.equal(acOf(final.children)!.metadata.annotations['c5c3.io/rotation-requests'], 'uid-new/1,uid-rotate-b/1');
  const noReplay = await sync(app, final.parent, final.children, final.related);
  t.ok(acOf(noReplay.children), 'and never again');
  t.match(conditionOf(noReplay.status, 'Ready'), { status: 'True' });
});

t.test('requests the AC cannot list: minted by an earlier version (name keys) or by the reference operator (no list)', async (t) => {
  const { app } = await testServer();
  t.teardown(() => app.close());
  const world = await converge(app, managedCP());
  const ac = acOf(world.children)!;
  const created = ac.metadata.creationTimestamp as string;
  const before = new Date(Date.parse(created) - 60_000).toISOString();
  const later = new Date(Date.parse(created) + 60_000).toISOString();
  const withList = (list: string | undefined) =>
    world.children.map((c) => {
      if (c !== ac) return c;
      const annotations = { ...c.metadata.annotations };
      if (list === undefined) delete annotations['c5c3.io/rotation-requests'];
      else annotations['c5c3.io/rotation-requests'] = list;
      return { ...c, metadata: { ...c.metadata, annotations } };
    });
  const latchedAt = (at: string, uid = 'uid-rotate-admin') => {
    const cr = rotation(undefined, 1, { lastTriggeredGeneration: 1, lastTriggeredTime: at, conditions: [] });
    return { ...cr, metadata: { ...cr.metadata, uid } };
  };
  const secrets = world.related.filter((r) => r.kind === 'Secret');
  const keeps = async (children: Obj[], cr: Obj) => acOf((await sync(app, world.parent, children, [...base([cr]), ...secrets])).children) !== undefined;

  t.ok(await keeps(withList('rotate-admin/1'), latchedAt(before)), 'an earlier version listed it by name: honoured');
  t.notOk(await keeps(withList('rotate-admin/1'), latchedAt(later, 'uid-recreated')), 'same name, latched after the AC was minted: a new request');
  t.ok(await keeps(withList(undefined), latchedAt(before)), 'no list (reference operator): latched before the AC was created, so it was honoured');
  t.notOk(await keeps(withList(undefined), latchedAt(later)), 'no list: latched after the AC was created, so it is pending');
  // The reference operator's CredentialRotation has no lastTriggeredTime: its Ready transition says when.
  const goOperator = rotation(undefined, 1, { lastTriggeredGeneration: 1, conditions: [{ type: 'Ready', status: 'True', reason: 'RotationTriggered', message: 'x', lastTransitionTime: before }] });
  t.ok(await keeps(withList(undefined), goOperator), 'the reference operator latched it before the AC existed: honoured');
});
