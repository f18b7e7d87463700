// Release upgrades verified by Tempest (issue 59, rollout/verification.ts): `upgrade-verified`
// turns spec.verification.tempest on with the release one forward, and the rollout must pass
// through Verifying with a Job the stand-in Job controller (jobs.ts) completes, then Complete;
// `upgrade-verification-fails` does the same while every Job fails, so the rollout must roll back
// (VerificationFailed) and hold the old release. In both the Job and its ConfigMap are created
// once, released once the rollout has ended, and nothing else is deleted or minted.
import { KEYSTONE_IMAGE_REPOSITORY } from '../controlplane/keystone-spec.js';
import { nextRelease } from '../controlplane/rollout/release-path.js';
import { verificationPrefix } from '../api/child-names.js';
import type { Obj } from './cluster.js';
import { conditionOf, type Phase, type PhaseContext } from './phase.js';
import { ROLLOUT_PHASES, before, imageOf, keystoneOf, lastUpdate, phaseOf, phasesSeen, releaseOf, setRelease, unharmed } from './upgrade-phases.js';

/** A short Tempest run: the stand-in Job ends after JOB_RUN_SECONDS, well within it. */
const TEMPEST = { deadline: '10m' };

const enableTempest = (spec: Obj) => (spec.verification = { tempest: TEMPEST });

/** `Kind/name` of a verification child of the ControlPlane (its Job or ConfigMap). */
const isVerificationChild = (ctx: PhaseContext) => (object: string) => {
  const [kind, name] = object.split('/');
  return (kind === 'Job' || kind === 'ConfigMap') && (name ?? '').startsWith(verificationPrefix(ctx.cp.name));
};

/** The verification Jobs the phase created, and what is left of verification children in the cluster. */
function verificationJobs(ctx: PhaseContext): string[] {
  const problems: string[] = [];
  const changes = ctx.records.flatMap((r) => r.changes);
  const created = changes.filter((c) => c.verb === 'created' && c.object.startsWith('Job/') && isVerificationChild(ctx)(c.object));
  if (created.length !== 1) problems.push(`${created.length} verification Job(s) created, not one`);
  const left = ctx.sim.cluster.list((o) => (o.kind === 'Job' || o.kind === 'ConfigMap') && o.metadata.namespace === ctx.cp.namespace && isVerificationChild(ctx)(`${o.kind}/${o.metadata.name}`));
  for (const o of left) problems.push(`${o.kind} ${o.metadata.name} is still there after the rollout ended`);
  return problems;
}

/** One release forward with spec.verification.tempest, the Job stand-in set to succeed or fail. */
function verifiedRollout(ctx: PhaseContext, { jobsFail }: { jobsFail: boolean }): void {
  ctx.sim.world.jobsFail = jobsFail;
  setRelease(ctx, nextRelease(releaseOf(ctx)) ?? releaseOf(ctx), enableTempest);
}

export const VERIFICATION_PHASES: Record<string, Phase> = {
  'upgrade-verified': {
    name: 'upgrade-verified',
    title: 'spec.openStackRelease one release forward with spec.verification.tempest; the Tempest Job succeeds',
    act: (ctx) => verifiedRollout(ctx, { jobsFail: false }),
    done: (ctx) => phaseOf(ctx) === 'Idle' && lastUpdate(ctx)?.result === 'Complete' && conditionOf(ctx.sim.get(ctx.cp), 'Ready')?.status === 'True',
    verify: (ctx) => {
      const problems = [...unharmed(ctx, isVerificationChild(ctx)), ...verificationJobs(ctx)];
      const want = nextRelease(before(ctx).release);
      if (releaseOf(ctx) !== want) problems.push(`services[keystone].release is ${releaseOf(ctx)}, not ${want}`);
      if (imageOf(keystoneOf(ctx)) !== `${KEYSTONE_IMAGE_REPOSITORY}:${want}`) problems.push(`Keystone runs ${imageOf(keystoneOf(ctx))}`);
      if (JSON.stringify(phasesSeen(ctx)) !== JSON.stringify(ROLLOUT_PHASES)) problems.push(`phases ${phasesSeen(ctx).join(' → ')}, not ${ROLLOUT_PHASES.join(' → ')}`);
      return problems;
    },
  },
  'upgrade-verification-fails': {
    name: 'upgrade-verification-fails',
    title: 'spec.openStackRelease one release forward with spec.verification.tempest; the Tempest Job fails',
    act: (ctx) => verifiedRollout(ctx, { jobsFail: true }),
    done: (ctx) =>
      phaseOf(ctx) === 'Idle' &&
      lastUpdate(ctx)?.result === 'RolledBack' &&
      conditionOf(ctx.sim.get(ctx.cp), 'Ready')?.reason === 'RolledBack' &&
      conditionOf(ctx.sim.get(ctx.cp), 'KeystoneReady')?.status === 'True',
    verify: (ctx) => {
      const problems = [...unharmed(ctx, isVerificationChild(ctx)), ...verificationJobs(ctx)];
      const { release, image } = before(ctx);
      if (releaseOf(ctx) !== release) problems.push(`services[keystone].release is ${releaseOf(ctx)}, not the old ${release}`);
      if (imageOf(keystoneOf(ctx)) !== image) problems.push(`Keystone runs ${imageOf(keystoneOf(ctx))}, not the old ${image}`);
      if (lastUpdate(ctx)?.reason !== 'VerificationFailed') problems.push(`rolled back with ${lastUpdate(ctx)?.reason}, not VerificationFailed`);
      const seen = phasesSeen(ctx);
      for (const p of ['Verifying', 'RollingBack', 'Idle']) if (!seen.includes(p)) problems.push(`never ${p} (${seen.join(' → ')})`);
      if (seen.includes('Complete')) problems.push('reported Complete');
      ctx.sim.world.jobsFail = false;
      return problems;
    },
  },
};
