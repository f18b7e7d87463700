// The Tempest verification of a release rollout at the HTTP level (issue 59, rollout/verification.ts):
// the Job and tempest.conf the Verifying phase asks for, their names, the same Job on every resync,
// the Job controller's verdict deciding the phase, the Tempest deadline, the rollback that holds the
// old release and deletes nothing else, and the release of a finished rollout's Job.
import t from 'tap';
import { FIXED_NOW, testServer } from './support/server.js';
import { ADMIN_PASSWORD, healthy, readyCondition, type StatusOf } from './support/world.js';
import { base64Cores } from '../src/capture/secret-values.js';
import { converge, conditionOf, managedCP, step, type World } from './support/sync.js';
import type { Obj } from './support/shared.js';
import type { HooksServer } from '../src/server.js';
import { rolloutHash } from '../src/controlplane/rollout/verification.js';
import { TEMPEST_PASSWORD_ENV } from '../src/controlplane/rollout/tempest-conf.js';
import { statusAdmission } from './support/crd.js';

const imageOf = (o: Obj | undefined) => (o ? `${o.spec.image.repository}:${o.spec.image.tag}` : undefined);
const keystoneOf = (children: Obj[]) => children.find((c) => c.kind === 'Keystone');
const jobsOf = (children: Obj[]) => children.filter((c) => c.kind === 'Job');
const configMapsOf = (children: Obj[]) => children.filter((c) => c.kind === 'ConfigMap');
const ids = (children: Obj[]) => children.map((c) => `${c.kind}/${c.metadata.name}`).sort();

type JobOutcome = 'running' | 'complete' | 'failed';

/** The stand-in operators: everything healthy, Keystone Ready at its generation, the Job as `job` says (kubernetes' Job controller conditions). */
function operators(job: { outcome: JobOutcome }): StatusOf {
  return (child, generation) => {
    if (child.kind === 'Job') {
      if (job.outcome === 'running') return { active: 1, startTime: FIXED_NOW.toISOString() };
      if (job.outcome === 'complete') return { succeeded: 1, conditions: [{ type: 'Complete', status: 'True', reason: 'CompletionsReached', message: 'Reached expected number of succeeded pods' }] };
      return { failed: 1, conditions: [{ type: 'Failed', status: 'True', reason: 'BackoffLimitExceeded', message: 'Job has reached the specified backoff limit' }] };
    }
    if (child.kind !== 'Keystone') return healthy(child, generation);
    return { observedGeneration: generation, conditions: [{ ...readyCondition(true, 'Ready'), observedGeneration: generation }] };
  };
}

async function server(clock: { now: Date }) {
  const { app } = await testServer({ clock: () => clock.now });
  return app;
}

const TEMPEST = { deadline: '10m', concurrency: 3, tests: { include: ['^tempest\\.api\\.identity\\.'], exclude: ['test_list_users'] } };

async function running(app: HooksServer, tempest: Obj | null = TEMPEST): Promise<World> {
  const cp = managedCP();
  cp.spec.openStackRelease = '2025.1';
  if (tempest) cp.spec.verification = { tempest };
  return converge(app, cp, undefined, operators({ outcome: 'running' }));
}

function edited(world: World, edit: (spec: Obj) => void): World {
  const parent = structuredClone(world.parent);
  edit(parent.spec);
  parent.metadata.generation += 1;
  return { ...world, parent };
}

/** Steps until updatePhase is `phase` (at most `max`). */
async function until(app: HooksServer, world: World, statusOf: StatusOf, phase: string, max = 12): Promise<World> {
  for (let i = 0; i < max; i++) {
    world = await step(app, world, statusOf);
    if (world.response.status.updatePhase === phase) return world;
  }
  throw new Error(`never reached ${phase} (at ${world.response.status.updatePhase})`);
}

t.test('Verifying asks for one Job and its tempest.conf, named per rollout, the same on every resync', async (t) => {
  const clock = { now: FIXED_NOW };
  const app = await server(clock);
  t.teardown(() => app.close());
  const job = { outcome: 'running' as JobOutcome };
  const before = await running(app);
  t.same(jobsOf(before.response.children), [], 'no Job outside a rollout');
  const world = await until(app, edited(before, (s) => (s.openStackRelease = '2025.2')), operators(job), 'Verifying');
  const rollout = world.response.status.rollout;
  const hash = rolloutHash(rollout);
  const name = `${world.parent.metadata.name}-verify-2025.2-${hash}`;
  t.match(hash, /^[0-9a-f]{6}$/);
  t.ok(name.length <= 63, 'the name fits a label value');
  const j = jobsOf(world.response.children)[0]!;
  t.equal(jobsOf(world.response.children).length, 1, 'one Job');
  t.equal(j.metadata.name, name, 'the Job is {cp}-verify-<release>-<6 hex of the rollout>');
  t.same(world.response.status.rollout.verification, { job: name, state: 'Running' }, 'status.rollout names the verification');
  t.same(statusAdmission('controlplanes.c5c3.io.yaml')(world.response.status), [], 'the status fits the CRD');
  // The Job: the release's default image, the settings, the lists, the password from the Secret.
  const container = j.spec.template.spec.containers[0];
  t.equal(container.image, 'ghcr.io/c5c3/tempest:45.0.0', "2025.2's default Tempest image");
  t.same(container.args, ['--concurrency', '3', '--include-list', '/etc/tempest/include-tests.txt', '--exclude-list', '/etc/tempest/exclude-tests.txt']);
  t.equal(j.spec.activeDeadlineSeconds, 600, 'the Job ends at the Tempest deadline');
  t.equal(j.spec.backoffLimit, 0);
  t.same(container.env, [{ name: TEMPEST_PASSWORD_ENV, valueFrom: { secretKeyRef: { name: `${world.parent.metadata.name}-keystone-admin-credentials`, key: 'password' } } }]);
  // The ConfigMap: tempest.conf from what the ControlPlane knows, and no secret anywhere in it.
  const cm = configMapsOf(world.response.children)[0]!;
  t.equal(cm.metadata.name, name);
  const conf: string = cm.data['tempest.conf'];
  t.match(conf, /\[identity\]\nuri_v3 = http:\/\/\S+-keystone\.\S+\.svc:5000\/v3\n/);
  t.match(conf, new RegExp(`region = ${world.parent.spec.region ?? 'RegionOne'}\n`));
  t.match(conf, /\[service_available\]\ncinder = (true|false)\nglance = (true|false)\nhorizon = false\nneutron = (true|false)\nnova = (true|false)\nswift = false\n/);
  t.equal(cm.data['include-tests.txt'], '^tempest\\.api\\.identity\\.\n');
  t.equal(cm.data['exclude-tests.txt'], 'test_list_users\n');
  const cores = base64Cores(ADMIN_PASSWORD);
  const text = JSON.stringify([j, cm]);
  t.notOk(text.includes(ADMIN_PASSWORD) || cores.some((c) => text.includes(c)), 'no form of the admin password in the Job or the ConfigMap');
  // Resyncs (and restarts: the hooks keep nothing) ask for the same Job: never a second one.
  let w = world;
  for (let i = 0; i < 3; i++) {
    clock.now = new Date(clock.now.getTime() + 60_000);
    w = await step(app, w, operators(job));
    t.equal(w.response.status.updatePhase, 'Verifying');
    t.same(jobsOf(w.response.children), [j], `resync ${i + 1}: the same Job`);
    t.same(configMapsOf(w.response.children), [cm], `resync ${i + 1}: the same ConfigMap`);
  }
  t.equal(jobsOf(w.children).length, 1, 'one Job in the cluster');
});

t.test('the Job Complete completes the rollout; the Job goes one answer later', async (t) => {
  const app = await server({ now: FIXED_NOW });
  t.teardown(() => app.close());
  const job = { outcome: 'running' as JobOutcome };
  let world = await until(app, edited(await running(app), (s) => (s.openStackRelease = '2025.2')), operators(job), 'Verifying');
  const name = world.response.status.rollout.verification.job;
  world = await step(app, world, operators(job));
  t.equal(world.response.status.updatePhase, 'Verifying', 'a running Job holds the phase');
  job.outcome = 'complete';
  world = await step(app, world, operators(job));
  // The Job's status reaches the hook on the pass after it was applied with it.
  world = world.response.status.updatePhase === 'Verifying' ? await step(app, world, operators(job)) : world;
  t.equal(world.response.status.updatePhase, 'Complete', 'the Job Complete: Complete');
  t.same(jobsOf(world.response.children).map((c) => c.metadata.name), [name], 'the Job is kept in the answer that completes the rollout');
  t.equal(world.response.status.lastUpdate.result, 'Complete');
  world = await step(app, world, operators(job));
  t.equal(world.response.status.updatePhase, 'Idle');
  t.same(jobsOf(world.response.children), [], 'released one answer after the rollout ended');
  t.same(configMapsOf(world.response.children), [], 'its ConfigMap too');
  t.equal(imageOf(keystoneOf(world.response.children)), 'ghcr.io/c5c3/keystone:2025.2');
  const again = await step(app, world, operators(job));
  t.equal(JSON.stringify(again.response), JSON.stringify(world.response), 'a fixed point at rest');
});

t.test('the Job Failed: RollingBack with VerificationFailed naming the Job; the old release held, nothing else deleted, no mint', async (t) => {
  const app = await server({ now: FIXED_NOW });
  t.teardown(() => app.close());
  const job = { outcome: 'running' as JobOutcome };
  const before = await running(app);
  const credentialId = before.response.status.adminApplicationCredential?.id;
  const kept = ids(before.response.children);
  let world = await until(app, edited(before, (s) => (s.openStackRelease = '2025.2')), operators(job), 'Verifying');
  const name = world.response.status.rollout.verification.job;
  job.outcome = 'failed';
  world = await until(app, world, operators(job), 'RollingBack', 3);
  const failing = world.response.status;
  t.match(failing.rollout.failure, { reason: 'VerificationFailed', message: new RegExp(`Job ${name} failed \\(BackoffLimitExceeded: Job has reached the specified backoff limit\\); 1 pod\\(s\\) failed`) });
  t.match(failing.rollout.verification, { job: name, state: 'Failed', message: /BackoffLimitExceeded/ });
  t.equal(imageOf(keystoneOf(world.response.children)), 'ghcr.io/c5c3/keystone:2025.1', 'the answer that says RollingBack projects the old image');
  t.equal(jobsOf(world.response.children).length, 1, 'the failed Job is kept for the answer that ends Verifying');
  world = await until(app, world, operators(job), 'Idle', 6);
  t.same(jobsOf(world.response.children), [], 'then released');
  for (let i = 0; i < 3; i++) world = await step(app, world, operators(job));
  const held = world.response.status;
  t.match(conditionOf(held, 'Ready'), { status: 'False', reason: 'RolledBack', message: /VerificationFailed/ });
  t.match(held.lastUpdate, { result: 'RolledBack', reason: 'VerificationFailed' });
  t.equal(held.services[0].release, '2025.1', 'the old release is held');
  t.equal(imageOf(keystoneOf(world.response.children)), 'ghcr.io/c5c3/keystone:2025.1');
  t.same(ids(world.response.children), kept, 'every child of before the rollout is there, nothing more');
  t.equal(held.adminApplicationCredential?.id, credentialId, 'no mint');
  t.same(jobsOf(world.children), [], 'no Job left in the cluster');
});

t.test('the Tempest deadline: a Job that never ends rolls the rollout back (VerificationFailed)', async (t) => {
  const clock = { now: FIXED_NOW };
  const app = await server(clock);
  t.teardown(() => app.close());
  const job = { outcome: 'running' as JobOutcome };
  let world = await until(app, edited(await running(app), (s) => (s.openStackRelease = '2025.2')), operators(job), 'Verifying');
  const started = Date.parse(world.response.status.rollout.phaseStartedAt);
  clock.now = new Date(started + 599_000);
  world = await step(app, world, operators(job));
  t.equal(world.response.status.updatePhase, 'Verifying', '9m59s: still Verifying (the Tempest deadline, not rolloutDeadline 15m)');
  t.equal(world.response.resyncAfterSeconds, 1, 'the next look is at the deadline');
  clock.now = new Date(started + 600_000);
  world = await step(app, world, operators(job));
  t.equal(world.response.status.updatePhase, 'RollingBack');
  t.match(world.response.status.rollout.failure, { reason: 'VerificationFailed', message: /Job \S+-verify-2025\.2-[0-9a-f]{6} did not complete within 10m/ });
});

t.test('without spec.verification Verifying asks for no Job and completes on the credential chain', async (t) => {
  const app = await server({ now: FIXED_NOW });
  t.teardown(() => app.close());
  let world = edited(await running(app, null), (s) => (s.openStackRelease = '2025.2'));
  const phases: string[] = [];
  for (let i = 0; i < 12; i++) {
    world = await step(app, world, operators({ outcome: 'running' }));
    phases.push(world.response.status.updatePhase);
    t.same([...jobsOf(world.response.children), ...configMapsOf(world.response.children)], [], `pass ${i + 1}: no Job, no ConfigMap`);
    t.notOk(world.response.status.rollout?.verification);
  }
  t.ok(phases.includes('Verifying') && phases.includes('Complete'), 'Verifying → Complete as before');
});

t.test('the rollout hash is the rollout identity: the same per rollout, another for the next', async (t) => {
  const r = { from: { release: '2025.1', image: { repository: 'k', tag: '2025.1' } }, to: { release: '2025.2', image: { repository: 'k', tag: '2025.2' } }, startedAt: '2026-01-01T00:00:00.000Z' };
  t.equal(rolloutHash(r), rolloutHash(structuredClone(r)));
  t.not(rolloutHash(r), rolloutHash({ ...r, startedAt: '2026-01-02T00:00:00.000Z' }), 'a rollout started again gets another Job');
});

t.test('a spec.verification the schema refuses: KeystoneReady InvalidSpec naming it, never a 500, nothing dropped', async (t) => {
  const app = await server({ now: FIXED_NOW });
  t.teardown(() => app.close());
  const world = await running(app);
  const bad = edited(world, (s) => (s.verification = { tempest: { concurrency: 'many' } }));
  const next = await step(app, bad, operators({ outcome: 'running' }));
  t.match(conditionOf(next.response.status, 'KeystoneReady'), { status: 'False', reason: 'InvalidSpec', message: /spec\.verification\.tempest\.concurrency/ });
  t.same(ids(next.response.children), ids(world.response.children), 'every child kept');
});

t.test('a ControlPlane name over the budget (admitted without the CEL rule): VerificationFailed at once with the reason, no Job', async (t) => {
  const app = await server({ now: FIXED_NOW });
  t.teardown(() => app.close());
  const cp = managedCP();
  cp.metadata.name = 'x'.repeat(43);
  cp.spec.openStackRelease = '2025.1';
  cp.spec.verification = { tempest: TEMPEST };
  let world = await converge(app, cp, undefined, operators({ outcome: 'running' }));
  world = await until(app, edited(world, (s) => (s.openStackRelease = '2025.2')), operators({ outcome: 'running' }), 'RollingBack');
  t.match(world.response.status.rollout.failure, { reason: 'VerificationFailed', message: /longer than 63 characters: the ControlPlane's name must be at most 42/ });
  t.same(jobsOf(world.response.children), [], 'no Job the API server would refuse');
});
