// A child the API server keeps refusing is the seed's `…Error`, not an eternal wait: absent, or
// not carrying what was asked, 5 minutes after it was first asked for (status.unappliedChildren).
import t from 'tap';
import { testServer } from './support/server.js';
import { clusterSecretStore, healthy } from './support/world.js';
import { converge, conditionOf, managedCP, sync } from './support/sync.js';
import { withChild } from './support/korc.js';
import type { Obj } from './support/shared.js';

const at = (iso: string) => new Date(iso);

t.test('a child still absent 5 minutes after it was asked for: MariaDBError naming it', async (t) => {
  const { app } = await testServer({ clock: () => at('2026-11-21T12:00:00Z') });
  t.teardown(() => app.close());
  const parent = managedCP();
  const first = await sync(app, parent, [], [clusterSecretStore()]);
  const entries = first.status.unappliedChildren as Obj[];
  t.match(entries.map((e) => `${e.kind}/${e.name}`).sort(), ['MariaDB/openstack-db', 'Memcached/openstack-memcached']);
  t.ok(entries.every((e) => e.since === '2026-11-21T12:00:00Z' && e.generation === 1));
  const withStatus = { ...parent, status: first.status };

  const { app: later } = await testServer({ clock: () => at('2026-11-21T12:04:59Z') });
  t.teardown(() => later.close());
  const waiting = await sync(later, withStatus, [], [clusterSecretStore()]);
  t.match(conditionOf(waiting.status, 'InfrastructureReady'), { reason: 'WaitingForDatabase' }, 'within 5 minutes: waiting');
  t.same(waiting.status.unappliedChildren, entries, 'the clock is kept, not restarted');

  const { app: overdue } = await testServer({ clock: () => at('2026-11-21T12:05:01Z') });
  t.teardown(() => overdue.close());
  const failed = await sync(overdue, withStatus, [], [clusterSecretStore()]);
  t.match(conditionOf(failed.status, 'InfrastructureReady'), {
    status: 'False',
    reason: 'MariaDBError',
    message: /MariaDB openstack-db still does not exist 5 minutes after it was asked for; Memcached openstack-memcached still does not exist.*refuses it/,
  });
  t.equal(failed.resyncAfterSeconds, 15);
  t.ok(failed.children.some((c) => c.kind === 'MariaDB'), 'still asked for');
});

t.test('a child not carrying what was asked: KeystoneError with the fields; a new ask restarts the clock', async (t) => {
  const { app } = await testServer({ clock: () => at('2026-11-21T12:00:00Z') });
  t.teardown(() => app.close());
  const world = await converge(app, managedCP());
  t.notOk('unappliedChildren' in world.response.status, 'converged: nothing pending, the field is omitted');

  const edited = structuredClone(world.parent);
  edited.metadata.generation = 2;
  edited.spec.services.keystone.replicas = 5;
  const asked = await sync(app, edited, world.children, world.related);
  const entry = (asked.status.unappliedChildren as Obj[]).find((e) => e.kind === 'Keystone')!;
  t.ok(entry, 'the Keystone is tracked from the first ask');

  // The API server refuses the update: the live Keystone keeps its old spec.
  const later: Obj = { ...edited, status: asked.status };
  const { app: overdue } = await testServer({ clock: () => at('2026-11-21T12:06:00Z') });
  t.teardown(() => overdue.close());
  const refused = await sync(overdue, later, world.children, world.related);
  t.match(conditionOf(refused.status, 'KeystoneReady'), { status: 'False', reason: 'KeystoneError', message: /Keystone controlplane-keystone-keystone still does not carry spec.replicas as asked 6 minutes ago/ });
  t.match(conditionOf(refused.status, 'Ready'), { status: 'False' });

  // A spec change is a new ask: waiting again.
  const again = structuredClone(later);
  again.metadata.generation = 3;
  again.spec.services.keystone.replicas = 1;
  const renewed = await sync(overdue, again, world.children, world.related);
  t.match(conditionOf(renewed.status, 'KeystoneReady'), { reason: 'WaitingForKeystone' });
  t.equal((renewed.status.unappliedChildren as Obj[]).find((e) => e.kind === 'Keystone')!.since, '2026-11-21T12:06:00Z');

  // Applied at last: the entry goes and the stage is Ready.
  const applied = withChild(world.children, 'Keystone', (c) => ({ ...c, spec: { ...c.spec, replicas: 5 }, status: healthy(c) }));
  const done = await sync(overdue, later, applied, world.related);
  t.match(conditionOf(done.status, 'KeystoneReady'), { status: 'True' });
  t.notOk('unappliedChildren' in done.status);
});

t.test('the admin Domain and User imports still absent 5 minutes after they were asked for: DomainError, UserError (not ApplicationCredentialError)', async (t) => {
  const { app } = await testServer({ clock: () => at('2026-11-21T12:00:00Z') });
  t.teardown(() => app.close());
  const world = await converge(app, managedCP());
  for (const [kind, reason] of [['Domain', 'DomainError'], ['User', 'UserError']] as const) {
    // The API server keeps refusing the one import (or the AC): it never appears among the children.
    const children = world.children.filter((c) => c.kind !== kind);
    const asked = await sync(app, world.parent, children, world.related);
    t.ok((asked.status.unappliedChildren as Obj[]).some((e) => e.kind === kind), `${kind}: tracked from the first ask`);
    const { app: overdue } = await testServer({ clock: () => at('2026-11-21T12:06:00Z') });
    t.teardown(() => overdue.close());
    const refused = await sync(overdue, { ...world.parent, status: asked.status }, children, world.related);
    t.match(conditionOf(refused.status, 'KORCReady'), { status: 'False', reason, message: new RegExp(`${kind} \\S+ still does not exist 6 minutes after it was asked for`) }, kind);
    t.equal(refused.resyncAfterSeconds, 10, `${kind}: the KORC interval`);
  }
});
