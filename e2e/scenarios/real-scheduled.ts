// Scheduled rotation against the real Keystone and K-ORC (issue 31). A day cannot pass in a test:
// the scenario moves the hooks' clock with the service's replay setting CLOCK (README "Replay a
// hook call", docs/configuration.md `CLOCK`: a fixed instant, never for a cluster), restarting the
// service past the rotation point, and back to the wall clock afterwards. Keystone, K-ORC and ESO keep real time; the
// expiries the hook sets are in the future for Keystone either way.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import type { Obj } from '../../src/sim/cluster.js';
import { GVK } from '../../src/k8s/kinds.js';
import { childNames } from '../../src/controlplane/names.js';
import type { Scenario } from './support.js';
import { sleep, check, waitUntil, cpRef, childrenOf, ensureNamespace, createControlPlane, waitReady, applyErrors, cutover, REAL_SCHEDULED_NS, REAL_TAKEOVER_NS } from './support.js';
import { REAL_NAME, korcCredential } from './real-keystone.js';

/** Keystone's expires_at (UTC, no zone, microseconds) in ms since the epoch. */
const keystoneTime = (t: string | null | undefined) => (t ? Date.parse(/[zZ]|[+-]\d\d:\d\d$/.test(t) ? t : `${t}Z`) : NaN);

export function realScheduledScenarios(shared: string): Scenario[] {
  const ns = REAL_SCHEDULED_NS;
  const ref = cpRef(ns, REAL_NAME);
  const names = childNames(REAL_NAME);
  return [
    {
      id: 23,
      title: 'real Keystone and K-ORC: scheduled rotation: Keystone holds the expiresAt the hook set; past the rotation point the replacement is minted and published before the old credential is revoked, never zero valid credentials',
      async run(ctx) {
        await ensureNamespace(ctx, ns);
        const example = parse(readFileSync(join(shared, 'examples', 'controlplane-full-managed.yaml'), 'utf8')) as Obj;
        const spec = structuredClone(example.spec) as Obj;
        spec.korc = { ...(spec.korc ?? {}), adminCredential: { ...(spec.korc?.adminCredential ?? {}), applicationCredential: { ...(spec.korc?.adminCredential?.applicationCredential ?? {}), rotation: { mode: 'Scheduled' } } } };
        await ctx.kube.create({ apiVersion: GVK.CredentialRotation.apiVersion, kind: 'CredentialRotation', metadata: { name: 'admin-schedule', namespace: ns }, spec: { target: 'adminApplicationCredential', intervalDays: 1, preRotationDays: 0, gracePeriodDays: 0 } });
        const created = await createControlPlane(ctx, { metadata: { name: REAL_NAME, namespace: ns }, spec });
        const cp = await waitReady(ctx, ref, 300_000, (o) => !!o.status?.adminApplicationCredential?.expiresAt && !!o.status?.adminApplicationCredential?.id);
        const first = cp.status.adminApplicationCredential;
        const api = ctx.keystones.api(ns, names.keystone);
        check(!!api, `Keystone ${ns}/${names.keystone} does not serve`);
        const keystone = api!;
        const expiresIn = async (id: string) => keystoneTime((await keystone.applicationCredentials()).find((a) => a.id === id)?.expires_at);
        const firstExpiry = await expiresIn(first.id);
        check(Math.abs(firstExpiry - Date.parse(first.expiresAt)) < 1000, `Keystone's expires_at for ${first.id} is ${new Date(firstExpiry).toISOString()}, the hook set ${first.expiresAt}`);
        console.log(`    Keystone: credential ${first.id} expires_at ${new Date(firstExpiry).toISOString()} as set; rotation point ${first.rotationEligibleAt}`);

        // Past the rotation point: the hooks' clock moves; Keystone is polled all along.
        const clock = new Date(Date.parse(first.rotationEligibleAt) + 60_000).toISOString();
        const seen: { ids: string[]; korc: string | undefined }[] = [];
        let polling = true;
        const poller = (async () => {
          while (polling) {
            try {
              const ids = (await keystone.applicationCredentials()).map((a) => a.id as string);
              seen.push({ ids, korc: (await korcCredential(ctx, ns))?.id });
            } catch (err) {
              seen.push({ ids: [], korc: `error: ${(err as Error).message}` });
            }
            await sleep(250);
          }
        })();
        let next: Obj | undefined;
        try {
          await ctx.h.restartService({ CLOCK: clock });
          next = await waitUntil('a replacement published and the old credential gone from Keystone', async () => {
            const now = (await ctx.kube.get(ref))?.status?.adminApplicationCredential;
            if (!now?.id || now.id === first.id) return undefined;
            const cred = await korcCredential(ctx, ns);
            const ids = (await keystone.applicationCredentials()).map((a) => a.id as string);
            return cred?.id === now.id && !ids.includes(first.id) ? now : undefined;
          }, 300_000, ctx);
        } finally {
          polling = false;
          await poller;
          await ctx.h.restartService();
        }
        const empty = seen.filter((s) => s.ids.length === 0);
        check(empty.length === 0, `Keystone held no admin credential in ${empty.length} of ${seen.length} polls`);
        const unusable = seen.filter((s) => !s.korc || !s.ids.includes(s.korc));
        check(unusable.length === 0, `k-orc-clouds-yaml named a credential Keystone did not hold in ${unusable.length} of ${seen.length} polls: ${JSON.stringify(unusable.slice(0, 3))}`);
        // Make before break, exactly (etcd revision order): the replacement had its id in Keystone
        // before the old credential's object began terminating (K-ORC revokes only then).
        const acEvents = ctx.rec.events.filter((e) => e.kind === 'ApplicationCredential' && e.namespace === ns);
        const minted = acEvents.find((e) => e.orcId === next!.id);
        const revoking = acEvents.find((e) => e.orcId === first.id && e.terminating);
        check(!!minted && !!revoking && minted.rv < revoking.rv, `the replacement ${next!.id} was not minted before ${first.id} began to be revoked (revisions ${minted?.rv} and ${revoking?.rv})`);
        const cred = await korcCredential(ctx, ns);
        check(!!cred && (await keystone.acceptsApplicationCredential(cred.id, cred.secret)), 'Keystone does not accept the replacement in k-orc-clouds-yaml');
        const nextExpiry = await expiresIn(next!.id);
        check(Math.abs(nextExpiry - Date.parse(next!.expiresAt)) < 1000 && Math.abs(Date.parse(next!.expiresAt) - (Date.parse(clock) + 86_400_000)) < 120_000, `the replacement expires at ${new Date(nextExpiry).toISOString()} in Keystone, ${next!.expiresAt} by the hook (clock ${clock} + 1 day)`);
        console.log(`    clock moved to ${clock}: ${next!.id} minted beside ${first.id}, published, then ${first.id} revoked; ${seen.length} polls, never fewer than 1 credential, k-orc-clouds-yaml always a live one; Keystone expires_at ${new Date(nextExpiry).toISOString()} as set`);
        await ctx.kube.delete(ref);
        await waitUntil('ControlPlane deleted and every child gone', async () => !(await ctx.kube.get(ref)) && (await childrenOf(ctx, ns, created.metadata.uid)).length === 0, 300_000, ctx);
      },
    },
    {
      id: 24,
      title: 'real Keystone and K-ORC: takeover from the reference operator: the credential Keystone holds is the same before and after the cutover, nothing deleted or replaced',
      async run(ctx) {
        const tns = REAL_TAKEOVER_NS;
        const tref = cpRef(tns, REAL_NAME);
        const example = parse(readFileSync(join(shared, 'examples', 'controlplane-full-managed.yaml'), 'utf8')) as Obj;
        const created = await createControlPlane(ctx, { metadata: { name: REAL_NAME, namespace: tns }, spec: structuredClone(example.spec) });
        const uid = created.metadata.uid as string;
        const cp = await waitReady(ctx, tref, 300_000, (o) => !!o.status?.adminApplicationCredential?.id);
        const api = ctx.keystones.api(tns, names.keystone);
        check(!!api, `Keystone ${tns}/${names.keystone} does not serve`);
        const keystone = api!;
        const held = async () => (await keystone.applicationCredentials()).map((a) => a.id as string).sort();
        const beforeIds = await held();
        check(beforeIds.length === 1 && beforeIds[0] === cp.status.adminApplicationCredential.id, `Keystone holds ${JSON.stringify(beforeIds)} before the cutover, status says ${cp.status.adminApplicationCredential.id}`);
        const { before, mark, mcMark } = await cutover(ctx, tns, REAL_NAME, uid);
        await waitReady(ctx, tref, 120_000);
        // Long enough for a re-mint to show: K-ORC mints within seconds (scenario 16).
        await sleep(15_000);
        const after = new Map((await childrenOf(ctx, tns, uid)).map((c) => [`${c.kind}/${c.metadata.name}`, c.metadata.uid as string]));
        const replaced = [...before].filter(([k, u]) => after.get(k) !== u).map(([k]) => k);
        check(replaced.length === 0, `children deleted or replaced: ${replaced.join(', ')}`);
        const deletions = ctx.rec.since(mark, (e) => e.namespace === tns && e.terminating && e.kind !== 'ControlPlane');
        check(deletions.length === 0, `deletions: ${[...new Set(deletions.map((e) => `${e.kind}/${e.name}`))].join(', ')}`);
        const errors = applyErrors(ctx, mcMark);
        check(errors.length === 0, `Metacontroller apply errors: ${errors.slice(0, 3).join('; ')}`);
        const afterIds = await held();
        check(JSON.stringify(afterIds) === JSON.stringify(beforeIds), `Keystone holds ${JSON.stringify(afterIds)} after the cutover, ${JSON.stringify(beforeIds)} before`);
        const cred = await korcCredential(ctx, tns);
        check(cred?.id === beforeIds[0] && (await keystone.acceptsApplicationCredential(cred!.id, cred!.secret)), 'k-orc-clouds-yaml does not hold the same credential, accepted by Keystone');
        console.log(`    Keystone: credential ${beforeIds[0]} before and after the cutover, the only one, accepted; ${before.size} children kept`);
        await ctx.kube.delete(tref);
        await waitUntil('ControlPlane deleted and every child gone', async () => !(await ctx.kube.get(tref)) && (await childrenOf(ctx, tns, uid)).length === 0, 300_000, ctx);
      },
    },
  ];
}

