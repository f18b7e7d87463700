// Times read back from objects (issue 41 item 1.6, src/k8s/time.ts, docs/architecture.md §1.4, §6.2):
// only a date-time a CRD admits is a time; what the service writes stays one; and a superseded
// credential whose `c5c3.io/superseded-at` is edited to anything (the last time a Date can hold,
// year 9999, a word) costs no sync (no 500), no status the API server refuses, and no credential:
// the annotation is stamped again and the old credential is revoked a full grace period later.
import t from 'tap';
import fc from 'fast-check';
import { FIRST_TIME_MS, formatSeconds, LAST_TIME_MS, readTime } from '../src/k8s/time.js';
import { DAY_MS } from '../src/controlplane/credential/schedule.js';
import { ADMIN_AC_LABEL, ADMIN_AC_LABEL_VALUE } from '../src/controlplane/names.js';
import { simulation } from './support/simulation.js';
import { managedCP } from './support/sync.js';
import type { Obj } from './support/shared.js';

/** What the API server's `format: date-time` admits (RFC 3339, four-digit year), as the CRDs declare it. */
const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;
const SUPERSEDED_AT = 'c5c3.io/superseded-at';

t.test('readTime: RFC 3339 date-times a CRD admits, nothing else', async (t) => {
  for (const ok of ['2026-11-21T12:00:00Z', '2026-11-21T12:00:00.5Z', '2026-11-21t12:00:00z', '2026-11-21T12:00:00+01:00', '2024-02-29T00:00:00Z', '0000-01-01T00:00:00Z', '9999-12-31T23:59:59Z']) {
    t.equal(readTime(ok), Date.parse(ok), ok);
  }
  for (const bad of ['+275760-09-13T00:00:00.000Z', '-000001-01-01T00:00:00Z', '10000-01-01T00:00:00Z', '2026-02-30T00:00:00Z', '2025-02-29T00:00:00Z', '2026-13-01T00:00:00Z', '2026-11-21T24:00:00Z', '2026-11-21', '2026-11-21 12:00:00Z', '2026-11-21T12:00:00', 'yesterday', '', ' 2026-11-21T12:00:00Z', 1_700_000_000_000]) {
    t.equal(readTime(bad), undefined, String(bad));
  }
});

t.test('formatSeconds: every number gives a date-time a CRD admits, never a throw', async (t) => {
  t.equal(formatSeconds(8.64e15 + DAY_MS), '9999-12-31T23:59:59Z', 'past the last Date: the last date-time');
  t.equal(formatSeconds(Date.parse('9999-12-31T23:59:59Z') + DAY_MS), '9999-12-31T23:59:59Z', 'year 10000: the last date-time');
  t.equal(formatSeconds(Number.NaN), '9999-12-31T23:59:59Z');
  t.equal(formatSeconds(-8.64e15), '0000-01-01T00:00:00Z');
  t.equal(formatSeconds(Date.parse('2026-11-21T12:00:00.999Z')), '2026-11-21T12:00:00Z', 'whole seconds');
  t.doesNotThrow(() =>
    fc.assert(
      fc.property(fc.oneof(fc.double(), fc.integer({ min: FIRST_TIME_MS - DAY_MS, max: LAST_TIME_MS + DAY_MS })), (ms) => {
        const text = formatSeconds(ms);
        return DATE_TIME.test(text) && readTime(text) !== undefined;
      }),
      { numRuns: 2000, seed: 41 },
    ),
  );
});

const adminAcs = (sim: Obj) => (sim.cluster.list((o: Obj) => o.kind === 'ApplicationCredential' && o.metadata.labels?.[ADMIN_AC_LABEL] === ADMIN_AC_LABEL_VALUE) as Obj[]);

for (const hostile of ['+275760-09-13T00:00:00.000Z', '9999-12-31T23:59:59Z', 'yesterday']) {
  t.test(`a superseded-at of ${JSON.stringify(hostile)}: every sync answered, the status admitted, the old credential revoked a grace period after the service found it`, async (t) => {
    const { sim, cp } = await simulation(t, managedCP(), `times-${hostile}`);
    const ready = () => sim.get(cp)?.status?.conditions?.some((c: Obj) => c.type === 'Ready' && c.status === 'True');
    t.ok(await sim.runUntil(ready, 400), 'converged');
    const live = sim.get(cp)!;
    const spec = structuredClone(live.spec);
    spec.korc.adminCredential.applicationCredential = { ...spec.korc.adminCredential.applicationCredential, rotation: { mode: 'Scheduled' } };
    sim.cluster.update({ ...live, spec }, 'user');
    sim.createCredentialRotation({ metadata: { name: 'schedule', namespace: cp.namespace }, spec: { target: 'adminApplicationCredential', intervalDays: 30, preRotationDays: 7, gracePeriodDays: 1 } });
    const superseded = () => adminAcs(sim as unknown as Obj).find((o) => o.metadata.annotations?.[SUPERSEDED_AT] !== undefined);
    t.ok(await sim.runUntil(() => superseded() !== undefined, 4000), 'a scheduled rotation superseded the first credential');
    const old = superseded()!;
    const oldId = old.status.id as string;
    sim.cluster.update({ ...old, metadata: { ...old.metadata, annotations: { ...old.metadata.annotations, [SUPERSEDED_AT]: hostile } } }, 'user');
    const editedAt = sim.now.getTime();

    const record = await sim.step();
    t.same(record.errors, [], 'the sync is answered (no 500)');
    const status = sim.get(cp)!.status.adminApplicationCredential;
    t.match(status.superseded, { id: oldId, revokeAt: DATE_TIME }, 'revokeAt is a date-time the CRD admits');
    t.ok(readTime(status.superseded.revokeAt)! >= editedAt + DAY_MS - 1000, 'not before a full grace period from now');
    const restamped = adminAcs(sim as unknown as Obj).find((o) => o.status?.id === oldId)!;
    t.match(restamped.metadata.annotations[SUPERSEDED_AT], DATE_TIME, 'the annotation is stamped again');
    t.ok(Math.abs(readTime(restamped.metadata.annotations[SUPERSEDED_AT])! - editedAt) < DAY_MS, '… with the time the service found it');

    const errors: string[] = [];
    const gone = () => !adminAcs(sim as unknown as Obj).some((o) => o.status?.id === oldId);
    t.ok(await sim.runUntil(gone, 2000, () => errors.push(...sim.rounds.at(-1)!.errors)), 'the superseded credential is revoked in the end');
    t.same(errors, [], 'no sync failed meanwhile');
    t.ok(sim.world.openstack.revoked.includes(oldId), 'revoked in Keystone');
    t.ok(sim.now.getTime() >= editedAt + DAY_MS - 1000, 'no earlier than a grace period after the edit');
    t.equal(sim.world.openstack.applicationCredentials.size, 1, 'one credential lives');
  });
}
