// OpenBao restarted empty (docs/architecture.md §3.9): the simulated OpenBao loses everything it
// held. ESO notices at each ExternalSecret's next refresh (hourly) and would push the PushSecrets'
// backups again only at their own hourly timers; the hooks push every backup again once a read
// fails. Nothing is deleted or minted on the way; the ControlPlane's Ready message names the
// paths only a person can restore (what they put there: the database credentials, the admin
// password) and those pushed again. Then the person restores theirs: Ready again, still no
// deletion and no mint.
import { ESO_READ_FAILURE } from '../k8s/eso.js';
import { findCondition } from '../k8s/conditions.js';
import { pushedPaths, readPaths } from '../controlplane/openbao-backups.js';
import type { Obj } from './cluster.js';
import { adminCredentialId, conditionOf, controlPlaneReady, type Phase, type PhaseContext } from './phase.js';

/**
 * After the first failed read, the backups must be in OpenBao again within this many simulated
 * seconds (ESO alone pushes them at its hourly timer).
 */
export const OPENBAO_REPUSH_BOUND_SECONDS = 60;

const unb64 = (text: string) => Buffer.from(text, 'base64').toString('utf8');

function owned(ctx: PhaseContext, kind: string): Obj[] {
  return ctx.sim.cluster.list((o) => o.kind === kind && o.metadata.namespace === ctx.cp.namespace && (o.metadata.ownerReferences ?? []).some((r: Obj) => r.controller && r.uid === ctx.uid));
}

/** Each backup path of the ControlPlane with the content its PushSecret's Secret holds now. */
function expectedBackups(ctx: PhaseContext): Map<string, Record<string, string>> {
  const out = new Map<string, Record<string, string>>();
  for (const ps of owned(ctx, 'PushSecret')) {
    if (ps.metadata.deletionTimestamp) continue;
    const source = ctx.sim.get({ apiVersion: 'v1', kind: 'Secret', namespace: ctx.cp.namespace, name: ps.spec.selector?.secret?.name });
    const data = Object.fromEntries(Object.entries(source?.data ?? {}).map(([k, v]) => [k, unb64(v as string)]));
    for (const path of pushedPaths(ps)) out.set(path, data);
  }
  return out;
}

const backupsBack = (ctx: PhaseContext) => [...expectedBackups(ctx)].every(([path, data]) => JSON.stringify(ctx.sim.world.openbao.get(path)) === JSON.stringify(data));

/** The ExternalSecrets of the ControlPlane whose last read failed. */
const failingReads = (ctx: PhaseContext) =>
  owned(ctx, 'ExternalSecret').filter((es) => {
    const ready = findCondition(es, 'Ready');
    return ready?.status === 'False' && ready.reason === ESO_READ_FAILURE.reason;
  });

/** The paths no PushSecret of the ControlPlane writes (a person's), read by its ExternalSecrets. */
function byHandPaths(ctx: PhaseContext): string[] {
  const backups = new Set(owned(ctx, 'PushSecret').flatMap(pushedPaths));
  return [...new Set(owned(ctx, 'ExternalSecret').flatMap(readPaths))].filter((p) => !backups.has(p)).sort();
}

interface Watched {
  firstFailure?: number;
  back?: number;
}
const watched = new WeakMap<PhaseContext, Watched>();

export const OPENBAO_PHASES: Record<string, Phase> = {
  'openbao-lost': {
    name: 'openbao-lost',
    title: 'OpenBao restarted empty',
    act: (ctx) => {
      watched.set(ctx, {});
      ctx.sim.world.openbao.clear();
    },
    // Every backup pushed again and the admin credential's read back; what only a person can
    // restore is failing, and named. (A brownfield ControlPlane reads nothing else.)
    done: (ctx) => {
      const cp = ctx.sim.get(ctx.cp);
      const byHand = byHandPaths(ctx);
      const failing = failingReads(ctx);
      const failingPaths = new Set(failing.flatMap(readPaths));
      const message = conditionOf(cp, 'Ready')?.message ?? '';
      return (
        backupsBack(ctx) &&
        byHand.every((p) => failingPaths.has(p) && message.includes(p)) &&
        [...failingPaths].every((p) => byHand.includes(p)) &&
        (byHand.length > 0 || controlPlaneReady(ctx))
      );
    },
    watch: (ctx) => {
      const w = watched.get(ctx)!;
      const now = ctx.sim.now.getTime();
      if (w.firstFailure === undefined && failingReads(ctx).length > 0) w.firstFailure = now;
      if (w.back === undefined && backupsBack(ctx)) w.back = now;
      return [];
    },
    verify: (ctx) => {
      const problems = sameCredentialNothingDeleted(ctx);
      const w = watched.get(ctx)!;
      if (w.firstFailure !== undefined && w.back !== undefined && w.back - w.firstFailure > OPENBAO_REPUSH_BOUND_SECONDS * 1000) {
        problems.push(`the backups were in OpenBao again ${(w.back - w.firstFailure) / 1000} s after the first failed read (bound ${OPENBAO_REPUSH_BOUND_SECONDS} s; ESO alone pushes hourly)`);
      }
      const message = conditionOf(ctx.sim.get(ctx.cp), 'Ready')?.message ?? '';
      for (const p of byHandPaths(ctx)) if (!message.includes(p)) problems.push(`the Ready message does not name ${p}`);
      return problems;
    },
  },
  'openbao-restored': {
    name: 'openbao-restored',
    title: 'a person restores what they had put into OpenBao',
    act: (ctx) => {
      // What the person put there is what the Secrets ESO made from it still hold (deletionPolicy Retain).
      for (const es of failingReads(ctx)) {
        const target = ctx.sim.get({ apiVersion: 'v1', kind: 'Secret', namespace: ctx.cp.namespace, name: es.spec.target?.name ?? es.metadata.name });
        for (const d of es.spec.data ?? []) {
          const value = target?.data?.[d.secretKey];
          if (typeof value !== 'string') continue;
          ctx.sim.world.openbao.set(d.remoteRef.key, { ...(ctx.sim.world.openbao.get(d.remoteRef.key) ?? {}), [d.remoteRef.property]: unb64(value) });
        }
      }
    },
    done: (ctx) => controlPlaneReady(ctx) && failingReads(ctx).length === 0 && !(conditionOf(ctx.sim.get(ctx.cp), 'Ready')?.message ?? '').includes('OpenBao'),
    verify: sameCredentialNothingDeleted,
  },
};

/** No deletion, no mint, the same admin credential. */
function sameCredentialNothingDeleted(ctx: PhaseContext): string[] {
  const problems: string[] = [];
  const deleted = ctx.records.flatMap((r) => r.changes).filter((c) => (c.verb === 'deleting' || c.verb === 'deleted') && c.by === 'metacontroller');
  for (const c of deleted) problems.push(`${c.object} was deleted`);
  const minted = ctx.sim.world.openstack.mints.length - ctx.startMints;
  if (minted !== 0) problems.push(`expected no application credential mint, saw ${minted}`);
  if (adminCredentialId(ctx) !== ctx.startId) problems.push('the admin credential changed');
  return problems;
}
