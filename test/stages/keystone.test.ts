// Stage 4, Keystone → KeystoneReady, called directly.
import t from 'tap';
import { keystoneStage } from '../../src/controlplane/stages/keystone.js';
import { managedCP } from '../support/sync.js';
import { applied, readyCondition } from '../support/world.js';
import { emitted, run } from '../support/stage.js';
import type { Obj } from '../support/shared.js';

const readyAt = (generation: number): Obj => ({ conditions: [{ ...readyCondition(true), observedGeneration: generation }] });

t.test('gate: while InfrastructureReady is not True, nothing is created', async (t) => {
  const r = run(keystoneStage, { parent: managedCP(), children: [], related: [] }, { decided: new Map() });
  t.match(r.condition, { status: 'False', reason: 'WaitingForInfrastructure', message: 'Waiting for InfrastructureReady' });
  t.same(r.children, []);
  t.same(r.outcome, { kind: 'waiting', requeueSeconds: 15 }, 'what seed 000 sends while InfrastructureReady is not True (its 5 s gate is never sent)');
});

t.test('the Keystone CR is projected; WaitingForKeystone until Ready at its generation', async (t) => {
  const cp = managedCP();
  const first = run(keystoneStage, { parent: cp, children: [], related: [] });
  t.same(emitted(first), ['Keystone/controlplane-keystone-keystone']);
  t.match(first.condition, { status: 'False', reason: 'WaitingForKeystone' });
  const stale = applied(first.children[0]!, cp, readyAt(1));
  stale.metadata.generation = 2;
  t.match(run(keystoneStage, { parent: cp, children: [stale], related: [] }).condition, { status: 'False', reason: 'WaitingForKeystone' }, 'Ready for an older generation is not Ready');
  const live = applied(first.children[0]!, cp, readyAt(1));
  const ready = run(keystoneStage, { parent: cp, children: [live], related: [] });
  t.match(ready.condition, { status: 'True', reason: 'KeystoneReady', message: 'Keystone controlplane-keystone-keystone is Ready' });
  t.same(ready.outcome, { kind: 'complete' });
});

t.test('a rotation interval that is not whole days: InvalidRotationInterval, nothing emitted', async (t) => {
  const cp = managedCP();
  cp.spec.services ??= {};
  cp.spec.services.keystone = { ...cp.spec.services.keystone, rotationInterval: '36h' };
  const r = run(keystoneStage, { parent: cp, children: [], related: [] });
  t.match(r.condition, { status: 'False', reason: 'InvalidRotationInterval', message: /36h/ });
  t.equal(r.outcome.kind, 'failed');
  t.same(r.children, []);
});

t.test('a Keystone observed while failing keeps being emitted as desired (never dropped)', async (t) => {
  const cp = managedCP();
  const first = run(keystoneStage, { parent: cp, children: [], related: [] });
  const failing = applied(first.children[0]!, cp, { conditions: [{ ...readyCondition(false, 'DeploymentFailed'), observedGeneration: 1 }] });
  const r = run(keystoneStage, { parent: cp, children: [failing], related: [] });
  t.same(r.children, first.children);
  t.match(r.condition, { status: 'False', reason: 'WaitingForKeystone' });
});
