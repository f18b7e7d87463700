// Stage 1, Infrastructure → InfrastructureReady, called directly.
import t from 'tap';
import { infrastructureStage } from '../../src/controlplane/stages/infrastructure.js';
import { brownfieldCP, managedCP } from '../support/sync.js';
import { allReady, applied, readyCondition } from '../support/world.js';
import { emitted, run, type StageWorld } from '../support/stage.js';
import type { Obj } from '../support/shared.js';

const world = (parent: Obj, children: Obj[] = [], related: Obj[] = []): StageWorld => ({ parent, children, related });
const notReady = (): Obj => ({ conditions: [readyCondition(false)] });
const find = (children: Obj[], kind: string) => children.find((c) => c.kind === kind)!;

t.test('managed: both children ensured in one pass, WaitingForDatabase first', async (t) => {
  const r = run(infrastructureStage, world(managedCP()));
  t.same(emitted(r), ['MariaDB/openstack-db', 'Memcached/openstack-memcached']);
  t.match(r.condition, { status: 'False', reason: 'WaitingForDatabase' });
  t.same(r.outcome, { kind: 'waiting', requeueSeconds: 15 });
  t.notOk(r.releases, 'nothing released');
});

t.test('WaitingForCache while only MariaDB is Ready; True when both are', async (t) => {
  const cp = managedCP();
  const first = run(infrastructureStage, world(cp));
  const db = applied(find(first.children, 'MariaDB'), cp, allReady());
  const cacheDown = applied(find(first.children, 'Memcached'), cp, notReady());
  t.match(run(infrastructureStage, world(cp, [db, cacheDown])).condition, { status: 'False', reason: 'WaitingForCache', message: /Memcached openstack-memcached/ });
  const cacheUp = applied(find(first.children, 'Memcached'), cp, allReady());
  const ready = run(infrastructureStage, world(cp, [db, cacheUp]));
  t.match(ready.condition, { status: 'True', reason: 'InfrastructureReady', message: 'MariaDB openstack-db and Memcached openstack-memcached Ready' });
  t.same(ready.outcome, { kind: 'complete' });
});

t.test('Ready only at the current generation (honest readiness)', async (t) => {
  const cp = managedCP();
  const first = run(infrastructureStage, world(cp));
  const db = applied(find(first.children, 'MariaDB'), cp, { conditions: [{ ...readyCondition(true), observedGeneration: 1 }] });
  db.metadata.generation = 2;
  const cache = applied(find(first.children, 'Memcached'), cp, allReady());
  t.match(run(infrastructureStage, world(cp, [db, cache])).condition, { status: 'False', reason: 'WaitingForDatabase' });
});

t.test('brownfield: nothing to provision, True at once', async (t) => {
  const r = run(infrastructureStage, world(brownfieldCP()));
  t.same(r.children, []);
  t.match(r.condition, { status: 'True', reason: 'InfrastructureReady', message: /Brownfield/ });
});

t.test('both clusterRef and host: InvalidSpec, nothing emitted', async (t) => {
  const cp = managedCP();
  cp.spec.infrastructure.database.host = 'db.example.com';
  const r = run(infrastructureStage, world(cp));
  t.match(r.condition, { status: 'False', reason: 'InvalidSpec', message: /exactly one of clusterRef or host/ });
  t.equal(r.outcome.kind, 'failed');
  t.same(r.children, []);
});

t.test('an unowned MariaDB of the same name is adopted as related: read, never emitted', async (t) => {
  const cp = managedCP();
  const existing = { apiVersion: 'k8s.mariadb.com/v1alpha1', kind: 'MariaDB', metadata: { name: 'openstack-db', namespace: cp.metadata.namespace, uid: 'u-db' }, spec: { replicas: 1 }, status: allReady() };
  const r = run(infrastructureStage, world(cp, [], [existing]));
  t.same(emitted(r), ['Memcached/openstack-memcached'], 'only the Memcached is created');
});

t.test('deterministic: the same input twice gives the same result', async (t) => {
  t.same(run(infrastructureStage, world(managedCP())), run(infrastructureStage, world(managedCP())));
});
