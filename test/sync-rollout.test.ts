// Release rollouts at the HTTP level (rollout/, docs/hooks.md "Release upgrades"): every phase
// transition, the path rules, the deadline (clock-driven), rollback and its hold, the re-mint
// hold, a new release during a rollout, determinism and the fixed point.
import t from 'tap';
import { FIXED_NOW, post, testServer } from './support/server.js';
import { ADMIN_PASSWORD, applyResponse, healthy, orcStatus, readyCondition, syncRequest, type StatusOf } from './support/world.js';
import { base64Cores } from '../src/capture/secret-values.js';
import { statusAdmission } from './support/crd.js';
import { converge, conditionOf, managedCP, step, sync, type World } from './support/sync.js';
import type { Obj } from './support/shared.js';
import type { HooksServer } from '../src/server.js';

const imageOf = (o: Obj | undefined) => (o ? `${o.spec.image.repository}:${o.spec.image.tag}` : undefined);
const keystoneOf = (children: Obj[]) => children.find((c) => c.kind === 'Keystone');

/**
 * The stand-in Keystone operator: Ready at the generation it reconciled, except with an image it
 * cannot run (never Ready); everything else healthy. `lagging` keeps the Keystone's old status
 * (Ready for the previous generation) as an operator that has not caught up yet.
 */
function operator(opts: { broken?: string[]; lagging?: boolean } = {}): StatusOf {
  return (child, generation) => {
    if (child.kind !== 'Keystone') return healthy(child, generation);
    if (opts.lagging) return undefined;
    const image = imageOf(child)!;
    const ready = !(opts.broken ?? []).includes(image);
    const condition = { ...readyCondition(ready, ready ? 'Ready' : 'CrashLoopBackOff'), observedGeneration: generation };
    return { observedGeneration: generation, conditions: [condition] };
  };
}

async function server(clock: { now: Date }) {
  const { app } = await testServer({ clock: () => clock.now });
  return app;
}

/** A ControlPlane converged at `release`. */
async function running(app: HooksServer, release = '2025.1', edit: (spec: Obj) => void = () => {}): Promise<World> {
  const cp = managedCP();
  cp.spec.openStackRelease = release;
  edit(cp.spec);
  return converge(app, cp, undefined, operator());
}

/** The user edits the spec: the generation moves. */
function edited(world: World, edit: (spec: Obj) => void): World {
  const parent = structuredClone(world.parent);
  edit(parent.spec);
  parent.metadata.generation += 1;
  return { ...world, parent };
}

interface Trail {
  world: World;
  phases: string[];
}

/** Passes until the answer is a fixed point (or `max`), recording updatePhase after each. */
async function roll(app: HooksServer, world: World, statusOf: StatusOf, max = 20, until?: (w: World) => boolean): Promise<Trail> {
  const phases: string[] = [];
  let last = '';
  for (let i = 0; i < max; i++) {
    world = await step(app, world, statusOf);
    phases.push(world.response.status.updatePhase);
    if (until?.(world)) return { world, phases };
    const text = JSON.stringify(world.response);
    if (text === last) return { world, phases };
    last = text;
  }
  return { world, phases };
}

const dedupe = (phases: string[]) => phases.filter((p, i) => p !== phases[i - 1]);

t.test('the first install is not an upgrade: Idle throughout', async (t) => {
  const app = await server({ now: FIXED_NOW });
  t.teardown(() => app.close());
  const world = await running(app);
  t.same([...new Set(world.history!.map((r) => r.status.updatePhase))], ['Idle']);
  t.notOk(world.response.status.rollout);
  t.notOk(world.response.status.lastUpdate);
  t.equal(world.response.status.services[0].release, '2025.1');
  t.equal(conditionOf(world.response.status, 'Ready').status, 'True');
});

t.test('upgrade 2025.1 → 2025.2 walks every phase to Complete, then rests at Idle', async (t) => {
  const clock = { now: FIXED_NOW };
  const app = await server(clock);
  t.teardown(() => app.close());
  let world = edited(await running(app), (s) => (s.openStackRelease = '2025.2'));
  const seen: { phase: string; image: string | undefined; ready: Obj; keystone: Obj; release: string }[] = [];
  let last = '';
  for (let i = 0; i < 20; i++) {
    world = await step(app, world, operator());
    const s = world.response.status;
    seen.push({ phase: s.updatePhase, image: imageOf(keystoneOf(world.response.children)), ready: conditionOf(s, 'Ready'), keystone: conditionOf(s, 'KeystoneReady'), release: s.services[0].release });
    const text = JSON.stringify(world.response);
    if (text === last) break;
    last = text;
  }
  t.same(dedupe(seen.map((x) => x.phase)), ['Validating', 'UpdatingInfra', 'UpdatingKeystone', 'UpdatingServices', 'Verifying', 'Complete', 'Idle']);
  const at = (phase: string) => seen.find((x) => x.phase === phase)!;
  t.equal(at('Validating').image, 'ghcr.io/c5c3/keystone:2025.1', 'the running release stays projected while validating');
  t.equal(at('UpdatingInfra').image, 'ghcr.io/c5c3/keystone:2025.1');
  t.equal(at('UpdatingKeystone').image, 'ghcr.io/c5c3/keystone:2025.2', 'the new image from UpdatingKeystone on');
  for (const phase of ['Validating', 'UpdatingInfra', 'UpdatingKeystone', 'UpdatingServices', 'Verifying']) {
    t.match(at(phase).ready, { status: 'False', reason: 'UpdateInProgress', message: new RegExp(`upgrade 2025.1 → 2025.2: ${phase}`) }, `Ready is False while ${phase}`);
    t.equal(at(phase).release, '2025.1', `services[keystone].release is the running release while ${phase}`);
  }
  t.match(at('Validating').keystone.message, /upgrade 2025.1 → 2025.2: Validating/, 'KeystoneReady says what the rollout does');
  t.match(at('Complete'), { release: '2025.2', ready: { status: 'True', reason: 'AllReady' } });
  const final = world.response.status;
  t.equal(final.updatePhase, 'Idle');
  t.notOk(final.rollout, 'no rollout record at rest');
  t.same(final.lastUpdate, {
    from: { release: '2025.1', image: { repository: 'ghcr.io/c5c3/keystone', tag: '2025.1' } },
    to: { release: '2025.2', image: { repository: 'ghcr.io/c5c3/keystone', tag: '2025.2' } },
    result: 'Complete',
    startedAt: FIXED_NOW.toISOString(),
    finishedAt: FIXED_NOW.toISOString(),
    generation: 2,
  });
  t.equal(final.services[0].release, '2025.2');
  t.equal(world.response.resyncAfterSeconds, undefined, 'at rest nothing is requeued');
  // Fixed point and determinism: the same request answers byte-identically.
  const again = await step(app, world, operator());
  t.equal(JSON.stringify(again.response), JSON.stringify(world.response), 'the converged upgrade is a fixed point');
});

t.test('UpdatingKeystone completes only when Keystone is Ready at its new generation', async (t) => {
  const app = await server({ now: FIXED_NOW });
  t.teardown(() => app.close());
  const world = edited(await running(app), (s) => (s.openStackRelease = '2025.2'));
  const { world: w, phases } = await roll(app, world, operator({ lagging: true }), 8);
  t.equal(phases.at(-1), 'UpdatingKeystone', 'a Keystone Ready only for its previous generation holds the phase');
  t.match(conditionOf(w.response.status, 'KeystoneReady'), {
    status: 'False',
    reason: 'UpdatingKeystone',
    message: /has not reported Ready for generation 2 yet \(upgrade 2025.1 → 2025.2: UpdatingKeystone\)/,
  });
  t.ok(w.response.resyncAfterSeconds! <= 15, 'looked at again');
  const done = await roll(app, w, operator());
  t.equal(done.world.response.status.lastUpdate.result, 'Complete');
});

t.test('the deadline turns a Keystone that never gets Ready into a rollback; the old release is held', async (t) => {
  const clock = { now: FIXED_NOW };
  const app = await server(clock);
  t.teardown(() => app.close());
  const broken = operator({ broken: ['ghcr.io/c5c3/keystone:2025.2'] });
  let world = edited(await running(app, '2025.1', (s) => (s.rolloutDeadline = '5m')), (s) => (s.openStackRelease = '2025.2'));
  let trail = await roll(app, world, broken, 10);
  t.equal(trail.phases.at(-1), 'UpdatingKeystone');
  const started = trail.world.response.status.rollout.phaseStartedAt;
  t.equal(trail.world.response.status.rollout.startedAt, FIXED_NOW.toISOString());
  // Just before the deadline: still waiting.
  clock.now = new Date(Date.parse(started) + 299_000);
  trail = await roll(app, trail.world, broken, 1);
  t.equal(trail.phases.at(-1), 'UpdatingKeystone', '4m59s: still UpdatingKeystone');
  t.equal(trail.world.response.resyncAfterSeconds, 1, 'the next look is at the deadline');
  clock.now = new Date(Date.parse(started) + 300_000);
  trail = await roll(app, trail.world, broken, 1);
  const failing = trail.world.response.status;
  t.equal(failing.updatePhase, 'RollingBack', 'at the deadline: RollingBack');
  t.match(failing.rollout.failure, { reason: 'UpdateDeadlineExceeded', message: /Keystone did not report Ready at its new generation with 2025.1 → 2025.2 within 5m/ });
  t.match(conditionOf(failing, 'Ready'), { status: 'False', reason: 'RollingBack' });
  t.equal(imageOf(keystoneOf(trail.world.response.children)), 'ghcr.io/c5c3/keystone:2025.1', 'the answer that says RollingBack projects the last known-good image');
  t.match(conditionOf(failing, 'KeystoneReady'), { status: 'False', reason: 'RollingBack', message: /rolling back to 2025.1/ });
  t.equal(trail.world.response.resyncAfterSeconds, 5);
  trail = await roll(app, trail.world, broken);
  const held = trail.world.response.status;
  t.same(dedupe(trail.phases), ['Idle']);
  t.match(conditionOf(held, 'Ready'), {
    status: 'False',
    reason: 'RolledBack',
    message: /^The upgrade to 2025.2 was rolled back \(UpdateDeadlineExceeded: .*\); the ControlPlane holds 2025.1 until its spec changes again$/,
  });
  t.match(conditionOf(held, 'KeystoneReady'), { status: 'True', message: /holding 2025.1: the upgrade to 2025.2 was rolled back/ });
  t.equal(held.services[0].release, '2025.1');
  t.match(held.lastUpdate, { result: 'RolledBack', reason: 'UpdateDeadlineExceeded', from: { release: '2025.1' }, to: { release: '2025.2' }, generation: 2 });
  t.equal(imageOf(keystoneOf(trail.world.response.children)), 'ghcr.io/c5c3/keystone:2025.1');
  // No retry loop: hours later the answer is the same.
  clock.now = new Date(clock.now.getTime() + 6 * 3600_000);
  const later = await step(app, trail.world, broken);
  t.equal(JSON.stringify(later.response), JSON.stringify(trail.world.response), 'held: a fixed point, no retry');
  // A spec change (here replicas) is the user's say: the upgrade is tried again.
  world = edited(later, (s) => (s.services.keystone.replicas = 2));
  const retry = await step(app, world, broken);
  t.equal(retry.response.status.updatePhase, 'Validating', 'a new generation starts the rollout again');
  t.match(retry.response.status.rollout, { from: { release: '2025.1' }, to: { release: '2025.2' }, generation: 3 });
});

t.test('a Keystone child the API server keeps refusing fails the rollout (KeystoneUpdateFailed)', async (t) => {
  const clock = { now: FIXED_NOW };
  const app = await server(clock);
  t.teardown(() => app.close());
  let world = edited(await running(app), (s) => (s.openStackRelease = '2025.2'));
  const trail = await roll(app, world, operator(), 10, (w) => w.response.status.updatePhase === 'UpdatingInfra');
  world = trail.world;
  // Metacontroller never manages to apply the new Keystone spec: the observed one stays at 2025.1.
  const stuck = (w: World, res: Obj) => {
    const old = w.children.find((c) => c.kind === 'Keystone')!;
    return applyResponse(res.children, w.parent, operator(), w.children).map((c) => (c.kind === 'Keystone' ? old : c));
  };
  let response = await sync(app, world.parent, world.children, world.related);
  t.equal(response.status.updatePhase, 'UpdatingKeystone');
  let parent = { ...world.parent, status: response.status };
  let children = stuck(world, response);
  clock.now = new Date(FIXED_NOW.getTime() + 6 * 60_000);
  response = await sync(app, parent, children, world.related);
  t.equal(response.status.updatePhase, 'RollingBack');
  t.match(response.status.rollout.failure, { reason: 'KeystoneUpdateFailed', message: /Keystone failed with 2025.1 → 2025.2/ });
  parent = { ...parent, status: response.status };
  children = applyResponse(response.children, parent, operator(), children);
  response = await sync(app, parent, children, world.related);
  t.equal(response.status.updatePhase, 'Idle');
  t.match(response.status.lastUpdate, { result: 'RolledBack', reason: 'KeystoneUpdateFailed' });
});

t.test('refused paths: the running release stays projected, KeystoneReady names the path', async (t) => {
  const app = await server({ now: FIXED_NOW });
  t.teardown(() => app.close());
  const cases: [string, string, string, RegExp][] = [
    ['2025.2', '2025.1', 'DowngradeRefused', /^upgrade 2025.2 → 2025.1 refused: a downgrade is not supported; Keystone stays at 2025.2$/],
    ['2025.1', '2026.2', 'UnsupportedSkipLevel', /^upgrade 2025.1 → 2026.2 refused: skipping releases .*; Keystone stays at 2025.1$/],
    ['2024.2', '2025.2', 'UnsupportedSkipLevel', /2024.2 → 2025.2/],
  ];
  for (const [from, to, reason, message] of cases) {
    const world = edited(await running(app, from), (s) => (s.openStackRelease = to));
    const w = await step(app, world, operator());
    const s = w.response.status;
    t.match(conditionOf(s, 'KeystoneReady'), { status: 'False', reason, message }, `${from} → ${to}: ${reason}`);
    t.equal(s.updatePhase, 'Idle', 'no rollout starts');
    t.notOk(s.rollout);
    t.equal(s.services[0].release, from, 'the running release is reported');
    t.equal(imageOf(keystoneOf(w.response.children)), `ghcr.io/c5c3/keystone:${from}`, 'the running image stays projected');
    t.equal(w.children.length, world.children.length, 'no child dropped');
    const again = await step(app, w, operator());
    t.equal(JSON.stringify(again.response), JSON.stringify(w.response), 'a refusal is a fixed point');
  }
});

t.test('skip-level SLURP upgrade 2025.1 → 2026.1 and an image override without a release change both roll out', async (t) => {
  const app = await server({ now: FIXED_NOW });
  t.teardown(() => app.close());
  const slurp = await roll(app, edited(await running(app), (s) => (s.openStackRelease = '2026.1')), operator());
  t.equal(slurp.world.response.status.lastUpdate.result, 'Complete');
  t.equal(slurp.world.response.status.services[0].release, '2026.1');
  const image = { repository: 'registry.example.com/keystone', tag: '2025.1-patched' };
  const override = await roll(app, edited(await running(app), (s) => (s.services.keystone.image = image)), operator());
  t.same(dedupe(override.phases), ['Validating', 'UpdatingInfra', 'UpdatingKeystone', 'UpdatingServices', 'Verifying', 'Complete', 'Idle']);
  t.match(override.world.response.status.lastUpdate, { result: 'Complete', from: { release: '2025.1' }, to: { release: '2025.1', image } });
  t.equal(imageOf(keystoneOf(override.world.response.children)), 'registry.example.com/keystone:2025.1-patched');
});

t.test('no re-mint starts while a rollout runs; the pending one follows once it is done', async (t) => {
  const app = await server({ now: FIXED_NOW });
  t.teardown(() => app.close());
  const world = edited(await running(app), (s) => (s.openStackRelease = '2025.2'));
  const acBefore = world.children.find((c) => c.kind === 'ApplicationCredential')!;
  // The admin password changes as the rollout starts.
  const w = await step(app, world, operator(), undefined, 'a-new-Admin-Passw0rd');
  t.equal(w.response.status.updatePhase, 'Validating');
  const korc = conditionOf(w.response.status, 'KORCReady');
  t.match(korc, { status: 'True', message: /a re-mint waits while a release rollout is in progress \(upgrade 2025.1 → 2025.2: Validating\): the admin password changed/ });
  const ac = w.response.children.find((c: Obj) => c.kind === 'ApplicationCredential');
  t.ok(ac, 'the live AC is kept');
  t.equal(ac?.spec.resource.name, acBefore.spec.resource.name, 'the same credential');
  let cur = w;
  const seen: [string, string][] = [];
  for (let i = 0; i < 12 && cur.response.status.updatePhase !== 'Idle'; i++) {
    cur = await step(app, cur, operator(), undefined, 'a-new-Admin-Passw0rd');
    const phase = cur.response.status.updatePhase;
    seen.push([phase, conditionOf(cur.response.status, 'KORCReady').reason]);
    if (phase !== 'Idle' && phase !== 'Complete') {
      t.ok(cur.response.children.some((c: Obj) => c.kind === 'ApplicationCredential' && c.spec.resource.name === acBefore.spec.resource.name), `the same AC kept while ${phase}`);
    }
  }
  t.equal(seen.at(-1)![0], 'Idle');
  const firstReMint = seen.findIndex(([, reason]) => reason === 'ReMinting');
  t.equal(seen[firstReMint]?.[0], 'Complete', 'the waiting re-mint starts with the answer that completes the rollout');
  const after = await roll(app, cur, operator(), 10);
  const acAfter = after.world.response.children.find((c: Obj) => c.kind === 'ApplicationCredential');
  t.not(acAfter?.spec.resource.name, acBefore.spec.resource.name, 'a new credential was minted');
  t.equal(conditionOf(after.world.response.status, 'Ready').status, 'True');
});

t.test('a new release during a rollout starts over from the running release; back to it cancels', async (t) => {
  const app = await server({ now: FIXED_NOW });
  t.teardown(() => app.close());
  const world = edited(await running(app), (s) => (s.openStackRelease = '2025.2'));
  const lagging = operator({ lagging: true });
  const trail = await roll(app, world, lagging, 10, (w) => w.response.status.updatePhase === 'UpdatingKeystone');
  t.equal(imageOf(keystoneOf(trail.world.response.children)), 'ghcr.io/c5c3/keystone:2025.2');
  const restarted = await step(app, edited(trail.world, (s) => (s.openStackRelease = '2026.1')), lagging);
  t.equal(restarted.response.status.updatePhase, 'Validating');
  t.match(restarted.response.status.rollout, { from: { release: '2025.1' }, to: { release: '2026.1' }, generation: 3 });
  t.equal(imageOf(keystoneOf(restarted.response.children)), 'ghcr.io/c5c3/keystone:2025.1', 'starts over from the running release');
  const cancelled = await step(app, edited(restarted, (s) => (s.openStackRelease = '2025.1')), operator());
  t.equal(cancelled.response.status.updatePhase, 'Idle');
  t.match(cancelled.response.status.lastUpdate, { result: 'Cancelled', from: { release: '2025.1' }, to: { release: '2026.1' } });
  t.equal(imageOf(keystoneOf(cancelled.response.children)), 'ghcr.io/c5c3/keystone:2025.1');
  const rest = await roll(app, cancelled, operator());
  t.equal(conditionOf(rest.world.response.status, 'Ready').status, 'True');
  t.equal(rest.world.response.status.updatePhase, 'Idle');
});

t.test('a malformed rollout status is dropped, never a 500, never a deletion', async (t) => {
  const app = await server({ now: FIXED_NOW });
  t.teardown(() => app.close());
  const world = edited(await running(app), (s) => (s.openStackRelease = '2025.2'));
  const w = await step(app, world, operator());
  for (const rollout of [null, 'x', [], { from: 'a' }, { ...w.response.status.rollout, generation: 'two' }]) {
    const parent = { ...w.parent, status: { ...w.parent.status, updatePhase: 'UpdatingKeystone', rollout, lastUpdate: { result: 42 } } };
    const res = await post(app, '/controlplane/sync', syncRequest(parent, w.children, w.related));
    t.equal(res.status, 200, `rollout ${JSON.stringify(rollout)}: answered`);
    const body = res.json as Obj;
    t.equal(body.children.length, w.children.length, 'every child kept');
    t.equal(body.status.updatePhase, 'Validating', 'read as no rollout: the change is validated afresh');
    t.notOk(body.status.lastUpdate, 'a malformed record is dropped');
  }
});

t.test('deletion during a rollout: finalize answers and carries the rollout as it is', async (t) => {
  const app = await server({ now: FIXED_NOW });
  t.teardown(() => app.close());
  const world = edited(await running(app), (s) => (s.openStackRelease = '2025.2'));
  const trail = await roll(app, world, operator({ lagging: true }), 10, (w) => w.response.status.updatePhase === 'UpdatingKeystone');
  const parent = { ...trail.world.parent, metadata: { ...trail.world.parent.metadata, deletionTimestamp: '2026-11-21T12:00:00Z' } };
  const res = await post(app, '/controlplane/finalize', syncRequest(parent, trail.world.children, trail.world.related, true));
  t.equal(res.status, 200);
  const body = res.json as Obj;
  t.equal(body.status.updatePhase, 'UpdatingKeystone');
  t.ok(body.children.length < trail.world.children.length, 'the teardown proceeds (K-ORC objects first)');
});

t.test('an unreadable release mid-rollout: InvalidSpec, the rollout carried unchanged, nothing dropped', async (t) => {
  const app = await server({ now: FIXED_NOW });
  t.teardown(() => app.close());
  const world = edited(await running(app), (s) => (s.openStackRelease = '2025.2'));
  const trail = await roll(app, world, operator({ lagging: true }), 10, (w) => w.response.status.updatePhase === 'UpdatingKeystone');
  const bad = edited(trail.world, (s) => (s.openStackRelease = 'latest'));
  const res = await post(app, '/controlplane/sync', syncRequest(bad.parent, bad.children, bad.related));
  t.equal(res.status, 200);
  const body = res.json as Obj;
  t.match(conditionOf(body.status, 'KeystoneReady'), { status: 'False', reason: 'InvalidSpec', message: /spec.openStackRelease/ });
  t.equal(body.status.updatePhase, 'UpdatingKeystone', 'the phase does not move');
  t.same(body.status.rollout, trail.world.response.status.rollout, 'the rollout record is carried as it was');
  t.equal(body.children.length, bad.children.length, 'every child kept');
});

t.test('a K-ORC message quoting a secret never reaches status.rollout.failure or status.lastUpdate (one redaction for the whole status)', async (t) => {
  const clock = { now: FIXED_NOW };
  const app = await server(clock);
  t.teardown(() => app.close());
  const quoting = `Keystone said: password ${ADMIN_PASSWORD} refused (${Buffer.from(`admin:${ADMIN_PASSWORD}`).toString('base64')})`;
  let verifying = false;
  const endpointFails: StatusOf = (child, generation) =>
    verifying && child.kind === 'Endpoint' ? orcStatus(generation, { available: false, reason: 'UnrecoverableError', message: quoting, id: 'id-endpoint' }) : operator()(child, generation);
  let world = edited(await running(app), (s) => (s.openStackRelease = '2025.2'));
  const statuses: string[] = [];
  for (let i = 0; i < 30; i++) {
    world = await step(app, world, endpointFails);
    statuses.push(JSON.stringify(world.response.status));
    if (['UpdatingKeystone', 'UpdatingServices', 'Verifying'].includes(world.response.status.updatePhase)) verifying = true;
    if (world.response.status.lastUpdate?.result === 'RolledBack') break;
  }
  const failed = statuses.map((s) => JSON.parse(s)).find((s) => s.rollout?.failure);
  t.match(failed?.rollout.failure, { reason: 'VerificationFailed', message: /CatalogReady: .*\[redacted\]/ }, 'the failure quotes the catalog condition, redacted');
  t.match(world.response.status.lastUpdate, { result: 'RolledBack', reason: 'VerificationFailed', message: /\[redacted\]/ }, 'the record of the rollback too');
  const forms = [ADMIN_PASSWORD, Buffer.from(ADMIN_PASSWORD).toString('base64'), ...base64Cores(ADMIN_PASSWORD)];
  t.same(forms.filter((f) => statuses.some((s) => s.includes(f))), [], 'no form of the admin password in any status of the rollout');
});

t.test('a K-ORC message of the longest length its CRD admits: status.rollout.failure and status.lastUpdate still fit the CRD', async (t) => {
  const app = await server({ now: FIXED_NOW });
  t.teardown(() => app.close());
  const admit = statusAdmission('controlplanes.c5c3.io.yaml');
  let failing = false;
  const long: StatusOf = (child, generation) =>
    failing && child.kind === 'Endpoint' ? orcStatus(generation, { available: false, reason: 'UnrecoverableError', message: 'z'.repeat(32768), id: 'id-endpoint' }) : operator()(child, generation);
  let world = edited(await running(app), (s) => (s.openStackRelease = '2025.2'));
  const problems = new Set<string>();
  let failure: Obj | undefined;
  for (let i = 0; i < 30; i++) {
    world = await step(app, world, long);
    for (const e of admit(world.response.status)) problems.add(e);
    failure ??= world.response.status.rollout?.failure;
    if (['UpdatingKeystone', 'UpdatingServices', 'Verifying'].includes(world.response.status.updatePhase)) failing = true;
    if (world.response.status.lastUpdate?.result === 'RolledBack') break;
  }
  t.equal(failure?.reason, 'VerificationFailed', 'the rollout failed on the catalog');
  t.equal([...failure!.message].length, 32768, 'its message cut to 32,768 characters');
  t.match(world.response.status.lastUpdate, { result: 'RolledBack' });
  t.same([...problems], [], 'every status of the rollout validates against the ControlPlane CRD');
});
