// Seed 002's Verifying phase running Tempest (issue 59), on scenario 16's ControlPlane with the
// real Keystone and K-ORC: with spec.verification.tempest set, a release rollout's Verifying phase
// asks for a Job and its tempest.conf ConfigMap, and the suite runs that Job's pod with the real
// Tempest (e2e/tempest.ts). One rollout whose Tempest passes completes; one whose Tempest fails
// (Keystone misconfigured on purpose so that it refuses every new password: Keystone stays Ready and
// the admin credential chain works, so only Tempest, whose dynamic credentials make users, sees
// it) is rolled back with VerificationFailed, the old release held. Neither deletes anything or
// mints a credential.
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { Obj } from '../../src/sim/cluster.js';
import { childNames } from '../../src/controlplane/names.js';
import { TEMPEST_IMAGE_REPOSITORY } from '../../src/api/verification.js';
import { VERIFICATION_LABEL } from '../../src/controlplane/rollout/verification.js';
import { VENVS } from '../venvs.js';
import { countsLine, type PodRun } from '../tempest.js';
import type { Ctx, Scenario } from './support.js';
import { AssertionError, check, condition, cpRef, unb64, waitUntil, REAL_OPENSTACK_NS } from './support.js';
import { REAL_NAME } from './real-keystone.js';
import { keystoneImage, rollout } from './upgrade.js';

const ns = REAL_OPENSTACK_NS;
const ref = cpRef(ns, REAL_NAME);
const names = childNames(REAL_NAME);

/** Keystone refuses every new password (keystone/common/validation/validators.py validate_password). */
const REFUSE_NEW_PASSWORDS = {
  OS_SECURITY_COMPLIANCE__PASSWORD_REGEX: '^$',
  OS_SECURITY_COMPLIANCE__PASSWORD_REGEX_DESCRIPTION: 'e2e: Keystone misconfigured on purpose, no new password is accepted',
};

async function credentialIds(ctx: Ctx): Promise<string[]> {
  const api = ctx.keystones.api(ns, names.keystone);
  if (!api) throw new AssertionError(`Keystone ${ns}/${names.keystone} does not serve`);
  return (await api.applicationCredentials()).map((a) => a.id as string).sort();
}

/** The verification children the API server holds for the ControlPlane now. */
async function verificationChildren(ctx: Ctx): Promise<string[]> {
  const out: string[] = [];
  for (const [apiVersion, kind] of [['batch/v1', 'Job'], ['v1', 'ConfigMap']] as const) {
    for (const o of await ctx.kube.list(apiVersion, kind, ns)) if (o.metadata.labels?.[VERIFICATION_LABEL]) out.push(`${kind}/${o.metadata.name}`);
  }
  return out;
}

/**
 * Rolls the release to `release` and returns the ControlPlane once `until` holds, with what the
 * rollout showed on the way: its phases, the verification status.rollout named, the Job's pod run,
 * and the tempest.conf of its ConfigMap.
 */
async function verifiedRollout(ctx: Ctx, release: string, until: (cp: Obj) => boolean): Promise<{ cp: Obj; phases: string[]; named: Obj | undefined; run: PodRun; conf: string; deleted: string[] }> {
  const mark = Date.now();
  const runs = ctx.tempest.runs.length;
  let named: Obj | undefined;
  let conf: string;
  const { cp, phases } = await rollout(ctx, ref, release, (o) => {
    named = o.status?.rollout?.verification ?? named;
    return until(o);
  }, 900_000);
  const run = ctx.tempest.runs.slice(runs).find((r) => r.namespace === ns);
  if (!run) throw new AssertionError(`no Tempest pod ran for the rollout to ${release}; phases ${phases.join(' → ')}`);
  const cm = ctx.rec.since(mark, (e) => e.kind === 'ConfigMap' && e.namespace === ns && e.name === run.job);
  check(cm.length > 0, `the recorder never saw ConfigMap ${run.job}`);
  // What the pod read from the ConfigMap's volume (the ConfigMap itself is released with the rollout).
  conf = readFileSync(join(dirname(run.log), 'volumes', 'tempest-conf', 'tempest.conf'), 'utf8');
  const deleted = [...new Set(ctx.rec.since(mark, (e) => e.namespace === ns && e.terminating && e.kind !== 'ControlPlane' && !(e.name === run.job && (e.kind === 'Job' || e.kind === 'ConfigMap'))).map((e) => `${e.kind}/${e.name}`))];
  return { cp, phases, named, run, conf, deleted };
}

export function realVerificationScenarios(): Scenario[] {
  return [
    {
      id: 27,
      title: 'real Keystone and K-ORC: a release rollout 2025.2 → 2026.1 with spec.verification.tempest: Verifying runs the real Tempest (--smoke) as the Job the hook asked for; it passes, the rollout completes, the Job and its ConfigMap released; no mint, nothing deleted',
      needs: [16],
      async run(ctx) {
        // The Tempest this suite installed (the default of 2026.1 is an image that cannot run here).
        await ctx.kube.mergePatch(ref, { spec: { verification: { tempest: { image: { repository: TEMPEST_IMAGE_REPOSITORY, tag: VENVS.tempest } } } } });
        const before = await credentialIds(ctx);
        const { cp, phases, named, run, conf, deleted } = await verifiedRollout(ctx, '2026.1', (o) => o.status?.updatePhase === 'Idle' && o.status?.lastUpdate?.to?.release === '2026.1');
        console.log(`    phases: ${phases.join(' → ')}; Job ${run.job}: Tempest ${countsLine(run.counts)} (exit ${run.exitCode})`);
        check(cp.status.lastUpdate?.result === 'Complete', `lastUpdate ${JSON.stringify(cp.status.lastUpdate)}`);
        check(phases.includes('Verifying') && phases.indexOf('Verifying') < phases.indexOf('Complete'), `phases ${phases.join(' → ')}`);
        check(named?.job === run.job, `status.rollout.verification ${JSON.stringify(named)}, the pod ran Job ${run.job}`);
        check(run.exitCode === 0 && !!run.counts && run.counts.passed > 0 && run.counts.failed === 0, `Tempest: exit ${run.exitCode}, ${countsLine(run.counts)}; log ${run.log}`);
        check(condition(cp, 'Ready')?.status === 'True', `Ready ${JSON.stringify(condition(cp, 'Ready'))}`);
        check((await keystoneImage(ctx, ns, REAL_NAME)) === 'ghcr.io/c5c3/keystone:2026.1', `Keystone runs ${await keystoneImage(ctx, ns, REAL_NAME)}`);
        const password = unb64((await ctx.kube.get({ apiVersion: 'v1', kind: 'Secret', namespace: ns, name: names.adminPassword }))?.data?.password ?? '');
        check(conf.includes('[identity]') && password !== '' && !conf.includes(password), 'the ConfigMap\'s tempest.conf is missing or holds the admin password');
        check(JSON.stringify(await credentialIds(ctx)) === JSON.stringify(before), `Keystone's application credentials changed during the rollout: ${JSON.stringify(before)} → ${JSON.stringify(await credentialIds(ctx))}`);
        check(deleted.length === 0, `deleted during the rollout: ${deleted.join(', ')}`);
        await waitUntil('the finished rollout\'s Job and ConfigMap released', async () => (await verificationChildren(ctx)).length === 0, 120_000, ctx);
      },
    },
    {
      id: 28,
      title: 'real Keystone and K-ORC: a rollout 2026.1 → 2026.2 whose Tempest fails (Keystone misconfigured on purpose to refuse every new password, which the credential chain never notices): RollingBack with VerificationFailed naming the Job, 2026.1 held, no mint, nothing deleted',
      needs: [27],
      async run(ctx) {
        await ctx.keystones.misconfigure(ns, names.keystone, REFUSE_NEW_PASSWORDS);
        try {
          await waitUntil('Keystone serving again, misconfigured', async () => !!ctx.keystones.urlOf(ns, names.keystone) && condition(await ctx.kube.get(ref), 'Ready')?.status === 'True', 120_000, ctx);
          const before = await credentialIds(ctx);
          const { cp, phases, named, run, deleted } = await verifiedRollout(ctx, '2026.2', (o) => o.status?.updatePhase === 'Idle' && o.status?.lastUpdate?.to?.release === '2026.2');
          console.log(`    phases: ${phases.join(' → ')}; Job ${run.job}: Tempest ${countsLine(run.counts)} (exit ${run.exitCode}); lastUpdate: ${cp.status.lastUpdate?.reason} "${cp.status.lastUpdate?.message}"`);
          check(run.exitCode !== 0 && (run.counts?.failed ?? 1) > 0, `Tempest passed on a Keystone that refuses every new password: ${countsLine(run.counts)}`);
          check(phases.includes('Verifying') && phases.includes('RollingBack') && !phases.includes('Complete'), `phases ${phases.join(' → ')}`);
          check(named?.job === run.job, `status.rollout.verification ${JSON.stringify(named)}, the pod ran Job ${run.job}`);
          const last = cp.status.lastUpdate;
          check(last?.result === 'RolledBack' && last?.reason === 'VerificationFailed' && String(last?.message).includes(run.job), `lastUpdate ${JSON.stringify(last)}`);
          check(cp.status.services?.[0]?.release === '2026.1', `services[keystone].release is ${cp.status.services?.[0]?.release}`);
          check((await keystoneImage(ctx, ns, REAL_NAME)) === 'ghcr.io/c5c3/keystone:2026.1', `Keystone runs ${await keystoneImage(ctx, ns, REAL_NAME)}`);
          check(JSON.stringify(await credentialIds(ctx)) === JSON.stringify(before), `Keystone's application credentials changed during the rollout: ${JSON.stringify(before)} → ${JSON.stringify(await credentialIds(ctx))}`);
          check(deleted.length === 0, `deleted during the rollout: ${deleted.join(', ')}`);
          await waitUntil('the rolled-back rollout\'s Job and ConfigMap released', async () => (await verificationChildren(ctx)).length === 0, 120_000, ctx);
        } finally {
          await ctx.keystones.misconfigure(ns, names.keystone, undefined);
        }
        await waitUntil('Keystone serving with its own configuration again', async () => !!ctx.keystones.urlOf(ns, names.keystone), 120_000, ctx);
      },
    },
  ];
}
