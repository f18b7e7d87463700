// Seed 000 contract points (issue 22 §2): generation-honest readiness, InvalidSpec for what
// admission should have refused, v1-style payloads, and the bookkeeping of an adopted AC.
import t from 'tap';
import { testServer } from './support/server.js';
import { allReady, healthy, readyCondition, syncRequest, type StatusOf } from './support/world.js';
import { converge, conditionOf, managedCP, step, sync } from './support/sync.js';
import { acOf, withChild } from './support/korc.js';
import { post } from './support/server.js';
import type { Obj } from './support/shared.js';

t.test('KeystoneReady is True only for the Keystone this answer desires, Ready at its generation', async (t) => {
  const { app } = await testServer();
  t.teardown(() => app.close());
  const world = await converge(app, managedCP());
  t.match(conditionOf(world.response.status, 'KeystoneReady'), { status: 'True' });

  // A Keystone spec change (replicas; a release change is a rollout, test/sync-rollout.test.ts):
  // the answer projects it, the live Keystone still runs the old spec.
  const bumped = structuredClone(world.parent);
  bumped.metadata.generation = 2;
  bumped.spec.services.keystone.replicas = 7;
  const res = await sync(app, bumped, world.children, world.related);
  t.match(conditionOf(res.status, 'KeystoneReady'), { status: 'False', reason: 'WaitingForKeystone', message: /does not carry the desired spec yet/ });
  t.match(conditionOf(res.status, 'Ready'), { status: 'False' }, 'never Ready with the new spec before Keystone rolled it out');

  // Applied, but the Keystone operator has not reconciled the new generation yet.
  const lagging: StatusOf = (c, g) => (c.kind === 'Keystone' ? { conditions: [readyCondition(true)], observedGeneration: g - 1 } : healthy(c, g));
  const applied = await step(app, { ...world, parent: bumped, response: res, children: world.children }, lagging);
  const next = await sync(app, bumped, applied.children, world.related);
  t.match(conditionOf(next.status, 'KeystoneReady'), { status: 'False', message: /has not reported Ready for generation 2 yet/ });
  const caughtUp = withChild(applied.children, 'Keystone', (c) => ({ ...c, status: { conditions: [readyCondition(true)], observedGeneration: c.metadata.generation } }));
  t.match(conditionOf((await sync(app, bumped, caughtUp, world.related)).status, 'KeystoneReady'), { status: 'True' }, 'Ready once it reports the current generation');
  // A Ready condition that names its own generation is read the same way.
  const conditionLags = withChild(caughtUp, 'Keystone', (c) => ({ ...c, status: { conditions: [{ ...readyCondition(true), observedGeneration: c.metadata.generation - 1 }] } }));
  t.match(conditionOf((await sync(app, bumped, conditionLags, world.related)).status, 'KeystoneReady'), { status: 'False' });
  // Objects that report no generation (ESO, MariaDB) are taken at their Ready condition.
  t.match(conditionOf((await sync(app, bumped, withChild(caughtUp, 'Keystone', (c) => ({ ...c, status: allReady() })), world.related)).status, 'KeystoneReady'), { status: 'True' });
});

t.test('an empty policy rule name or value that bypassed admission is InvalidSpec on KeystoneReady, never projected', async (t) => {
  const { app } = await testServer();
  t.teardown(() => app.close());
  const world = await converge(app, managedCP());
  for (const [field, rules] of [
    ['spec.global', { '': 'role:admin' }],
    ['spec.services.keystone.policyOverrides', { 'identity:get_user': '' }],
  ] as const) {
    const bad = structuredClone(world.parent);
    if (field === 'spec.global') bad.spec.global = { rules };
    else bad.spec.services.keystone.policyOverrides = { rules };
    const res = await sync(app, bad, world.children, world.related);
    t.match(conditionOf(res.status, 'KeystoneReady'), { status: 'False', reason: 'InvalidSpec', message: new RegExp(field.replace(/\./g, '\\.')) }, field);
    const keystone = res.children.find((c) => c.kind === 'Keystone')!;
    t.same(keystone, world.children.find((c) => c.kind === 'Keystone')!.metadata.annotations['metacontroller.k8s.io/last-applied-configuration'] ? JSON.parse(world.children.find((c) => c.kind === 'Keystone')!.metadata.annotations['metacontroller.k8s.io/last-applied-configuration']) : undefined, `${field}: Keystone kept as last applied`);
    t.equal(res.children.length, world.children.length, `${field}: nothing dropped`);
  }
});

t.test('v1-style payloads: inner keys by name and objects that do not say their namespace give the same answer', async (t) => {
  const { app } = await testServer();
  t.teardown(() => app.close());
  const world = await converge(app, managedCP());
  const v2 = syncRequest(world.parent, world.children, world.related);
  const v1 = structuredClone(v2);
  for (const map of [v1.children, v1.related] as Obj[]) {
    for (const [group, objects] of Object.entries(map)) {
      map[group] = Object.fromEntries(
        Object.values(objects as Obj).map((o: Obj) => {
          const { namespace: _ns, ...metadata } = o.metadata;
          return [o.metadata.name, o.kind === 'ClusterSecretStore' ? o : { ...o, metadata }];
        }),
      );
    }
  }
  const a = await post(app, '/controlplane/sync', v2);
  const b = await post(app, '/controlplane/sync', v1);
  t.equal(b.status, 200);
  t.same(b.json, a.json, 'the app-credential Secret is found and its value kept');
});

t.test('an AC without the seed hash annotation is adopted and stamped; an empty one is the nudge', async (t) => {
  const { app } = await testServer();
  t.teardown(() => app.close());
  const world = await converge(app, managedCP());
  const withHash = (value: string | undefined) =>
    withChild(world.children, 'ApplicationCredential', (c) => {
      const annotations = { ...c.metadata.annotations };
      if (value === undefined) delete annotations['forge.c5c3.io/admin-password-hash'];
      else annotations['forge.c5c3.io/admin-password-hash'] = value;
      return { ...c, metadata: { ...c.metadata, annotations } };
    });
  const missing = await sync(app, world.parent, withHash(undefined), world.related);
  t.equal(acOf(missing.children)!.metadata.annotations['forge.c5c3.io/admin-password-hash'], acOf(world.children)!.metadata.annotations['forge.c5c3.io/admin-password-hash'], 'absent: the current hash is stamped (seed: stamped when absent)');
  t.match(conditionOf(missing.status, 'KORCReady'), { status: 'True', message: /adopted: forge.c5c3.io\/admin-password-hash stamped/ });
  const nudged = await sync(app, world.parent, withHash(''), world.related);
  t.notOk(acOf(nudged.children), 'empty: the nudge re-mints');
  t.match(conditionOf(nudged.status, 'KORCReady'), { reason: 'ReMinting', message: /annotation is empty/ });
  // Not yet Available: kept as it is, nothing stamped until it proves minted.
  const pending = withChild(withHash(undefined), 'ApplicationCredential', (c) => ({ ...c, status: { conditions: [] } }));
  const waiting = await sync(app, world.parent, pending, world.related);
  t.notOk('forge.c5c3.io/admin-password-hash' in acOf(waiting.children)!.metadata.annotations, 'nothing stamped before it is Available');
});
