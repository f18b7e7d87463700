// Release upgrades (docs/hooks.md "Release upgrades"): a brownfield ControlPlane of its own at 2025.1 with
// a one-minute rollout deadline, upgraded to 2025.2 (every phase, Complete), then to 2026.1 while
// the stand-in Keystone operator never gets Ready with that image (World.keystoneImagesNeverReady):
// rolled back, 2025.2 held, Ready=False/RolledBack. Nothing deleted or minted on the way.
import type { Obj } from '../../src/sim/cluster.js';
import { GVK } from '../../src/k8s/kinds.js';
import { childNames } from '../../src/controlplane/names.js';
import type { Ref } from '../kube.js';
import type { Ctx, Scenario } from './support.js';
import { sleep, AssertionError, check, waitUntil, condition, cpRef, conditionsLine, childrenOf, createControlPlane, waitReady, mints } from './support.js';
import { BROWNFIELD } from './managed.js';

const UPGRADE = {
  metadata: { name: 'keystone', namespace: 'tenant-upgrade' },
  spec: { ...structuredClone(BROWNFIELD.spec), openStackRelease: '2025.1', rolloutDeadline: '1m' },
};

/** Patches the release and waits for `until`; the phases are every updatePhase the watch saw. */
export async function rollout(ctx: Ctx, ref: Ref, release: string, until: (cp: Obj) => boolean, timeoutMs: number): Promise<{ cp: Obj; phases: string[] }> {
  const mark = Date.now();
  const seen = () => {
    const all = ctx.rec.since(mark, (e) => e.kind === 'ControlPlane' && e.namespace === ref.namespace && e.name === ref.name && e.updatePhase !== undefined).map((e) => e.updatePhase!);
    const from = all.findIndex((p) => p !== 'Idle'); // the events before the rollout began say Idle
    return from < 0 ? [] : all.slice(from).filter((p, i, a) => p !== a[i - 1]);
  };
  await ctx.kube.mergePatch(ref, { spec: { openStackRelease: release } });
  let last: Obj | undefined;
  try {
    const cp = await waitUntil(
      `rollout to ${release}`,
      async () => {
        last = await ctx.kube.get(ref);
        return seen().some((p) => p !== 'Idle') && until(last!) ? last : undefined;
      },
      timeoutMs,
      ctx,
      200,
    );
    // The watch may deliver the last events a moment after the GET saw them.
    await sleep(1000);
    return { cp, phases: seen() };
  } catch (err) {
    const phases = seen();
    throw new AssertionError(`${(err as Error).message}; phases seen: ${phases.join(' → ')}; conditions: ${conditionsLine(last)}`);
  }
}

/** The image the ControlPlane `ns/cp`'s Keystone CR asks for (`repository:tag`). */
export async function keystoneImage(ctx: Ctx, ns = UPGRADE.metadata.namespace, cp = UPGRADE.metadata.name): Promise<string> {
  const k = await ctx.kube.get({ apiVersion: GVK.Keystone.apiVersion, kind: 'Keystone', namespace: ns, name: childNames(cp).keystone });
  return `${k?.spec?.image?.repository}:${k?.spec?.image?.tag}`;
}

export function upgradeScenarios(): Scenario[] {
  const ns = UPGRADE.metadata.namespace;
  const deletions = (ctx: Ctx, mark: number) => ctx.rec.since(mark, (e) => e.namespace === ns && e.terminating && e.kind !== 'ControlPlane');
  return [
    {
      id: 13,
      title: 'release upgrade 2025.1 → 2025.2: Validating … Verifying → Complete → Idle, no deletion, no mint',
      async run(ctx) {
        await createControlPlane(ctx, UPGRADE, ctx.ops.world.openstack.adminPassword); // one simulated OpenStack: share its admin password
        await waitReady(ctx, cpRef(ns, UPGRADE.metadata.name), 180_000, (o) => !!o.status?.adminApplicationCredential?.id);
        check((await keystoneImage(ctx)) === 'ghcr.io/c5c3/keystone:2025.1', 'Keystone does not run 2025.1 after the install');
        const startMints = mints(ctx);
        const mark = Date.now();
        const { cp, phases } = await rollout(ctx, cpRef(ns, UPGRADE.metadata.name), '2025.2', (o) => o.status?.updatePhase === 'Idle' && o.status?.lastUpdate?.result === 'Complete' && condition(o, 'Ready')?.status === 'True', 180_000);
        console.log(`    phases: ${phases.join(' → ')}`);
        const want = ['Validating', 'UpdatingInfra', 'UpdatingKeystone', 'UpdatingServices', 'Verifying', 'Complete', 'Idle'];
        check(JSON.stringify(phases) === JSON.stringify(want), `phases ${phases.join(' → ')}, not ${want.join(' → ')}`);
        check(cp.status.services?.[0]?.release === '2025.2', `services[keystone].release is ${cp.status.services?.[0]?.release}`);
        check((await keystoneImage(ctx)) === 'ghcr.io/c5c3/keystone:2025.2', `Keystone runs ${await keystoneImage(ctx)}`);
        check(mints(ctx) === startMints, `${mints(ctx) - startMints} mint(s) during the upgrade`);
        const gone = deletions(ctx, mark);
        check(gone.length === 0, `deleted during the upgrade: ${[...new Set(gone.map((e) => `${e.kind}/${e.name}`))].join(', ')}`);
      },
    },
    {
      id: 14,
      title: 'failing upgrade 2025.2 → 2026.1 (Keystone never Ready with it): rolled back at the 1m deadline, 2025.2 held, RolledBack; then deleted',
      needs: [13],
      async run(ctx) {
        const image = 'ghcr.io/c5c3/keystone:2026.1';
        ctx.ops.world.keystoneImagesNeverReady.add(image);
        const startMints = mints(ctx);
        const mark = Date.now();
        try {
          const { cp, phases } = await rollout(ctx, cpRef(ns, UPGRADE.metadata.name), '2026.1', (o) => o.status?.updatePhase === 'Idle' && condition(o, 'Ready')?.reason === 'RolledBack' && condition(o, 'KeystoneReady')?.status === 'True', 240_000);
          console.log(`    phases: ${phases.join(' → ')}; Ready: ${condition(cp, 'Ready')?.message}`);
          for (const p of ['UpdatingKeystone', 'RollingBack']) check(phases.includes(p), `never ${p}: ${phases.join(' → ')}`);
          check(!phases.includes('Complete'), 'reported Complete');
          check(cp.status.lastUpdate?.result === 'RolledBack' && cp.status.lastUpdate?.reason === 'UpdateDeadlineExceeded', `lastUpdate ${JSON.stringify(cp.status.lastUpdate)}`);
          check(cp.status.services?.[0]?.release === '2025.2', `services[keystone].release is ${cp.status.services?.[0]?.release}`);
          check((await keystoneImage(ctx)) === 'ghcr.io/c5c3/keystone:2025.2', `Keystone runs ${await keystoneImage(ctx)}`);
          check(mints(ctx) === startMints, `${mints(ctx) - startMints} mint(s) during the rollout`);
          const gone = deletions(ctx, mark);
          check(gone.length === 0, `deleted during the rollout: ${[...new Set(gone.map((e) => `${e.kind}/${e.name}`))].join(', ')}`);
        } finally {
          ctx.ops.world.keystoneImagesNeverReady.delete(image);
        }
        const cp = (await ctx.kube.get(cpRef(ns, UPGRADE.metadata.name)))!;
        await ctx.kube.delete(cpRef(ns, UPGRADE.metadata.name));
        await waitUntil('ControlPlane deleted and every child gone', async () => !(await ctx.kube.get(cpRef(ns, UPGRADE.metadata.name))) && (await childrenOf(ctx, ns, cp.metadata.uid)).length === 0, 180_000, ctx);
      },
    },
  ];
}


