// Scheduled rotation (issue 19), the pure schedule (src/controlplane/credential/schedule.ts): every
// transition, clock jumps and restarts, and a property test of the make-before-break loop over
// random intervals, grace periods, latencies and hook-call sequences.
import t from 'tap';
import fc from 'fast-check';
import {
  DAY_MS,
  MAX_SCHEDULE_RESYNC_SECONDS,
  MIN_PRE_ROTATION_MS,
  effectivePreRotationMs,
  nextDeadline,
  planRotation,
  readSchedule,
  resyncSeconds,
  revokeAt,
  rotationEligibleAt,
  type RotationFacts,
  type Schedule,
} from '../src/controlplane/credential/schedule.js';
import { ObjectIndex } from '../src/k8s/observed.js';

const H = 3_600_000;
const T0 = Date.parse('2026-01-01T00:00:00Z');
const S: Schedule = { intervalMs: 30 * DAY_MS, preRotationMs: 7 * DAY_MS, graceMs: 1 * DAY_MS, source: 'schedule' };
const live = (mintedAt: number, extra: Partial<RotationFacts['published']> = {}) => ({ expiresAt: mintedAt + S.intervalMs, createdAt: mintedAt, minted: true, ...extra });
const facts = (now: number, f: Partial<RotationFacts> = {}): RotationFacts => ({ schedule: S, now, published: live(T0), materialised: true, ...f });

t.test('wait until expiresAt − preRotation, then mint the replacement expiring an interval later', async (t) => {
  t.same(planRotation(facts(T0 + DAY_MS)), { kind: 'wait', dueAt: T0 + 23 * DAY_MS });
  t.same(planRotation(facts(T0 + 23 * DAY_MS - 1)), { kind: 'wait', dueAt: T0 + 23 * DAY_MS });
  t.same(planRotation(facts(T0 + 23 * DAY_MS)), { kind: 'mint', expiresAt: T0 + 53 * DAY_MS });
  t.same(planRotation(facts(T0 + 29 * DAY_MS)), { kind: 'mint', expiresAt: T0 + 59 * DAY_MS }, 'late but before expiry: still make-before-break');
});

t.test('a credential minted without expiresAt lives an interval from its creation; unknown creation is due now', async (t) => {
  t.same(planRotation(facts(T0 + DAY_MS, { published: { createdAt: T0, minted: true } })), { kind: 'wait', dueAt: T0 + 23 * DAY_MS });
  t.same(planRotation(facts(T0 + 40 * DAY_MS, { published: { createdAt: T0, minted: true } })), { kind: 'mint', expiresAt: T0 + 70 * DAY_MS }, 'past its nominal life, Keystone does not enforce it: make-before-break');
  t.same(planRotation(facts(T0, { published: { minted: true } })), { kind: 'mint', expiresAt: T0 + 30 * DAY_MS });
});

t.test('replacement: minting until Available with an id, then switch', async (t) => {
  t.same(planRotation(facts(T0 + 23 * DAY_MS, { replacement: { createdAt: T0 + 23 * DAY_MS, expiresAt: T0 + 53 * DAY_MS, minted: false } })), { kind: 'minting' });
  t.same(planRotation(facts(T0 + 23 * DAY_MS, { replacement: { createdAt: T0 + 23 * DAY_MS, expiresAt: T0 + 53 * DAY_MS, minted: true } })), { kind: 'switch' });
  // The published one expires while its replacement is minting: no re-mint, the replacement is awaited.
  t.same(planRotation(facts(T0 + 31 * DAY_MS, { replacement: { expiresAt: T0 + 53 * DAY_MS, minted: false } })), { kind: 'minting' });
});

t.test('superseded: grace, the materialised clouds.yaml, expiry; then revoke; revoking', async (t) => {
  const switched = T0 + 23 * DAY_MS;
  const superseded = { ...live(T0), supersededAt: switched, terminating: false };
  const published = live(switched);
  t.same(planRotation(facts(switched + H, { published, superseded })), { kind: 'grace', revokeAt: switched + DAY_MS, materialised: true });
  t.match(planRotation(facts(switched + DAY_MS, { published, superseded })), { kind: 'revoke', why: /grace period is over/ });
  t.same(planRotation(facts(switched + 2 * DAY_MS, { published, superseded, materialised: false })), { kind: 'grace', revokeAt: switched + DAY_MS, materialised: false }, 'never before the materialised clouds.yaml carries the successor');
  t.match(planRotation(facts(T0 + 30 * DAY_MS, { published, superseded, materialised: false })), { kind: 'revoke', why: 'it expired' }, 'an expired one is dead weight');
  t.same(planRotation(facts(switched + 2 * DAY_MS, { published, superseded: { ...superseded, terminating: true } })), { kind: 'revoking' });
  t.equal(revokeAt({ ...superseded, supersededAt: T0 + 29.5 * DAY_MS }, S), T0 + 30 * DAY_MS, 'its expiry comes before the end of the grace period');
  t.same(planRotation(facts(T0 + 60 * DAY_MS, { published, superseded: { ...superseded, supersededAt: T0 + 29 * DAY_MS } })).kind, 'revoke', 'a superseded one blocks a new replacement: never a third credential');
});

t.test('expired with no replacement: break-before-make once; clock jumps past several deadlines rotate once', async (t) => {
  t.same(planRotation(facts(T0 + 30 * DAY_MS)), { kind: 'expired', expiredAt: T0 + 30 * DAY_MS });
  t.same(planRotation(facts(T0 + 365 * DAY_MS)), { kind: 'expired', expiredAt: T0 + 30 * DAY_MS }, 'a year later: still one step');
  // After the re-mint the new credential's schedule starts at the mint, not at the missed deadlines.
  const remintedAt = T0 + 365 * DAY_MS;
  t.same(planRotation(facts(remintedAt + H, { published: live(remintedAt) })), { kind: 'wait', dueAt: remintedAt + 23 * DAY_MS });
  // Clock jumps backwards: a deadline not reached again is simply waited for.
  t.same(planRotation(facts(T0 - 10 * DAY_MS)), { kind: 'wait', dueAt: T0 + 23 * DAY_MS });
});

t.test('restarts: the step is a function of the observed facts alone (same facts, same step)', async (t) => {
  const f = facts(T0 + 23 * DAY_MS + 5, { replacement: { createdAt: T0 + 23 * DAY_MS, expiresAt: T0 + 53 * DAY_MS, minted: true } });
  t.same(planRotation(structuredClone(f)), planRotation(f));
});

t.test('preRotation: defaults, floor and cap; deadlines and the resync cap', async (t) => {
  t.equal(effectivePreRotationMs({ ...S, preRotationMs: 0 }), MIN_PRE_ROTATION_MS, 'preRotationDays 0 still overlaps an hour');
  t.equal(effectivePreRotationMs({ ...S, intervalMs: DAY_MS, preRotationMs: 7 * DAY_MS }), DAY_MS / 2, 'at most half the interval');
  t.equal(rotationEligibleAt(live(T0), S, T0), T0 + 23 * DAY_MS);
  const f = facts(T0);
  t.equal(nextDeadline(planRotation(f), f), T0 + 23 * DAY_MS);
  t.equal(resyncSeconds(T0 + 23 * DAY_MS, T0), MAX_SCHEDULE_RESYNC_SECONDS, 'capped at one day');
  t.equal(resyncSeconds(T0 + 1500, T0), 2);
  const g = facts(T0 + 23 * DAY_MS + 2 * DAY_MS, { published: live(T0 + 23 * DAY_MS), superseded: { ...live(T0), supersededAt: T0 + 23 * DAY_MS, terminating: false }, materialised: false });
  t.equal(nextDeadline(planRotation(g), g), undefined, 'past revokeAt, waiting for ESO: no deadline (the AdminCredential stage polls)');
});

t.test('readSchedule: one CredentialRotation declaring intervalDays; defaults; none or several is no schedule', async (t) => {
  const cr = (name: string, spec: Record<string, unknown>) => ({ apiVersion: 'c5c3.io/v1alpha1', kind: 'CredentialRotation', metadata: { name, namespace: 'ns' }, spec: { target: 'adminApplicationCredential', ...spec } });
  const idx = (...crs: object[]) => new ObjectIndex({ 'CredentialRotation.c5c3.io/v1alpha1': Object.fromEntries(crs.map((c) => [`ns/${(c as { metadata: { name: string } }).metadata.name}`, c])) } as never, 'ns');
  t.same(readSchedule(idx(cr('s', { intervalDays: 90 })), 'ns'), { kind: 'schedule', schedule: { intervalMs: 90 * DAY_MS, preRotationMs: 7 * DAY_MS, graceMs: DAY_MS, source: 's' } });
  t.same(readSchedule(idx(cr('s', { intervalDays: 10, preRotationDays: 2, gracePeriodDays: 0 })), 'ns'), { kind: 'schedule', schedule: { intervalMs: 10 * DAY_MS, preRotationMs: 2 * DAY_MS, graceMs: 0, source: 's' } });
  t.match(readSchedule(idx(cr('r', { reMint: true })), 'ns'), { kind: 'none', note: /without a CredentialRotation declaring intervalDays/ });
  t.match(readSchedule(idx(cr('a', { intervalDays: 9 }), cr('b', { intervalDays: 10 })), 'ns'), { kind: 'none', note: /more than one CredentialRotation declares intervalDays \(a, b\)/ });
  t.match(readSchedule(idx(cr('a', { intervalDays: 0 })), 'ns'), { kind: 'none', note: /unusable schedule/ });
});

// ---- Property: the make-before-break loop against a model of K-ORC, ESO and Metacontroller ----

interface Ac {
  n: number;
  createdAt: number;
  expiresAt: number;
  mintedAt: number;
  supersededAt?: number;
  revokeRequestedAt?: number;
  revokedAt?: number;
  /** When the credential it replaced became due (scheduled mints). */
  replaces?: number;
}

interface World {
  acs: Ac[];
  published: number;
  /** What K-ORC reads (the materialised clouds.yaml): AC number, and from when. */
  materialised: number;
  materialisedAt: number;
  problems: string[];
  mints: number;
}

const MAX_LATE_MS = 300_000; // Metacontroller's resyncPeriodSeconds: a call is at most this late

function simulate(s: Schedule, horizon: number, latencies: number[], extraCalls: number[]): World {
  let li = 0;
  const latency = () => latencies[li++ % latencies.length]!;
  const w: World = { acs: [{ n: 0, createdAt: 0, expiresAt: s.intervalMs, mintedAt: 0 }], published: 0, materialised: 0, materialisedAt: 0, problems: [], mints: 1 };
  const valid = (ac: Ac | undefined, at: number) => ac !== undefined && ac.mintedAt <= at && at < ac.expiresAt && (ac.revokedAt === undefined || at < ac.revokedAt);
  const alive = () => w.acs.filter((a) => a.revokedAt === undefined);
  let now = 0;
  const extras = [...extraCalls].sort((a, b) => a - b);
  let requested = 0;
  let guard = 0;
  while (now < horizon) {
    if (++guard > 100000) throw new Error(`loop at t=${now} ${JSON.stringify(w.acs.slice(-2))} pub=${w.published} mat=${w.materialised}`);
    // The world moves to `now`: revocations complete; check at every instant something changes.
    for (const a of w.acs) if (a.revokeRequestedAt !== undefined && a.revokedAt === undefined && a.revokeRequestedAt + 1000 <= now) a.revokedAt = a.revokeRequestedAt + 1000;
    if (!valid(w.acs[w.materialised], now)) w.problems.push(`t=${now}: K-ORC reads credential ${w.materialised}, not valid`);
    if (alive().length > 2) w.problems.push(`t=${now}: ${alive().length} admin credentials`);
    if (w.published !== w.materialised && w.materialisedAt <= now) w.materialised = w.published;

    // The hook: roles as credential/slots.ts resolves them.
    const pub = w.acs[w.published]!;
    const others = alive().filter((a) => a !== pub);
    const other = others[0];
    const f: RotationFacts = {
      schedule: s,
      now,
      published: { expiresAt: pub.expiresAt, createdAt: pub.createdAt, minted: pub.mintedAt <= now },
      materialised: w.materialised === w.published,
    };
    if (other && other.supersededAt !== undefined) f.superseded = { expiresAt: other.expiresAt, createdAt: other.createdAt, minted: true, supersededAt: other.supersededAt, terminating: other.revokeRequestedAt !== undefined };
    else if (other) f.replacement = { expiresAt: other.expiresAt, createdAt: other.createdAt, minted: other.mintedAt <= now };
    const step = planRotation(f);
    let event = Infinity;
    switch (step.kind) {
      case 'mint': {
        const due = rotationEligibleAt(f.published, s, now);
        // On time, or (preRotation capped at half the interval) right after the superseded one's revocation.
        if (now > due + 2 * (MAX_LATE_MS + 2000)) w.problems.push(`t=${now}: mint ${now - due} ms after it was due`);
        const ac: Ac = { n: w.acs.length, createdAt: now, expiresAt: step.expiresAt, mintedAt: now + latency(), replaces: due };
        w.acs.push(ac);
        w.mints++;
        event = ac.mintedAt;
        break;
      }
      case 'switch':
        pub.supersededAt = now;
        w.published = other!.n;
        w.materialisedAt = now + latency();
        event = w.materialisedAt;
        break;
      case 'revoke': {
        other!.revokeRequestedAt = now;
        // Grace after the switch (or the materialised clouds.yaml, if later), or its expiry; plus
        // one resync period, and a second for resyncAfterSeconds rounding up.
        const bound = Math.min(Math.max(other!.supersededAt! + s.graceMs, w.materialisedAt), other!.expiresAt);
        if (now > bound + MAX_LATE_MS + 1000) w.problems.push(`t=${now}: superseded credential ${other!.n} revoked ${now - bound} ms late`);
        event = now + 1000;
        break;
      }
      case 'expired':
        w.problems.push(`t=${now}: the published credential expired although the hook was called on time`);
        break;
      default:
        break;
    }
    if (step.kind === 'minting' && other) event = Math.max(other.mintedAt, now + 1);
    if (step.kind === 'grace' && !step.materialised) event = Math.max(w.materialisedAt, now + 1);
    if (step.kind === 'revoking') event = now + 1000;
    const deadline = nextDeadline(step, f);
    requested = deadline === undefined ? now + MAX_SCHEDULE_RESYNC_SECONDS * 1000 : now + resyncSeconds(deadline, now) * 1000;
    // The next call: the earliest of the requested resync, a watched change, and an unrelated
    // call (another child changed, Metacontroller's resync); each up to one resync period late.
    while (extras.length > 0 && extras[0]! <= now) extras.shift();
    const next = Math.min(requested, event, extras[0] ?? Infinity);
    const late = latencies[li++ % latencies.length]! % MAX_LATE_MS;
    now = Math.max(now + 1, next + late);
  }
  return w;
}

t.test('property: never without a valid credential K-ORC reads, never more than two, revoked within grace + one resync, one mint per due rotation', async (t) => {
  let runs = 0;
  let rotations = 0;
  fc.assert(
    fc.property(
      fc.integer({ min: 1, max: 120 }),
      fc.integer({ min: 0, max: 30 }),
      fc.integer({ min: 0, max: 10 }),
      fc.array(fc.integer({ min: 0, max: 25 * 60_000 }), { minLength: 1, maxLength: 20 }),
      fc.array(fc.integer({ min: 0, max: 400 * DAY_MS }), { maxLength: 50 }),
      (intervalDays, preDays, graceDays, latencies, extraCalls) => {
        const s: Schedule = { intervalMs: intervalDays * DAY_MS, preRotationMs: preDays * DAY_MS, graceMs: graceDays * DAY_MS, source: 'p' };
        const horizon = 400 * DAY_MS;
        const w = simulate(s, horizon, latencies, extraCalls);
        runs++;
        rotations += w.mints - 1;
        // One mint per due rotation: every credential that was published and came due before the
        // end was replaced exactly once, and no other mint happened.
        const replacedDues = w.acs.filter((a) => a.replaces !== undefined).map((a) => a.replaces!);
        const dueCount = w.acs.filter((a) => a.expiresAt - effectivePreRotationMs(s) + MAX_LATE_MS < horizon - 2 * MAX_LATE_MS).length;
        if (new Set(replacedDues).size !== replacedDues.length) w.problems.push('two mints for one due rotation');
        if (replacedDues.length < dueCount - 1) w.problems.push(`${dueCount} rotations due, ${replacedDues.length} minted`);
        if (w.problems.length > 0) throw new Error(`interval ${intervalDays} d, pre ${preDays} d, grace ${graceDays} d: ${w.problems.slice(0, 3).join('; ')}`);
        return true;
      },
    ),
    { numRuns: 300, seed: 19, endOnFailure: true },
  );
  t.equal(runs, 300);
  t.ok(rotations >= 300 * 3, `${rotations} rotations over ${runs} random schedules of 400 days`);
  t.comment(`property: ${runs} runs, ${rotations} rotations`);
});
