// Properties over generated requests (fast-check), for every hook: no observed child is ever left
// out (but the re-mint AC in sync, also once Terminating, and K-ORC children in finalize), the answer is deterministic for
// a fixed clock and random source, it validates against the response schema and every child
// against its CRD, sync never finalizes, and applying a sync answer and syncing again reaches a
// fixed point once nothing else changes. PROPERTY_RUNS (default 1000;
// 10000 in the e2e tier) sets the runs per hook, PROPERTY_SEED the seed; every schema path meets
// every wrong value in a sweep of its own in the e2e tier (a rotated quarter of them in the unit
// tier), whatever the runs draw.
import t from 'tap';
import fc from 'fast-check';
import { syncControlPlane } from '../src/controlplane/sync.js';
import { finalizeControlPlane } from '../src/controlplane/finalize.js';
import { customizeControlPlane } from '../src/controlplane/customize.js';
import { syncCredentialRotation } from '../src/credentialrotation/sync.js';
import { customizeCredentialRotation } from '../src/credentialrotation/customize.js';
import { CompositeHookResponse, CustomizeHookResponse, DecoratorHookResponse } from '../src/api/hooks.js';
import { compileValidator } from '../src/api/validate.js';
import { ControlPlaneSpec } from '../src/api/controlplane.js';
import { readSpec } from '../src/controlplane/spec.js';
import { FIXED_NOW, sequence, testServer } from './support/server.js';
import { brownfieldCP, converge, managedCP, ids } from './support/sync.js';
import { applyResponse, adminPasswordSecret, clusterSecretStore, objectMap, orcStatus, readyCondition, secret, syncRequest, isOrc } from './support/world.js';
import { admitChild } from './support/children.js';
import { conformance, fixtureControlPlane, type Obj } from './support/shared.js';
import { schemaPaths } from './support/schema-paths.js';

// Bounded for the unit tier; the e2e tier (scripts/test-long.mjs) runs it again with PROPERTY_RUNS=10000.
const RUNS = Number(process.env.PROPERTY_RUNS ?? 1000);
// The sweep of wrong values at every schema path: in the long tier each path meets every value; in
// the unit tier (tap's 120 s per file, on a machine busy with CI's builds) each path meets every
// SWEEP_STRIDE-th value, rotated by path, so every path and every value is still swept.
const SWEEP_STRIDE = RUNS >= 10_000 ? 1 : 4;
const SEED = Number(process.env.PROPERTY_SEED ?? 20261121);
const validResponse = compileValidator(CompositeHookResponse, 'response', { defaults: false });
const validDecorator = compileValidator(DecoratorHookResponse, 'response', { defaults: false });
const validCustomize = compileValidator(CustomizeHookResponse, 'response', { defaults: false });
const AC = 'ApplicationCredential';

interface Pools {
  cps: Obj[];
  children: Obj[];
  related: Obj[];
  statuses: Obj[];
  /** Each ControlPlane of `cps` with the children and related objects it converged with. */
  worlds: { cp: Obj; children: Obj[]; related: Obj[] }[];
}

/** The compute cloud with every service and a database backup: every stage has observed children to keep. */
function computeCloudCP(): Obj {
  const cp = fixtureControlPlane('controlplane-cloud.yaml');
  cp.spec.infrastructure.database.backup = fixtureControlPlane('controlplane-backup.yaml').spec.infrastructure.database.backup;
  return cp;
}

async function pools(): Promise<Pools> {
  const { app } = await testServer({ level: 'silent' });
  const worlds = [await converge(app, managedCP()), await converge(app, brownfieldCP())];
  const cloud = await converge(app, computeCloudCP(), undefined, undefined, undefined, [], 40);
  await app.close();
  const children = worlds.flatMap((w) => w.children);
  return {
    cps: [managedCP(), brownfieldCP()],
    children,
    related: [...worlds.flatMap((w) => w.related), adminPasswordSecret(managedCP(), 'another-password')],
    statuses: worlds.flatMap((w) => (w.history ?? []).map((r) => r.status)),
    worlds: [
      ...[managedCP(), brownfieldCP()].map((cp, i) => ({ cp, children: worlds[i]!.children, related: worlds[i]!.related })),
      { cp: computeCloudCP(), children: cloud.children, related: cloud.related },
    ],
  };
}

/** A child in a random state: as observed, status gone, not ready, K-ORC failing, Terminating, stripped. */
function childArb(child: Obj): fc.Arbitrary<Obj> {
  return fc.record({ state: fc.constantFrom('as-is', 'no-status', 'not-ready', 'terminal', 'unavailable', 'stale'), terminating: fc.boolean(), stripped: fc.nat(19) }).map(({ state, terminating, stripped }) => {
    const c = structuredClone(child);
    const g = c.metadata.generation ?? 1;
    if (state === 'no-status') delete c.status;
    if (state === 'not-ready') c.status = isOrc(c) ? orcStatus(g, { available: false }) : { conditions: [readyCondition(false)] };
    if (state === 'terminal' && isOrc(c)) c.status = orcStatus(g, { available: false, reason: 'InvalidConfiguration', message: 'bad' });
    if (state === 'unavailable' && isOrc(c)) c.status = { ...c.status, id: undefined };
    if (state === 'stale') c.metadata.generation = g + 1;
    if (terminating && stripped % 2 === 0) c.metadata.deletionTimestamp = '2026-11-21T11:00:00Z';
    if (stripped === 0) c.metadata = { name: c.metadata.name, namespace: c.metadata.namespace };
    return c;
  });
}

const SPEC_PATHS = schemaPaths(ControlPlaneSpec as unknown as Obj);

/** What JSON can carry where it does not belong: null, numbers that overflowed, wrong types. */
const WRONG_VALUES: unknown[] = [null, Infinity, -Infinity, 0, -1, 1.5, 2 ** 53, '', 'x', true, [], [null], [{}], ['x'], {}, { a: 1 }];
const wrongValue = fc.constantFrom<unknown>(...WRONG_VALUES);

/** `spec` with the value at `path` (intermediate objects created) replaced by `value`. */
function withValueAt(spec: Obj, path: (string | number)[], value: unknown): Obj {
  const copy = structuredClone(spec);
  let holder: Obj = copy;
  path.slice(0, -1).forEach((key, i) => {
    const next = path[i + 1];
    if (holder[key] === null || typeof holder[key] !== 'object') holder[key] = typeof next === 'number' ? [] : {};
    holder = holder[key];
  });
  holder[path[path.length - 1]!] = value;
  return copy;
}

/** A valid spec with the value at one schema path replaced by a wrong one. */
const mutatedSpec = (p: Pools) => fc.record({ cp: fc.constantFrom(...p.cps), path: fc.constantFrom(...SPEC_PATHS), value: wrongValue }).map(({ cp, path, value }) => withValueAt(cp.spec, path, value));

const hostileSpec = (p: Pools) =>
  fc.oneof(
    fc.constant(undefined),
    fc.constant(null),
    fc.string({ maxLength: 5 }),
    fc.record({ region: fc.oneof(fc.integer(), fc.string({ maxLength: 3 })), openStackRelease: fc.constantFrom('2025.2', 'x', 3) }),
    mutatedSpec(p),
    mutatedSpec(p),
  );

function requestArb(p: Pools, finalizing: boolean): fc.Arbitrary<{ request: Obj; now: Date }> {
  const children: fc.Arbitrary<Obj[]> = fc.subarray(p.children).chain((subset) => (subset.length === 0 ? fc.constant([] as Obj[]) : (fc.tuple(...subset.map(childArb)) as fc.Arbitrary<Obj[]>)));
  const twin = fc.record({ minutes: fc.integer({ min: -60, max: 60 }), name: fc.constantFrom('aaa', 'zzz') }).map(({ minutes, name }) => {
    const cp = structuredClone(p.cps[0]!);
    cp.metadata = { ...cp.metadata, name, uid: `uid-${name}`, creationTimestamp: new Date(FIXED_NOW.getTime() + minutes * 60_000).toISOString().replace(/\.\d+Z/, 'Z') };
    return cp;
  });
  const rotation = fc.record({ generation: fc.integer({ min: 1, max: 3 }), reMint: fc.boolean(), latched: fc.integer({ min: 0, max: 3 }) }).map(({ generation, reMint, latched }) => ({
    apiVersion: 'c5c3.io/v1alpha1', kind: 'CredentialRotation', metadata: { name: 'rotate', namespace: 'openstack', generation }, spec: { target: 'adminApplicationCredential', reMint }, status: latched ? { lastTriggeredGeneration: latched } : undefined,
  }));
  const related = fc.tuple(
    fc.subarray(p.related),
    fc.option(fc.boolean().map((ready) => clusterSecretStore(ready))),
    fc.option(fc.constantFrom('garbage: [', 'clouds: {}', '{}').map((text) => secret('openstack', 'k-orc-clouds-yaml', { 'clouds.yaml': text }))),
    fc.option(twin),
    fc.option(rotation),
  ).map(([base, store, clouds, other, cr]) => {
    const out = base.filter((r) => !(store && r.kind === 'ClusterSecretStore')).filter((r) => !(clouds && r.metadata.name === 'k-orc-clouds-yaml'));
    for (const extra of [store, clouds, other, cr]) if (extra) out.push(extra);
    return out;
  });
  return fc.record({
    cp: fc.constantFrom(...p.cps),
    spec: fc.option(hostileSpec(p), { freq: 3 }),
    status: fc.option(fc.constantFrom(...p.statuses)),
    children,
    related,
    offsetMinutes: fc.integer({ min: -24 * 60, max: 30 * 24 * 60 }),
    deletedMinutesAgo: fc.integer({ min: 0, max: 20 }),
  }).map(({ cp, spec, status, children, related, offsetMinutes, deletedMinutesAgo }) => {
    const now = new Date(FIXED_NOW.getTime() + offsetMinutes * 60_000);
    const parent = structuredClone(cp);
    if (spec !== null) parent.spec = spec;
    if (status) parent.status = status;
    if (finalizing) parent.metadata.deletionTimestamp = new Date(now.getTime() - deletedMinutesAgo * 60_000).toISOString().replace(/\.\d+Z/, 'Z');
    return { request: syncRequest(parent, children as Obj[], related, finalizing), now };
  });
}

const observedOf = (request: Obj): Obj[] => Object.values(request.children as Obj).flatMap((g) => Object.values(g as Obj)) as Obj[];

// Children checked against their upstream CRDs: only with the upstream material (conformance);
// without it the conformance test below, which counts them, is skipped and reported.
const admitted = new Map<string, string[]>();
const checkCRDs = conformance.skip === false;
function crdErrors(children: Obj[]): string[] {
  const out: string[] = [];
  if (!checkCRDs) return out;
  for (const c of children) {
    const key = JSON.stringify(c);
    if (!admitted.has(key)) admitted.set(key, admitChild(c));
    out.push(...admitted.get(key)!.map((e) => `${c.kind}/${c.metadata.name}: ${e}`));
  }
  return out;
}

function run(request: Obj, now: Date, finalizing: boolean): Obj {
  return (finalizing ? finalizeControlPlane(request as never, { now: () => now }) : syncControlPlane(request as never, { now: () => now, random: sequence() })) as Obj;
}

/** The spec has a problem: the schema or a spec reader refuses it (an unreadable block among them). */
function hasProblem(spec: Obj, cp: string): boolean {
  const reading = readSpec(spec, cp);
  return reading.errors.length > 0 || Object.values(reading.resolved).some((r) => !r.ok);
}

/**
 * Sync keeps every observed child (but re-mint ACs), never finalizes, is schema valid, and (`full`)
 * deterministic and CRD valid. With `changed` the spec is a valid change (a backend renamed, the
 * backup left out of a defaulted `infrastructure: {}`): what it no longer declares may go, unless
 * the answer calls the spec invalid.
 */
function checkSync(request: Obj, now: Date, full = true, changed = false): void {
  const response = run(request, now, false);
  const kept = new Set(ids(response.children));
  const remint = (response.status.conditions as Obj[]).some((c) => c.type === 'KORCReady' && c.reason === 'ReMinting');
  if (remint) observedReMints++;
  const accepted = changed && !(response.status.conditions as Obj[]).some((c) => c.reason === 'InvalidSpec');
  for (const o of accepted ? [] : observedOf(request)) {
    const id = `${o.kind}/${o.metadata.name}`;
    // The re-mint release: the AC while ReMinting, and an AC already Terminating (the
    // release of an earlier answer; Metacontroller never deletes or recreates it again).
    const released = o.kind === AC && (remint || o.metadata.deletionTimestamp !== undefined);
    if (!kept.has(id) && !released) throw new Error(`left out ${id}`);
  }
  if (response.finalized === true) throw new Error('sync finalized');
  if (full && JSON.stringify(run(request, now, false)) !== JSON.stringify(response)) throw new Error('not deterministic');
  const schema = validResponse(response).errors;
  if (schema.length > 0) throw new Error(`response schema: ${schema.join('; ')}`);
  const crd = full ? crdErrors(response.children) : [];
  if (crd.length > 0) throw new Error(`CRD: ${crd.slice(0, 3).join('; ')}`);
}

/** Finalize keeps every observed child but K-ORC ones (until finalized), is schema valid, and (`full`) deterministic and CRD valid. */
function checkFinalize(request: Obj, now: Date, full = true): void {
  const response = run(request, now, true);
  const kept = new Set(ids(response.children));
  for (const o of observedOf(request)) {
    const id = `${o.kind}/${o.metadata.name}`;
    if (!kept.has(id) && !isOrc(o) && response.finalized !== true) throw new Error(`left out ${id}`);
  }
  if (full && JSON.stringify(run(request, now, true)) !== JSON.stringify(response)) throw new Error('not deterministic');
  const schema = validResponse(response).errors;
  if (schema.length > 0) throw new Error(`response schema: ${schema.join('; ')}`);
  const crd = full ? crdErrors(response.children) : [];
  if (crd.length > 0) throw new Error(`CRD: ${crd.slice(0, 3).join('; ')}`);
}

let observedReMints = 0;
let fixedPointsChecked = 0;

t.test('pools', async (t) => {
  const p = await pools();
  t.ok(p.children.length > 20);
  // The compute cloud converged with every stage's children, the aside's Backup among them.
  t.ok(p.worlds[2]!.children.some((c) => c.kind === 'Backup') && p.worlds[2]!.children.some((c) => c.kind === 'Nova'), 'the compute cloud has its Backup and its services');

  // Every schema path meets every wrong value, whatever the generator draws (it draws a sample).
  // Determinism and the children's CRDs are checked on the generated requests below, not here.
  // The compute cloud is among the worlds: every stage (the backup aside, every service) has its
  // observed children there, and an unreadable block of the spec (null, a string, `[]`, `{}` short
  // of what it needs) costs none of them (pipeline.ts: an unreadable block is InvalidSpec for every
  // stage that reads it, and no stage releases a child while the spec has a problem).
  t.test(`sync and finalize: ${SWEEP_STRIDE === 1 ? 'every wrong value' : `every ${SWEEP_STRIDE}th wrong value (rotated)`} at every one of the ${SPEC_PATHS.length} schema paths`, async (t) => {
    const failures: string[] = [];
    let checked = 0;
    const swept = new Set<number>();
    for (const { cp, children, related } of p.worlds) {
      for (const [pi, path] of SPEC_PATHS.entries()) {
        for (const [vi, value] of WRONG_VALUES.entries()) {
          if ((pi + vi) % SWEEP_STRIDE !== 0) continue;
          swept.add(vi);
          const parent: Obj = { ...structuredClone(cp), spec: withValueAt(cp.spec, path, value) };
          const deleting: Obj = { ...parent, metadata: { ...parent.metadata, deletionTimestamp: '2026-11-21T11:50:00Z' } };
          const changed = !hasProblem(parent.spec, cp.metadata.name);
          for (const [hook, check] of [['sync', () => checkSync(syncRequest(parent, children, related), FIXED_NOW, false, changed)], ['finalize', () => checkFinalize(syncRequest(deleting, children, related, true), FIXED_NOW, false)]] as const) {
            try {
              check();
            } catch (err) {
              failures.push(`${hook} ${cp.metadata.name} spec.${path.join('.')} = ${JSON.stringify(value) ?? String(value)}: ${(err as Error).message}`);
            }
            checked++;
          }
        }
      }
    }
    t.same(failures.slice(0, 10), [], `${checked} requests, ${failures.length} failed`);
    t.equal(swept.size, WRONG_VALUES.length, 'every wrong value is swept');
    // SWEEP_STRIDE divides the number of values: each path meets the same number of them.
    t.equal(checked, p.worlds.length * SPEC_PATHS.length * (WRONG_VALUES.length / SWEEP_STRIDE) * 2, `every path with ${WRONG_VALUES.length / SWEEP_STRIDE} values`);
  });

  t.test(`sync: ${RUNS} generated requests`, async (t) => {
    fc.assert(
      fc.property(requestArb(p, false), ({ request, now }) => checkSync(request, now)),
      { numRuns: RUNS, seed: SEED },
    );
    t.pass(`${RUNS} requests: nothing left out but re-mint ACs (${observedReMints} re-mints), deterministic, schema and CRD valid, never finalized`);
  });

  t.test(`sync: applying the answer and syncing again reaches a fixed point (${RUNS} requests)`, async (t) => {
    fc.assert(
      fc.property(requestArb(p, false), ({ request, now }) => {
        let parent = request.parent as Obj;
        let children = observedOf(request);
        let last = '';
        for (let pass = 0; pass < 8; pass++) {
          const response = run(syncRequest(parent, children, Object.values(request.related as Obj).flatMap((g) => Object.values(g as Obj)) as Obj[]), now, false);
          const text = JSON.stringify(response);
          if (text === last) {
            fixedPointsChecked++;
            return;
          }
          last = text;
          parent = { ...parent, status: { ...response.status, observedGeneration: parent.metadata.generation } };
          children = applyResponse(response.children, parent, () => undefined, children);
        }
        throw new Error('no fixed point within 8 passes');
      }),
      { numRuns: RUNS, seed: SEED + 1 },
    );
    t.equal(fixedPointsChecked, RUNS);
  });

  t.test(`finalize: ${RUNS} generated requests`, async (t) => {
    fc.assert(
      fc.property(requestArb(p, true), ({ request, now }) => checkFinalize(request, now)),
      { numRuns: RUNS, seed: SEED + 2 },
    );
    t.pass(`${RUNS} requests: only K-ORC children left out, deterministic, valid`);
  });

  t.test('the children of the generated requests were checked against their upstream CRDs', conformance, async (t) => {
    t.ok(admitted.size > 0, `${admitted.size} distinct children admitted by their CRDs`);
  });

  t.test(`customize (both controllers) and CredentialRotation sync: ${RUNS} generated requests each`, async (t) => {
    fc.assert(
      fc.property(requestArb(p, false), fc.anything(), ({ request }, junk) => {
        const cp = { ...(request.parent as Obj), spec: junk };
        const a = customizeControlPlane(cp as never);
        if (JSON.stringify(customizeControlPlane(cp as never)) !== JSON.stringify(a)) throw new Error('customize not deterministic');
        if (validCustomize(a).errors.length > 0) throw new Error(`customize schema: ${validCustomize(a).errors.join('; ')}`);
        const cr = { apiVersion: 'c5c3.io/v1alpha1', kind: 'CredentialRotation', metadata: { name: 'r', namespace: 'openstack', generation: 2 }, spec: junk };
        if (validCustomize(customizeCredentialRotation(cr as never)).errors.length > 0) throw new Error('CR customize schema');
      }),
      { numRuns: RUNS, seed: SEED + 3 },
    );
    fc.assert(
      fc.property(requestArb(p, false), fc.record({ spec: fc.oneof(fc.anything(), fc.record({ target: fc.constantFrom('adminApplicationCredential', 'x'), reMint: fc.boolean(), bootstrap: fc.boolean() })), generation: fc.integer({ min: 0, max: 4 }), latched: fc.option(fc.integer({ min: 0, max: 4 })) }), ({ request, now }, { spec, generation, latched }) => {
        const cr = { apiVersion: 'c5c3.io/v1alpha1', kind: 'CredentialRotation', metadata: { name: 'r', namespace: 'openstack', generation }, spec, status: latched === null ? undefined : { lastTriggeredGeneration: latched } };
        const acs = observedOf(request).filter((o) => o.kind === AC);
        const body = { object: cr, related: objectMap([request.parent, ...acs]) };
        const response = syncCredentialRotation(body as never, { now: () => now }) as Obj;
        if (JSON.stringify(syncCredentialRotation(body as never, { now: () => now })) !== JSON.stringify(response)) throw new Error('not deterministic');
        if (validDecorator(response).errors.length > 0) throw new Error(`schema: ${validDecorator(response).errors.join('; ')}`);
        if ((response.attachments as Obj[]).length !== 0 || response.labels || response.annotations || response.finalized) throw new Error('touched more than its status');
      }),
      { numRuns: RUNS, seed: SEED + 4 },
    );
    t.pass(`${RUNS} requests per hook: deterministic and schema valid`);
  });
});
