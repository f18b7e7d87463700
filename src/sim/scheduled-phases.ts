// Scheduled rotation (issue 19) in the simulation. `scheduled` switches the ControlPlane to
// rotation mode Scheduled with a CredentialRotation declaring intervalDays 90, preRotationDays 7,
// gracePeriodDays 1 and runs 400 simulated days (the clock jumps to the next thing due: a hook's
// resyncAfterSeconds, an ESO refresh). After every round K-ORC must authenticate with the
// materialised clouds.yaml (the simulated Keystone enforces expiresAt) and at most two admin ACs
// may exist. `scheduled-outage` stops Metacontroller for 200 days, past the credential's expiry:
// when it comes back exactly one break-before-make re-mint follows, not one per missed deadline.
import { ADMIN_AC_LABEL, ADMIN_AC_LABEL_VALUE } from '../controlplane/names.js';
import { DAY_MS } from '../controlplane/credential/schedule.js';
import { authenticate } from './operators.js';
import type { Obj } from './cluster.js';
import { controlPlaneReady, type Phase, type PhaseContext } from './phase.js';

export const SCHEDULE = { intervalDays: 90, preRotationDays: 7, gracePeriodDays: 1 } as const;
const SCHEDULED_DAYS = 400;
const OUTAGE_DAYS = 200;

const crName = (ctx: PhaseContext) => `schedule-${ctx.cp.name}-admin`;
const startOf = (ctx: PhaseContext) => Number(ctx.before ?? '0');
const days = (ms: number) => (ms / DAY_MS).toFixed(2);

function adminAcs(ctx: PhaseContext): Obj[] {
  return ctx.sim.cluster.list((o) => o.kind === 'ApplicationCredential' && o.metadata.namespace === ctx.cp.namespace && o.metadata.labels?.[ADMIN_AC_LABEL] === ADMIN_AC_LABEL_VALUE);
}

/** After every round: K-ORC authenticates with what it reads; never more than two admin credentials. */
function watch(ctx: PhaseContext): string[] {
  const cp = ctx.sim.get(ctx.cp);
  if (!cp) return [];
  const ref = cp.spec.korc.adminCredential.cloudCredentialsRef;
  const at = days(ctx.sim.now.getTime() - startOf(ctx));
  const problems: string[] = [];
  const denied = authenticate(ctx.sim.world, { metadata: { namespace: ctx.cp.namespace }, spec: { cloudCredentialsRef: { cloudName: ref.cloudName, secretName: ref.secretName } } });
  if (denied !== undefined) problems.push(`day ${at}: K-ORC cannot authenticate with Secret ${ref.secretName}: ${denied}`);
  const acs = adminAcs(ctx);
  if (acs.length > 2) problems.push(`day ${at}: ${acs.length} admin ApplicationCredentials exist (${acs.map((o) => o.metadata.name).join(', ')})`);
  const inKeystone = ctx.sim.world.openstack.applicationCredentials.size;
  if (inKeystone > 2) problems.push(`day ${at}: ${inKeystone} application credentials live in Keystone`);
  return problems;
}

const mintsSince = (ctx: PhaseContext) => ctx.sim.world.openstack.mints.slice(ctx.startMints);

export const SCHEDULED_PHASES: Record<string, Phase> = {
  scheduled: {
    name: 'scheduled',
    title: `rotation mode Scheduled (interval ${SCHEDULE.intervalDays} d, pre-rotation ${SCHEDULE.preRotationDays} d, grace ${SCHEDULE.gracePeriodDays} d), ${SCHEDULED_DAYS} days`,
    maxRounds: 40_000,
    act: (ctx) => {
      ctx.before = String(ctx.sim.now.getTime());
      const cp = ctx.sim.get(ctx.cp)!;
      const spec = structuredClone(cp.spec);
      spec.korc.adminCredential.applicationCredential = { ...spec.korc.adminCredential.applicationCredential, rotation: { mode: 'Scheduled' } };
      ctx.sim.cluster.update({ ...cp, spec }, 'user');
      ctx.sim.createCredentialRotation({ metadata: { name: crName(ctx), namespace: ctx.cp.namespace }, spec: { target: 'adminApplicationCredential', ...SCHEDULE } });
    },
    done: (ctx) => ctx.sim.now.getTime() - startOf(ctx) >= SCHEDULED_DAYS * DAY_MS && controlPlaneReady(ctx),
    watch,
    verify: (ctx) => {
      const problems: string[] = [];
      const mints = mintsSince(ctx);
      // The credential of converge was minted without a schedule: it is due 83 days after its
      // creation, every successor 83 days after its own mint. 400 days hold four rotations.
      const expected = Math.floor(SCHEDULED_DAYS / (SCHEDULE.intervalDays - SCHEDULE.preRotationDays));
      if (mints.length !== expected) problems.push(`expected ${expected} scheduled mints in ${SCHEDULED_DAYS} days, saw ${mints.length}`);
      const os = ctx.sim.world.openstack;
      // Every superseded credential is revoked; the last one minted is the one in use.
      const live = [...os.applicationCredentials.keys()];
      if (live.length !== 1 || live[0] !== mints.at(-1)) problems.push(`expected only the last mint live in Keystone, found ${live.join(', ') || 'none'}`);
      for (const id of mints) if (!os.applicationCredentials.get(id)?.expiresAt && !os.revoked.includes(id)) problems.push(`credential ${id} was minted without expiresAt`);
      const remints = ctx.records.flatMap((r) => r.conditions).filter((c) => c.type === 'KORCReady' && c.reason === 'ReMinting');
      if (remints.length > 0) problems.push(`a scheduled rotation went through ReMinting (break-before-make): ${remints[0]!.message}`);
      return problems;
    },
  },
  'scheduled-outage': {
    name: 'scheduled-outage',
    title: `Metacontroller stopped for ${OUTAGE_DAYS} days (past the credential's expiry), then started`,
    maxRounds: 2_000,
    act: (ctx) => {
      ctx.before = String(ctx.sim.now.getTime());
      ctx.sim.controlPlanes.paused = true;
      ctx.sim.now = new Date(ctx.sim.now.getTime() + OUTAGE_DAYS * DAY_MS);
      ctx.sim.controlPlanes.paused = false;
    },
    done: (ctx) => controlPlaneReady(ctx) && mintsSince(ctx).length > 0,
    verify: (ctx) => {
      const problems: string[] = [];
      const mints = mintsSince(ctx);
      if (mints.length !== 1) problems.push(`expected one re-mint after the outage, saw ${mints.length}`);
      const reminting = ctx.records.flatMap((r) => r.conditions).find((c) => c.type === 'KORCReady' && c.reason === 'ReMinting');
      if (!reminting || !/expired at .* with no replacement/.test(reminting.message ?? '')) problems.push(`expected a ReMinting that says the credential expired with no replacement, saw ${reminting?.message ?? 'none'}`);
      return problems;
    },
  },
};
