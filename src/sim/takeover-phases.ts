// Taking over a ControlPlane from the reference Go operator (docs/hooks.md "Taking over from the
// reference operator"). `reference-operator` stops Metacontroller and leaves the world as the Go
// operator leaves it: children controlled by the ControlPlane (controller owner reference) but
// without Metacontroller's `controller-uid` label and last-applied annotation, none of this
// service's bookkeeping (`c5c3.io/*` annotations, the AC's `c5c3.io/credential` label), the AC's
// `spec.resource` as the Go operator writes it (no per-mint name), and the Go operator's finalizer
// `c5c3.io/orc-teardown` on the parent instead of Metacontroller's. `takeover` applies the
// runbook's steps and starts Metacontroller: the ControlPlane must converge with zero deletions,
// zero mints and every child the same object (same uid) as before.
import { ADMIN_AC_LABEL, ANNOTATION, childNames } from '../controlplane/names.js';
import { CONTROLLER_UID, LAST_APPLIED } from './metacontroller.js';
import type { Obj } from './cluster.js';
import { adminCredentialId, controlPlaneReady, type Phase, type PhaseContext } from './phase.js';

/** The reference operator's finalizer on the ControlPlane (docs/architecture.md §4). */
export const REFERENCE_FINALIZER = 'c5c3.io/orc-teardown';
const BY = 'reference-operator';

/** Every object the ControlPlane controls (owner reference with controller: true). */
function controlled(ctx: PhaseContext): Obj[] {
  return ctx.sim.cluster.list((o) => (o.metadata.ownerReferences ?? []).some((r: Obj) => r.controller && r.uid === ctx.uid));
}

const without = (map: Obj | undefined, keys: string[]): Obj | undefined => {
  if (!map) return undefined;
  const rest = Object.fromEntries(Object.entries(map).filter(([k]) => !keys.includes(k)));
  return Object.keys(rest).length > 0 ? rest : undefined;
};

/** A child as the Go operator would have written it. */
function asReferenceOperatorLeftIt(o: Obj, acName: string): Obj {
  const next = structuredClone(o);
  next.metadata.labels = without(next.metadata.labels, [CONTROLLER_UID, ...(o.kind === 'ApplicationCredential' ? [ADMIN_AC_LABEL] : [])]);
  next.metadata.annotations = without(next.metadata.annotations, [LAST_APPLIED, ANNOTATION.secretHash, ANNOTATION.rotationRequests, ANNOTATION.mintedSecretHash]);
  if (o.kind === 'ApplicationCredential' && o.metadata.name === acName) {
    const { name: _name, description: _description, ...resource } = next.spec.resource;
    next.spec.resource = resource;
  }
  return next;
}

/** The uid of every controlled object, to prove nothing was replaced. */
const uids = (ctx: PhaseContext) => JSON.stringify(controlled(ctx).map((o) => `${o.kind}/${o.metadata.name}=${o.metadata.uid}`).sort());

export const TAKEOVER_PHASES: Record<string, Phase> = {
  'reference-operator': {
    name: 'reference-operator',
    title: 'Metacontroller stopped; the ControlPlane as the reference Go operator leaves it',
    act: (ctx) => {
      const sim = ctx.sim;
      sim.controlPlanes.paused = true;
      const acName = childNames(ctx.cp.name).adminAppCredential;
      for (const o of controlled(ctx)) sim.cluster.update(asReferenceOperatorLeftIt(o, acName), BY);
      const cp = sim.get(ctx.cp)!;
      cp.metadata.finalizers = [REFERENCE_FINALIZER];
      sim.cluster.update(cp, BY);
    },
    done: () => true,
    verify: () => [],
  },
  takeover: {
    name: 'takeover',
    title: `cutover: every child labelled ${CONTROLLER_UID}, ${REFERENCE_FINALIZER} removed, Metacontroller started`,
    act: (ctx) => {
      const sim = ctx.sim;
      ctx.before = uids(ctx);
      for (const o of controlled(ctx)) {
        sim.cluster.update({ ...o, metadata: { ...o.metadata, labels: { ...(o.metadata.labels ?? {}), [CONTROLLER_UID]: ctx.uid } } }, 'user');
      }
      const cp = sim.get(ctx.cp)!;
      cp.metadata.finalizers = (cp.metadata.finalizers ?? []).filter((f: string) => f !== REFERENCE_FINALIZER);
      sim.cluster.update(cp, 'user');
      sim.controlPlanes.paused = false;
    },
    done: (ctx) => {
      const ac = ctx.sim.get({ apiVersion: 'openstack.k-orc.cloud/v1alpha1', kind: 'ApplicationCredential', namespace: ctx.cp.namespace, name: childNames(ctx.cp.name).adminAppCredential });
      return controlPlaneReady(ctx) && ac?.metadata.annotations?.[ANNOTATION.secretHash] !== undefined;
    },
    verify: (ctx) => {
      const changes = ctx.records.flatMap((r) => r.changes);
      const problems = changes.filter((c) => c.verb === 'deleting' || c.verb === 'deleted').map((c) => `${c.object} was deleted (by ${c.by})`);
      problems.push(...changes.filter((c) => c.by.includes('released') || c.object.includes('AlreadyExists')).map((c) => `${c.object}: ${c.by}`));
      const mints = ctx.sim.world.openstack.mints.length - ctx.startMints;
      if (mints !== 0) problems.push(`${mints} application credential(s) minted`);
      if (adminCredentialId(ctx) !== ctx.startId) problems.push('the admin credential id changed');
      if (uids(ctx) !== ctx.before) problems.push('a child was replaced (uids differ)');
      return problems;
    },
  },
};
