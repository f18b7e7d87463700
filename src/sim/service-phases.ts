// The service-user password rotation of the simulation (docs/architecture.md §2.14): a
// CredentialRotation with target serviceUserPassword for the first declared service. Done when
// Keystone holds the password of the Secret the service CR names, a new one, and the request is
// complete; on the way Keystone never holds a password OpenBao did not hold first (the backup goes
// before K-ORC's update), nothing but the superseded password Secret is deleted, nothing is minted.
import { serviceChildNames } from '../api/child-names.js';
import { serviceRemoteKeys } from '../controlplane/names.js';
import { SERVICES } from '../api/services/index.js';
import { controlPlaneReady, isTrue, type Phase, type PhaseContext } from './phase.js';

const unb64 = (text: string) => Buffer.from(text, 'base64').toString('utf8');

/** The first service the ControlPlane declares, if any. */
function rotatedService(ctx: PhaseContext): string | undefined {
  const services = ctx.sim.get(ctx.cp)?.spec?.services ?? {};
  return SERVICES.find((d) => services[d.name] !== undefined)?.name;
}

const rotationName = (ctx: PhaseContext, svc: string) => `rotate-${ctx.cp.name}-${svc}-password`;

/** The password of the Secret the service CR authenticates with. */
function crPassword(ctx: PhaseContext, svc: string): string | undefined {
  const kind = SERVICES.find((d) => d.name === svc)!.kind;
  const cr = ctx.sim.cluster.get({ apiVersion: kind.apiVersion, kind: kind.kind, namespace: ctx.cp.namespace, name: serviceChildNames(ctx.cp.name, svc).cr });
  const ref = cr?.spec?.serviceUser?.secretRef;
  const raw = ref ? ctx.sim.cluster.get({ apiVersion: 'v1', kind: 'Secret', namespace: ctx.cp.namespace, name: ref.name })?.data?.[ref.key ?? 'password'] : undefined;
  return typeof raw === 'string' ? unb64(raw) : undefined;
}

/** Every password OpenBao held for the service user during the phase, by phase. */
const heldByOpenBao = new WeakMap<PhaseContext, Set<string>>();

export const SERVICE_PHASES: Record<string, Phase> = {
  'rotate-service-password': {
    name: 'rotate-service-password',
    title: 'CredentialRotation of a service user password requested',
    act: (ctx) => {
      const svc = rotatedService(ctx);
      if (svc === undefined) return;
      ctx.before = ctx.sim.world.openstack.users.get(svc);
      ctx.sim.createCredentialRotation({
        metadata: { name: rotationName(ctx, svc), namespace: ctx.cp.namespace },
        spec: { target: 'serviceUserPassword', targetServiceUser: serviceChildNames(ctx.cp.name, svc).user, reMint: true },
      });
    },
    done: (ctx) => {
      const svc = rotatedService(ctx);
      if (svc === undefined) return true;
      const keystone = ctx.sim.world.openstack.users.get(svc);
      return (
        controlPlaneReady(ctx) &&
        isTrue(ctx.sim.get({ apiVersion: 'c5c3.io/v1alpha1', kind: 'CredentialRotation', namespace: ctx.cp.namespace, name: rotationName(ctx, svc) }), 'RotationComplete') &&
        keystone !== undefined &&
        keystone !== ctx.before &&
        keystone === crPassword(ctx, svc)
      );
    },
    watch: (ctx) => {
      const svc = rotatedService(ctx);
      if (svc === undefined) return [];
      const held = heldByOpenBao.get(ctx) ?? new Set<string>(ctx.before !== undefined ? [ctx.before] : []);
      heldByOpenBao.set(ctx, held);
      const backup = ctx.sim.world.openbao.get(serviceRemoteKeys(ctx.cp.namespace!, ctx.cp.name, svc).password)?.password;
      if (typeof backup === 'string') held.add(backup);
      const keystone = ctx.sim.world.openstack.users.get(svc);
      return keystone !== undefined && !held.has(keystone) ? [`Keystone holds a password for ${svc} that OpenBao never held`] : [];
    },
    verify: (ctx) => {
      const svc = rotatedService(ctx);
      if (svc === undefined) return [];
      const problems: string[] = [];
      const minted = ctx.sim.world.openstack.mints.length - ctx.startMints;
      if (minted !== 0) problems.push(`expected no application credential mint, saw ${minted}`);
      const superseded = `Secret/${serviceChildNames(ctx.cp.name, svc).password}`;
      const deleted = ctx.records.flatMap((r) => r.changes).filter((c) => (c.verb === 'deleting' || c.verb === 'deleted') && c.by === 'metacontroller');
      for (const c of deleted) if (c.object !== superseded) problems.push(`${c.object} was deleted`);
      if (!deleted.some((c) => c.object === superseded)) problems.push(`the superseded ${superseded} was not released`);
      const backup = ctx.sim.world.openbao.get(serviceRemoteKeys(ctx.cp.namespace!, ctx.cp.name, svc).password)?.password;
      if (backup !== ctx.sim.world.openstack.users.get(svc)) problems.push('OpenBao does not hold the password Keystone has');
      return problems;
    },
  },
};
