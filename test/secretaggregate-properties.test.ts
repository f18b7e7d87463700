// Properties of the SecretAggregate sync hook over generated requests (fast-check): sources
// present or not, with or without the selected keys, overlapping keys, Terminating ones; specs valid
// and not; the target observed, Terminating, renamed, without last-applied, or taken by a foreign
// Secret. Checked against an oracle written here: the target is published exactly when the
// aggregate is complete and unambiguous, then it holds exactly the oracle's data; otherwise every
// observed Secret is returned as it is. Deterministic, schema-valid, no value in the status, and a
// published answer is a fixed point. PROPERTY_RUNS (default 10000) sets the runs.
import t from 'tap';
import fc from 'fast-check';
import { syncSecretAggregate } from '../src/secretaggregate/sync.js';
import { CompositeHookResponse } from '../src/api/hooks.js';
import { compileValidator } from '../src/api/validate.js';
import { keepAsIs, type KubeObject } from '../src/k8s/observed.js';
import { FIXED_NOW } from './support/server.js';
import { applied, objectMap } from './support/world.js';
import { secretErrors } from './support/children.js';
import { GVK } from '../src/k8s/kinds.js';
import type { Obj } from './support/shared.js';

const RUNS = Number(process.env.PROPERTY_RUNS ?? 10_000);
const SEED = Number(process.env.PROPERTY_SEED ?? 20261121);
const validResponse = compileValidator(CompositeHookResponse, 'response', { defaults: false });

const NS = 'openstack';
const SOURCE_NAMES = ['s1', 's2', 's3', 's4'] as const;
const KEYS = ['username', 'password', 'transport_url', 'ca.crt', 'clouds.yaml'] as const;
const TARGETS = ['out', 'out2'] as const;
const b64 = (s: string) => Buffer.from(s, 'utf8').toString('base64');
const valueOf = (secret: string, key: string, n: number) => `val-${secret}-${key}-${n}`;

const parent = (spec: unknown): Obj => ({
  apiVersion: 'c5c3.io/v1alpha1',
  kind: 'SecretAggregate',
  metadata: { name: 'agg', namespace: NS, uid: 'uid-agg', generation: 3 },
  spec,
});

/** The keys each source Secret may hold: some shared, so all-keys sources can conflict. */
const POOL: Record<string, string[]> = {
  s1: ['username', 'password'],
  s2: ['transport_url', 'password'],
  s3: ['ca.crt', 'token'],
  s4: ['clouds.yaml', 'token'],
  out: ['username'],
  Bad_Name: ['username'],
};

const sourceSecret = (name: string) =>
  fc.record({
    keys: fc.oneof({ weight: 6, arbitrary: fc.constant(POOL[name]!) }, { weight: 1, arbitrary: fc.subarray(POOL[name]!) }),
    n: fc.nat(9),
    terminating: fc.nat(9).map((n) => n === 0),
  });

const sourceSpec = fc
  .oneof({ weight: 12, arbitrary: fc.constantFrom(...SOURCE_NAMES) }, { weight: 1, arbitrary: fc.constantFrom('out', 'Bad_Name') })
  .chain((name) => fc.record({ name: fc.constant(name), keys: fc.option(fc.oneof({ weight: 6, arbitrary: fc.subarray(POOL[name]!, { minLength: 1 }) }, { weight: 1, arbitrary: fc.subarray([...POOL[name]!, 'absent']) }), { nil: undefined, freq: 2 }) }));

const specArb = fc.oneof(
  {
    weight: 12,
    arbitrary: fc.record({
      sources: fc.array(sourceSpec, { minLength: 0, maxLength: 3 }),
      target: fc.oneof({ weight: 10, arbitrary: fc.constantFrom<string | undefined>('out', 'out2') }, { weight: 1, arbitrary: fc.constantFrom<string | undefined>('Bad_Name', undefined) }),
    }),
  },
  { weight: 1, arbitrary: fc.constantFrom<unknown>('garbage', null, 7, []) },
);

const observedTarget = fc.record({
  name: fc.constantFrom(...TARGETS),
  keys: fc.subarray([...KEYS], { minLength: 1 }),
  terminating: fc.boolean(),
  lastApplied: fc.boolean(),
});

const request = fc.record({
  spec: specArb,
  sources: fc.record(Object.fromEntries(SOURCE_NAMES.map((n) => [n, fc.option(sourceSecret(n), { nil: undefined, freq: 8 })])) as Record<(typeof SOURCE_NAMES)[number], fc.Arbitrary<{ keys: string[]; n: number; terminating: boolean } | undefined>>),
  observed: fc.uniqueArray(observedTarget, { maxLength: 2, selector: (o) => o.name }),
  foreign: fc.boolean(),
});
type Generated = typeof request extends fc.Arbitrary<infer T> ? T : never;

function sourceObjects(g: Generated): Obj[] {
  return Object.entries(g.sources)
    .filter(([, s]) => s !== undefined)
    .map(([name, s]) => ({
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name, namespace: NS, uid: `uid-${name}`, ...(s!.terminating ? { deletionTimestamp: '2026-11-21T11:00:00Z' } : {}) },
      type: 'Opaque',
      data: Object.fromEntries(s!.keys.map((k) => [k, b64(valueOf(name, k, s!.n))])),
    }));
}

function observedObjects(g: Generated): Obj[] {
  return g.observed.map((o) => {
    const desired = { apiVersion: 'v1', kind: 'Secret', metadata: { name: o.name, namespace: NS, labels: { 'c5c3.io/secretaggregate': 'agg' } }, type: 'Opaque', data: Object.fromEntries(o.keys.map((k) => [k, b64(`old-${k}`)])) };
    const live = applied(desired, parent({}));
    if (!o.lastApplied) delete live.metadata.annotations;
    if (o.terminating) live.metadata.deletionTimestamp = '2026-11-21T11:30:00Z';
    return live;
  });
}

function relatedObjects(g: Generated, observed: Obj[]): Obj[] {
  const related = sourceObjects(g);
  // A foreign Secret of the target's name exists only where no owned one does.
  if (g.foreign && !observed.some((o) => o.metadata.name === 'out')) {
    related.push({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 'out', namespace: NS, uid: 'uid-foreign' }, type: 'Opaque', data: { x: b64('val-foreign-x-0') } });
  }
  // The owned target, seen as related too (customize names it).
  for (const o of observed) related.push(o);
  return related;
}

/** The oracle: the data to publish, or undefined when the aggregate must not be published. */
function oracle(g: Generated, related: Obj[], observed: Obj[]): Record<string, string> | undefined {
  const spec = g.spec as Obj;
  if (spec === null || typeof spec !== 'object' || Array.isArray(spec)) return undefined;
  const target: string | undefined = spec.target;
  if (!target || !/^[a-z0-9]+$/.test(target)) return undefined;
  if (spec.sources.length === 0 || spec.sources.some((s: Obj) => s.name === 'Bad_Name' || s.name === target)) return undefined;
  const owned = observed.find((o) => o.metadata.name === target);
  if (!owned && related.some((r) => r.metadata.name === target && r.metadata.uid === 'uid-foreign')) return undefined;
  if (owned?.metadata.deletionTimestamp) return undefined;
  const data: Record<string, string> = {};
  for (const s of spec.sources as Obj[]) {
    const secret = related.find((r) => r.metadata.name === s.name);
    if (!secret || secret.metadata.deletionTimestamp) return undefined;
    const keys: string[] = s.keys && s.keys.length > 0 ? s.keys : Object.keys(secret.data);
    if (keys.length === 0) return undefined;
    for (const k of keys) {
      if (!(k in secret.data) || k in data) return undefined;
      data[k] = secret.data[k];
    }
  }
  return data;
}

function call(g: Generated, observed: Obj[], related: Obj[], status?: Obj) {
  const spec = g.spec && typeof g.spec === 'object' && !Array.isArray(g.spec)
    ? { sources: (g.spec as Obj).sources.map((s: Obj) => ({ secretRef: { name: s.name }, ...(s.keys ? { keys: s.keys } : {}) })), ...((g.spec as Obj).target ? { target: { name: (g.spec as Obj).target } } : {}) }
    : g.spec;
  const p = { ...parent(spec), ...(status ? { status } : {}) };
  return syncSecretAggregate({ parent: p as never, children: objectMap(observed, [GVK.Secret]) as never, related: objectMap(related, [GVK.Secret]) as never }, { now: () => FIXED_NOW });
}

t.test(`SecretAggregate sync: ${RUNS} generated requests against the oracle`, async (t) => {
  let published = 0;
  fc.assert(
    fc.property(request, (g) => {
      const observed = observedObjects(g);
      const related = relatedObjects(g, observed);
      const answer = call(g, observed, related);
      const ready = (answer.status as Obj).conditions[0];
      const expected = oracle(g, related, observed);
      const label = JSON.stringify(g);

      if (JSON.stringify(call(g, observed, related)) !== JSON.stringify(answer)) throw new Error(`not deterministic: ${label}`);
      const { errors } = validResponse(answer);
      if (errors.length > 0) throw new Error(`response schema: ${errors.join('; ')}`);
      if (/val-/.test(JSON.stringify(answer.status))) throw new Error(`a value in the status: ${label}`);

      if (expected === undefined) {
        if (ready.status !== 'False') throw new Error(`published although the oracle refuses: ${label}`);
        const kept = JSON.stringify(observed.map((o) => keepAsIs(o as KubeObject)).sort((a, b) => (a.metadata.name < b.metadata.name ? -1 : 1)));
        if (JSON.stringify(answer.children) !== kept) throw new Error(`observed Secrets not kept as they are: ${label}`);
        return;
      }
      published++;
      if (ready.status !== 'True' || ready.reason !== 'Aggregated') throw new Error(`complete and unambiguous but not published (${ready.reason}: ${ready.message}): ${label}`);
      // The target, and an owned Secret only where the spec reads it as a source (an old target).
      const asSource = new Set(((g.spec as Obj).sources as Obj[]).map((s) => s.name));
      const keptOwned = observed.filter((o) => o.metadata.name !== (g.spec as Obj).target && asSource.has(o.metadata.name));
      const target = answer.children.find((c) => c.metadata.name === (g.spec as Obj).target) as Obj | undefined;
      if (!target) throw new Error(`published without the target: ${label}`);
      const others = JSON.stringify(answer.children.filter((c) => c !== target));
      if (others !== JSON.stringify(keptOwned.map((o) => keepAsIs(o as KubeObject)))) throw new Error(`published: other owned Secrets wrong (${others}): ${label}`);
      if (JSON.stringify(target.data) !== JSON.stringify(Object.fromEntries(Object.keys(expected).sort().map((k) => [k, expected[k]])))) throw new Error(`target data differs from the oracle: ${label}`);
      if (secretErrors(target).length > 0) throw new Error(`target refused by the API server: ${secretErrors(target).join('; ')}`);

      // Fixed point: the answer applied, synced again, the same answer.
      const live = applied(target, parent({}));
      const stillOwned = [live, ...keptOwned];
      const again = call(g, stillOwned, [...related.filter((r) => r.metadata.name !== target.metadata.name), live], answer.status as Obj);
      if (JSON.stringify(again.children) !== JSON.stringify(answer.children) || JSON.stringify(again.status) !== JSON.stringify(answer.status)) {
        throw new Error(`not a fixed point: ${label}`);
      }
    }),
    { numRuns: RUNS, seed: SEED + 10 },
  );
  t.ok(published > RUNS / 20, `${published} of ${RUNS} requests published a target (the oracle's positive case is exercised)`);
});
