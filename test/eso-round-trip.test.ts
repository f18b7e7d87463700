// ESO's contract as the hooks read it (src/k8s/eso.ts: the golden vectors of ESO's own formulas)
// and the round-trip rule built on it (src/controlplane/eso-round-trip.ts, DESIGN §9.13): the push
// is triggered by the observed Secret and proven by ESO's syncedResourceVersion; the read-back is
// forced after the proven push and retried only after ESO acknowledged the last refresh and a
// backoff; nothing moves once everything matches.
import t from 'tap';
import { esoDataHash, esoResourceVersion } from '../src/k8s/eso.js';
import { forcedRefreshBackoff, pushState, pushTrigger, refreshPlan, sourceDigest, type RefreshInput } from '../src/controlplane/eso-round-trip.js';
import type { KubeObject } from '../src/k8s/observed.js';
import type { Obj } from './support/shared.js';

t.test("esoResourceVersion: ESO's GetResourceVersion (generation, sha3-224 of %+v of annotations and labels)", async (t) => {
  // Vectors produced by Go with ESO's code (../shared/reference/external-secrets-roundtrip.md §3.3; issue 30).
  const cases: [number | undefined, Obj | undefined, Obj | undefined, string][] = [
    [1, undefined, undefined, '1-f47fe3c0b255b6dd8047cdffa772587bb829efe7a1cb70febeda2eb2'],
    [3, { 'external-secrets.io/force-sync': 'abc', b: 'x y:z' }, { 'controller-uid': '123', app: 'k' }, '3-e25c22ca7d3e8715172445aaf4f1253046e8f808a6438ce0ecb4cbd7'],
    [2, { 'metacontroller.k8s.io/last-applied-configuration': '{"a":[1,2],"b":"c d"}', Z: '1', a: '\n' }, {}, '2-fdac249148ee21f523b586e5157091fcfee323f73d831d5e06482b5b'],
  ];
  for (const [generation, annotations, labels, want] of cases) {
    t.equal(esoResourceVersion({ metadata: { name: 'x', generation, annotations, labels } }), want, `generation ${generation}`);
  }
  t.equal(esoResourceVersion({ metadata: { generation: 1, annotations: {}, labels: {} } }), cases[0]![3], 'nil and empty maps print alike (map[])');
  t.equal(esoResourceVersion({ metadata: {} }).split('-')[0], '0', 'no generation prints 0');
  // Our own: key order in the object does not matter (Go sorts map keys); a value change does.
  const a = esoResourceVersion({ metadata: { generation: 4, annotations: { b: '2', a: '1' } } });
  t.equal(a, esoResourceVersion({ metadata: { generation: 4, annotations: { a: '1', b: '2' } } }));
  t.not(a, esoResourceVersion({ metadata: { generation: 4, annotations: { a: '1', b: '3' } } }));
  t.not(a, esoResourceVersion({ metadata: { generation: 5, annotations: { a: '1', b: '2' } } }));
  t.not(a, esoResourceVersion({ metadata: { generation: 4, annotations: { a: '1' }, labels: { b: '2' } } }), 'an annotation is not a label');
});

t.test("esoDataHash: ESO's ObjectHash of a Secret's data (map[string][]byte, bytes in decimal)", async (t) => {
  const b64 = (s: string) => Buffer.from(s, 'utf8').toString('base64');
  t.equal(esoDataHash({ a: b64('é'), 'clouds.yaml': b64('clouds:\n  admin: {}\n') }), 'b19018f370e8d583715e034f939fff4169d6443d3cb321af5e9890cb');
  t.equal(esoDataHash({}), '74a974446e359fb3e6baff9bd0058950e6edd0f040888d9989b0a11b');
  t.equal(esoDataHash(undefined), esoDataHash({}));
});

const secret = (data: Record<string, string>, name = 'src'): KubeObject => ({ apiVersion: 'v1', kind: 'Secret', metadata: { name, namespace: 'ns' }, data });
const ready = (reason: string, status = 'True') => ({ type: 'Ready', status, reason, message: '', lastTransitionTime: '2026-01-01T00:00:00Z' });

/** A PushSecret as ESO leaves it after a successful push of `meta` (its syncedResourceVersion). */
function pushSecret(annotations: Record<string, string> | undefined, pushedWith: Record<string, string> | undefined = annotations, reason = 'Synced'): KubeObject {
  const meta = { name: 'p', namespace: 'ns', generation: 1, annotations };
  return {
    apiVersion: 'external-secrets.io/v1alpha1',
    kind: 'PushSecret',
    metadata: meta,
    status: { conditions: [ready(reason)], refreshTime: '2026-01-01T00:00:00Z', syncedResourceVersion: esoResourceVersion({ metadata: { ...meta, annotations: pushedWith } }) },
  };
}

t.test('sourceDigest: the whole data, keys in order, values length-prefixed', async (t) => {
  const base = sourceDigest(secret({ a: 'MQ==', b: 'Mg==' }));
  t.equal(base, sourceDigest(secret({ b: 'Mg==', a: 'MQ==' })), 'key order does not count');
  t.not(base, sourceDigest(secret({ a: 'MQ==', b: 'Mw==' })), 'any value counts (a re-mint changes value, not always clouds.yaml)');
  t.not(sourceDigest(secret({ ab: 'c' })), sourceDigest(secret({ a: 'bc' })), 'keys and values that run together alike differ');
  t.match(base, /^[0-9a-f]{64}$/);
});

t.test('pushTrigger: the digest of the observed Secret, never of the desired one; echoed before the Secret exists', async (t) => {
  const s = secret({ value: 'djE=' });
  t.same(pushTrigger(s, undefined), { 'c5c3.io/source-sha256': sourceDigest(s) });
  const p = pushSecret({ 'c5c3.io/source-sha256': 'older' });
  t.same(pushTrigger(undefined, p), { 'c5c3.io/source-sha256': 'older' }, 'no Secret observed: the observed annotation is kept');
  t.equal(pushTrigger(undefined, undefined), undefined, 'nothing observed: no annotation (the creation pushes)');
});

t.test('pushState: done only when ESO pushed after the digest of the observed Secret was on the PushSecret', async (t) => {
  const s = secret({ value: 'djE=' });
  const digest = { 'c5c3.io/source-sha256': sourceDigest(s) };
  t.same(pushState('p', 'src', s, pushSecret(digest)), { done: true, detail: '' });
  t.match(pushState('p', 'src', s, undefined), { done: false, detail: /PushSecret p is being created/ });
  t.match(pushState('p', 'src', undefined, pushSecret(digest)), { done: false, detail: /Secret src is being created/ });
  t.match(pushState('p', 'src', secret({ value: 'djI=' }), pushSecret(digest)), { done: false, detail: /is being asked to push the current content of Secret src/ }, 'the Secret changed since');
  t.match(pushState('p', 'src', s, pushSecret(digest, { 'c5c3.io/source-sha256': 'older' })), { done: false, detail: /has not pushed the current content of Secret src yet \(its status.syncedResourceVersion is from before/ }, 'Ready/Synced from the previous push');
  t.match(pushState('p', 'src', s, pushSecret(digest, digest, 'Errored')), { done: false, detail: /not Ready yet \(Errored\)/ });
  const failed = pushSecret(digest);
  (failed.status as Obj).conditions = [ready('Errored', 'False')];
  t.match(pushState('p', 'src', s, failed), { done: false }, 'a failed push keeps the old syncedResourceVersion but is not Ready');
  const noStatus = { ...pushSecret(digest), status: undefined };
  t.match(pushState('p', 'src', s, noStatus), { done: false });
  const terminating = pushSecret(digest);
  (terminating.metadata as Obj).deletionTimestamp = '2026-01-01T00:00:00Z';
  t.match(pushState('p', 'src', s, terminating), { done: false, detail: /being deleted/ });
});

const H = 'a'.repeat(64);
const T0 = Date.parse('2026-11-21T12:00:00Z');

/** An ExternalSecret with these annotations, acknowledged by ESO (or not) at `refreshed`. */
function es(annotations: Record<string, string> | undefined, opts: { acked?: boolean; refreshed?: number; reason?: string } = {}): KubeObject {
  const meta = { name: 'e', namespace: 'ns', generation: 1, annotations };
  const acked = opts.acked ?? true;
  return {
    apiVersion: 'external-secrets.io/v1',
    kind: 'ExternalSecret',
    metadata: meta,
    status: {
      conditions: [ready(opts.reason ?? 'SecretSynced')],
      refreshTime: new Date(opts.refreshed ?? T0).toISOString().replace(/\.\d{3}Z$/, 'Z'),
      syncedResourceVersion: esoResourceVersion({ metadata: acked ? meta : { ...meta, annotations: {} } }),
    },
  };
}

const plan = (over: Partial<RefreshInput>) =>
  refreshPlan({ esName: 'e', documentHash: H, pushed: true, observedEs: undefined, materialised: false, now: () => new Date(T0), ...over });
const noClock = () => {
  throw new Error('the clock was read');
};

t.test('refreshPlan: force-sync only after the proven push; kept until then', async (t) => {
  t.same(plan({ pushed: false, observedEs: es({ 'external-secrets.io/force-sync': 'old' }), now: noClock }).annotations, { 'external-secrets.io/force-sync': 'old' }, 'not pushed: observed value kept');
  t.equal(plan({ pushed: false, observedEs: undefined, now: noClock }).annotations, undefined, 'not pushed, nothing observed: none');
  t.match(plan({ pushed: false, now: noClock }), { synced: false, detail: /refreshed once the push is proven/ });
  const first = plan({ observedEs: es({ 'external-secrets.io/force-sync': 'old', 'c5c3.io/force-sync-attempt': '3' }), now: noClock });
  t.same(first.annotations, { 'external-secrets.io/force-sync': H }, 'pushed: the document hash, the retry counter dropped');
  t.match(first, { synced: false, detail: /refresh requested/ });
  t.same(plan({ observedEs: undefined, now: noClock }).annotations, { 'external-secrets.io/force-sync': H }, 'pushed, no ExternalSecret yet: created with it');
});

t.test('refreshPlan: a fixed point once the materialised Secret holds the document (no clock read)', async (t) => {
  const observed = es({ 'external-secrets.io/force-sync': H, 'c5c3.io/force-sync-attempt': '2' });
  const p = plan({ observedEs: observed, materialised: true, now: noClock });
  t.same(p, { annotations: { 'external-secrets.io/force-sync': H, 'c5c3.io/force-sync-attempt': '2' }, synced: true, detail: '' }, 'kept exactly as observed');
});

t.test('refreshPlan: retries only after ESO acknowledged the last refresh and the backoff passed', async (t) => {
  const at = (attempt: number, acked: boolean, refreshed: number, nowMs: number) =>
    plan({ observedEs: es({ 'external-secrets.io/force-sync': H, ...(attempt > 0 ? { 'c5c3.io/force-sync-attempt': String(attempt) } : {}) }, { acked, refreshed }), now: () => new Date(nowMs) });
  const unacked = at(0, false, T0, T0 + 3600_000);
  t.same(unacked.annotations, { 'external-secrets.io/force-sync': H }, 'not acknowledged: never another stamp, however long');
  t.match(unacked.detail, /waiting for ESO to acknowledge refresh 1/);
  const noClockUnacked = plan({ observedEs: es({ 'external-secrets.io/force-sync': H }, { acked: false }), now: noClock });
  t.equal(noClockUnacked.synced, false, 'waiting for the acknowledgement reads no clock');
  const failing = plan({ observedEs: es({ 'external-secrets.io/force-sync': H }, { reason: 'SecretSyncedError' }) });
  t.match(failing.detail, /waiting for ESO to acknowledge/, 'a refresh ESO reports failed is ESO\'s to retry');

  const early = at(0, true, T0, T0 + 14_000);
  t.same(early.annotations, { 'external-secrets.io/force-sync': H }, '14 s after the acknowledged refresh: not yet');
  t.match(early.detail, /refresh 1 read an older document; next forced refresh in 1 s/);
  t.same(at(0, true, T0, T0 + 15_000).annotations, { 'external-secrets.io/force-sync': H, 'c5c3.io/force-sync-attempt': '1' }, '15 s: the second refresh');
  t.same(at(1, true, T0, T0 + 29_000).annotations, { 'external-secrets.io/force-sync': H, 'c5c3.io/force-sync-attempt': '1' }, 'then 30 s');
  t.same(at(1, true, T0, T0 + 30_000).annotations, { 'external-secrets.io/force-sync': H, 'c5c3.io/force-sync-attempt': '2' });
  t.same([0, 1, 2, 3, 4, 5, 6, 40].map(forcedRefreshBackoff), [15, 30, 60, 120, 240, 300, 300, 300], 'doubling from 15 s, at most 5 minutes');
  t.same(at(9, true, T0, T0 + 299_000).annotations?.['c5c3.io/force-sync-attempt'], '9', 'capped at 5 minutes');
  t.same(at(9, true, T0, T0 + 300_000).annotations?.['c5c3.io/force-sync-attempt'], '10');
  // ESO's clock ahead of ours: the refresh time is clamped to now, so the wait is one backoff from now.
  t.match(at(0, true, T0 + 3600_000, T0).detail, /next forced refresh in 15 s/);
  // A counter someone mangled reads as 0.
  t.same(plan({ observedEs: es({ 'external-secrets.io/force-sync': H, 'c5c3.io/force-sync-attempt': 'x' }), now: () => new Date(T0 + 15_000) }).annotations, { 'external-secrets.io/force-sync': H, 'c5c3.io/force-sync-attempt': '1' });
});
