// Release upgrades (docs/hooks.md "Release upgrades"): `upgrade` moves the running release one forward
// and must walk every rollout phase to Complete; `upgrade-fails` does the same while the stand-in
// Keystone operator never gets Ready with the new image (World.keystoneImagesNeverReady), so the
// rollout must hit its deadline, roll back and hold the old release (`RolledBack`);
// `upgrade-refused` asks for the release one back and must be refused (`DowngradeRefused`) with
// the running release still projected. None of them may delete a child or mint a credential.
// The scenarios that start with an upgrade install the ControlPlane one release before the file's
// (SCENARIO_STARTS_ONE_RELEASE_EARLIER), so the example's 2025.2 is reached from 2025.1.
import { KEYSTONE_IMAGE_REPOSITORY } from '../controlplane/keystone-spec.js';
import { childNames, serviceChildNames } from '../controlplane/names.js';
import { SERVICES } from '../api/services/index.js';
import { nextRelease, previousRelease } from '../controlplane/rollout/release-path.js';
import type { Obj } from './cluster.js';
import { conditionOf, type Phase, type PhaseContext } from './phase.js';

export const SCENARIO_STARTS_ONE_RELEASE_EARLIER = new Set(['upgrade', 'upgrade-fails', 'upgrade-verified', 'upgrade-verification-fails']);

export const ROLLOUT_PHASES = ['Validating', 'UpdatingInfra', 'UpdatingKeystone', 'UpdatingServices', 'Verifying', 'Complete', 'Idle'];

export const keystoneOf = (ctx: PhaseContext): Obj | undefined =>
  ctx.sim.get({ apiVersion: 'keystone.openstack.c5c3.io/v1alpha1', kind: 'Keystone', namespace: ctx.cp.namespace, name: childNames(ctx.cp.name).keystone });
export const imageOf = (k: Obj | undefined) => (k?.spec?.image ? `${k.spec.image.repository}:${k.spec.image.tag}` : undefined);
export const releaseOf = (ctx: PhaseContext): string => ctx.sim.get(ctx.cp)?.status?.services?.find((s: Obj) => s.name === 'keystone')?.release;
export const phaseOf = (ctx: PhaseContext): string | undefined => ctx.sim.get(ctx.cp)?.status?.updatePhase;
export const lastUpdate = (ctx: PhaseContext): Obj | undefined => ctx.sim.get(ctx.cp)?.status?.lastUpdate;

/** The user sets spec.openStackRelease, and what `edit` says in the same update (the API server moves the generation). */
export function setRelease(ctx: PhaseContext, release: string, edit: (spec: Obj) => void = () => {}): void {
  const cp = structuredClone(ctx.sim.get(ctx.cp)!);
  ctx.before = JSON.stringify({ release: releaseOf(ctx), image: imageOf(keystoneOf(ctx)), id: ctx.startId });
  cp.spec.openStackRelease = release;
  edit(cp.spec);
  ctx.sim.cluster.update(cp, 'user');
}

export const before = (ctx: PhaseContext): { release: string; image: string; id: string | undefined } => JSON.parse(ctx.before ?? '{}');

/** The updatePhase values the phase went through, in order, repeats dropped. */
export function phasesSeen(ctx: PhaseContext): string[] {
  const seen = ctx.records.flatMap((r) => r.phases.filter((p) => p.object === `ControlPlane ${ctx.cp.name}`).map((p) => p.phase));
  return seen.filter((p, i) => p !== seen[i - 1]);
}

/** Nothing deleted but what `expected` allows (a finished rollout's verification Job), no mint. */
export function unharmed(ctx: PhaseContext, expected: (object: string) => boolean = () => false): string[] {
  const problems: string[] = [];
  const changes = ctx.records.flatMap((r) => r.changes);
  for (const c of changes) if ((c.verb === 'deleting' || c.verb === 'deleted') && !c.object.startsWith('ControlPlane/') && !expected(c.object)) problems.push(`${c.object} was deleted`);
  const mints = ctx.sim.world.openstack.mints.length - ctx.startMints;
  if (mints !== 0) problems.push(`${mints} application credential(s) minted`);
  return problems;
}

/**
 * UpdatingServices moves the service CRs to the new release one by one in SERVICES order (upstream's:
 * Glance, Placement, Neutron, Cinder, Nova): each service CR's first update comes after the one
 * before it, and every one ends on `release`.
 */
function servicesInOrder(ctx: PhaseContext, release: string): string[] {
  const changes = ctx.records.flatMap((r) => r.changes);
  const problems: string[] = [];
  const firstUpdate = SERVICES.map((d) => ({ d, cr: ctx.sim.get({ apiVersion: d.kind.apiVersion, kind: d.kind.kind, namespace: ctx.cp.namespace, name: serviceChildNames(ctx.cp.name, d.name).cr }) }))
    .filter(({ cr }) => cr !== undefined)
    .map(({ d, cr }) => {
      if (cr!.spec.openStackRelease !== release) problems.push(`${d.kind.kind} ${cr!.metadata.name} is on ${cr!.spec.openStackRelease}, not ${release}`);
      return { d, at: changes.findIndex((c) => c.verb === 'updated' && c.by === 'metacontroller' && c.object === `${d.kind.kind}/${cr!.metadata.name}`) };
    });
  for (let i = 1; i < firstUpdate.length; i++) {
    const [a, b] = [firstUpdate[i - 1]!, firstUpdate[i]!];
    // a's operator reported on the new spec (its status written after the update) before b moved.
    const aReported = changes.findIndex((c, at) => at > a.at && c.verb === 'status' && c.object === changes[a.at]?.object);
    if (a.at < 0 || b.at < 0 || aReported < 0 || b.at < aReported) problems.push(`${b.d.kind.kind} was updated before ${a.d.kind.kind} reported on the new release (UpdatingServices goes in SERVICES order)`);
  }
  return problems;
}

const isTrue = (ctx: PhaseContext, type: string) => conditionOf(ctx.sim.get(ctx.cp), type)?.status === 'True';

export const UPGRADE_PHASES: Record<string, Phase> = {
  upgrade: {
    name: 'upgrade',
    title: 'spec.openStackRelease one release forward',
    act: (ctx) => setRelease(ctx, nextRelease(releaseOf(ctx))!),
    done: (ctx) => phaseOf(ctx) === 'Idle' && lastUpdate(ctx)?.result === 'Complete' && isTrue(ctx, 'Ready'),
    verify: (ctx) => {
      const problems = unharmed(ctx);
      const want = nextRelease(before(ctx).release);
      if (releaseOf(ctx) !== want) problems.push(`services[keystone].release is ${releaseOf(ctx)}, not ${want}`);
      if (imageOf(keystoneOf(ctx)) !== `${KEYSTONE_IMAGE_REPOSITORY}:${want}`) problems.push(`Keystone runs ${imageOf(keystoneOf(ctx))}`);
      if (JSON.stringify(phasesSeen(ctx)) !== JSON.stringify(ROLLOUT_PHASES)) problems.push(`phases ${phasesSeen(ctx).join(' → ')}, not ${ROLLOUT_PHASES.join(' → ')}`);
      return [...problems, ...servicesInOrder(ctx, want!)];
    },
  },
  'upgrade-fails': {
    name: 'upgrade-fails',
    title: 'spec.openStackRelease one release forward; the Keystone operator never gets Ready with the new image',
    act: (ctx) => {
      const to = nextRelease(releaseOf(ctx))!;
      ctx.sim.world.keystoneImagesNeverReady.add(`${KEYSTONE_IMAGE_REPOSITORY}:${to}`);
      setRelease(ctx, to);
    },
    done: (ctx) => phaseOf(ctx) === 'Idle' && lastUpdate(ctx)?.result === 'RolledBack' && conditionOf(ctx.sim.get(ctx.cp), 'Ready')?.reason === 'RolledBack' && isTrue(ctx, 'KeystoneReady'),
    verify: (ctx) => {
      const problems = unharmed(ctx);
      const { release, image } = before(ctx);
      if (releaseOf(ctx) !== release) problems.push(`services[keystone].release is ${releaseOf(ctx)}, not the old ${release}`);
      if (imageOf(keystoneOf(ctx)) !== image) problems.push(`Keystone runs ${imageOf(keystoneOf(ctx))}, not the old ${image}`);
      const seen = phasesSeen(ctx);
      for (const p of ['UpdatingKeystone', 'RollingBack', 'Idle']) if (!seen.includes(p)) problems.push(`never ${p} (${seen.join(' → ')})`);
      if (seen.includes('Complete')) problems.push('reported Complete');
      return problems;
    },
  },
  'upgrade-refused': {
    name: 'upgrade-refused',
    title: 'spec.openStackRelease one release back (a downgrade)',
    act: (ctx) => setRelease(ctx, previousRelease(releaseOf(ctx))!),
    done: (ctx) => conditionOf(ctx.sim.get(ctx.cp), 'KeystoneReady')?.reason === 'DowngradeRefused',
    verify: (ctx) => {
      const problems = unharmed(ctx);
      const { release, image } = before(ctx);
      if (imageOf(keystoneOf(ctx)) !== image) problems.push(`Keystone runs ${imageOf(keystoneOf(ctx))}, not ${image}`);
      if (releaseOf(ctx) !== release) problems.push(`services[keystone].release is ${releaseOf(ctx)}`);
      if (phasesSeen(ctx).some((p) => p !== 'Idle')) problems.push(`a rollout started (${phasesSeen(ctx).join(' → ')})`);
      return problems;
    },
  },
};
