// Scripted events for the simulation: each phase changes the world, then runs until its goal holds
// at rest, and checks what must not happen on the way (a second mint, a deletion during an outage,
// Keystone removed before the K-ORC objects that need it).
import { isManagedDatabase, effectiveAdminPasswordRef } from '../controlplane/spec.js';
import { childNames, remoteKeys } from '../controlplane/names.js';
import { authenticate, b64 } from './operators.js';
import type { ObjectRef } from './cluster.js';
import type { RoundRecord, Simulation } from './simulation.js';
import { adminCredentialId, conditionOf, controlPlaneReady, isTrue, type Phase, type PhaseContext } from './phase.js';

export { adminCredentialId, conditionOf, controlPlaneReady, type Phase, type PhaseContext } from './phase.js';
import { AGGREGATE_PHASES } from './aggregate-phases.js';
import { TAKEOVER_PHASES } from './takeover-phases.js';
import { UPGRADE_PHASES } from './upgrade-phases.js';
import { VERIFICATION_PHASES } from './verification-phases.js';
import { SCHEDULED_PHASES } from './scheduled-phases.js';
import { SERVICE_PHASES } from './service-phases.js';
import { SERVICES, SERVICE_KINDS } from '../api/services/index.js';
import { BACKUP_PHASES } from './backup-phases.js';
import { OPENBAO_PHASES } from './openbao-phases.js';

const mints = (ctx: PhaseContext) => ctx.sim.world.openstack.mints.length - ctx.startMints;

/**
 * The longest K-ORC may be left with a materialised clouds.yaml that does not authenticate, once it
 * did (issue 30: after a re-mint the new credential reaches it in seconds, never at ESO's hourly
 * timers). Simulated seconds.
 */
export const KORC_AUTH_GAP_SECONDS = 60;

/** Why K-ORC cannot authenticate with the ControlPlane's materialised clouds.yaml now (undefined: it can). */
function korcAuthError(ctx: PhaseContext): string | undefined {
  const cp = ctx.sim.get(ctx.cp);
  const ref = cp?.spec?.korc?.adminCredential?.cloudCredentialsRef ?? {};
  return authenticate(ctx.sim.world, { metadata: { namespace: ctx.cp.namespace }, spec: { cloudCredentialsRef: { secretName: ref.secretName ?? 'k-orc-clouds-yaml', cloudName: ref.cloudName ?? 'admin' } } });
}

/** A phase watch: problems once K-ORC has been unable to authenticate for longer than the bound. */
export function korcAuthGap(ctx: PhaseContext): string[] {
  const error = korcAuthError(ctx);
  const now = ctx.sim.now.getTime();
  if (error === undefined) {
    ctx.unauthenticatedSince = undefined;
    return [];
  }
  ctx.unauthenticatedSince ??= now;
  const gap = (now - ctx.unauthenticatedSince) / 1000;
  return gap > KORC_AUTH_GAP_SECONDS ? [`K-ORC could not authenticate with the materialised clouds.yaml for more than ${KORC_AUTH_GAP_SECONDS} s (${error})`] : [];
}

const korcAuthenticates = (ctx: PhaseContext) => korcAuthError(ctx) === undefined;

const INFRASTRUCTURE_KINDS = new Set(['MariaDB', 'Memcached', 'Keystone']);
const KORC_KINDS = new Set(['ApplicationCredential', 'User', 'Domain', 'Service', 'Endpoint', 'Project', 'Role', 'RoleAssignment']);
const SERVICE_KIND_NAMES = new Set(SERVICE_KINDS.map((k) => k.kind));

function exactlyMints(ctx: PhaseContext, n: number): string[] {
  return mints(ctx) === n ? [] : [`expected ${n} new application credential mint(s), saw ${mints(ctx)}`];
}

function noDeletions(ctx: PhaseContext): string[] {
  const deleted = ctx.records.flatMap((r) => r.changes).filter((c) => (c.verb === 'deleting' || c.verb === 'deleted') && c.by === 'metacontroller' && !c.object.startsWith('ControlPlane/'));
  return deleted.map((c) => `${c.object} was deleted`);
}

export const PHASES: Record<string, Phase> = {
  converge: {
    name: 'converge',
    title: 'ControlPlane created',
    act: () => {},
    done: controlPlaneReady,
    verify: (ctx) => [...exactlyMints(ctx, 1), ...(adminCredentialId(ctx) ? [] : ['no admin application credential id in status'])],
  },
  'rotate-password': {
    name: 'rotate-password',
    title: 'admin password rotated',
    act: (ctx) => {
      const cp = ctx.sim.get(ctx.cp)!;
      const password = ctx.sim.nextAdminPassword();
      if (isManagedDatabase(cp.spec)) {
        ctx.sim.world.openbao.set(remoteKeys(ctx.cp.namespace!, ctx.cp.name).adminPassword, { password });
      } else {
        const ref = effectiveAdminPasswordRef(cp.spec, ctx.cp.name);
        const secret = ctx.sim.cluster.get({ apiVersion: 'v1', kind: 'Secret', namespace: ctx.cp.namespace, name: ref.name! })!;
        ctx.sim.cluster.update({ ...secret, data: { ...secret.data, [ref.key]: b64(password) } }, 'user');
      }
    },
    done: (ctx) => controlPlaneReady(ctx) && adminCredentialId(ctx) !== ctx.startId && ctx.sim.world.openstack.adminPassword === ctx.sim.adminPassword && korcAuthenticates(ctx),
    verify: (ctx) => exactlyMints(ctx, 1),
    watch: korcAuthGap,
  },
  remint: {
    name: 'remint',
    title: 'CredentialRotation reMint requested',
    act: (ctx) => {
      ctx.sim.createCredentialRotation({ metadata: { name: `rotate-${ctx.cp.name}-admin`, namespace: ctx.cp.namespace }, spec: { target: 'adminApplicationCredential', reMint: true } });
    },
    done: (ctx) =>
      controlPlaneReady(ctx) &&
      adminCredentialId(ctx) !== ctx.startId &&
      isTrue(ctx.sim.get({ apiVersion: 'c5c3.io/v1alpha1', kind: 'CredentialRotation', namespace: ctx.cp.namespace, name: `rotate-${ctx.cp.name}-admin` }), 'RotationComplete') &&
      korcAuthenticates(ctx),
    verify: (ctx) => exactlyMints(ctx, 1),
    watch: korcAuthGap,
  },
  outage: {
    name: 'outage',
    title: 'database down',
    act: (ctx) => {
      ctx.sim.world.down.add(outageTarget(ctx));
    },
    done: (ctx) => !controlPlaneReady(ctx),
    verify: (ctx) => [...noDeletions(ctx), ...exactlyMints(ctx, 0)],
  },
  recover: {
    name: 'recover',
    title: 'database back',
    act: (ctx) => {
      ctx.sim.world.down.delete(outageTarget(ctx));
    },
    done: controlPlaneReady,
    verify: (ctx) => [...noDeletions(ctx), ...exactlyMints(ctx, 0), ...(adminCredentialId(ctx) === ctx.startId ? [] : ['the admin credential changed'])],
  },
  duplicate: {
    name: 'duplicate',
    title: 'a second ControlPlane created in the same namespace',
    act: (ctx) => {
      const cp = ctx.sim.get(ctx.cp)!;
      ctx.sim.createControlPlane({ metadata: { name: `${ctx.cp.name}-twin`, namespace: ctx.cp.namespace }, spec: cp.spec });
    },
    done: (ctx) => conditionOf(ctx.sim.get({ ...ctx.cp, name: `${ctx.cp.name}-twin` }), 'Ready')?.reason === 'DuplicateControlPlane' && controlPlaneReady(ctx),
    verify: (ctx) => [...noDeletions(ctx), ...exactlyMints(ctx, 0)],
  },
  'remove-duplicate': {
    name: 'remove-duplicate',
    title: 'the second ControlPlane deleted',
    act: (ctx) => ctx.sim.cluster.delete({ ...ctx.cp, name: `${ctx.cp.name}-twin` }, 'user'),
    done: (ctx) => !ctx.sim.get({ ...ctx.cp, name: `${ctx.cp.name}-twin` }) && controlPlaneReady(ctx),
    verify: (ctx) => [...noDeletions(ctx), ...exactlyMints(ctx, 0)],
  },
  delete: {
    name: 'delete',
    title: 'ControlPlane deleted',
    act: (ctx) => ctx.sim.cluster.delete(ctx.cp, 'user'),
    done: (ctx) => !ctx.sim.get(ctx.cp) && ctx.sim.controlPlanes.observedChildren({ metadata: { namespace: ctx.cp.namespace, uid: ctx.uid } }).length === 0,
    verify: (ctx) => {
      const changes = ctx.records.flatMap((r) => r.changes);
      const lastKorc = changes.findLastIndex((c) => c.verb === 'deleted' && KORC_KINDS.has(c.object.split('/')[0]!));
      const firstInfra = changes.findIndex((c) => (c.verb === 'deleting' || c.verb === 'deleted') && INFRASTRUCTURE_KINDS.has(c.object.split('/')[0]!));
      const problems = lastKorc > firstInfra && firstInfra >= 0 ? ['Keystone or infrastructure was deleted before the K-ORC objects were gone'] : [];
      // The service CRs go after the K-ORC objects and before Keystone and the infrastructure.
      const firstService = changes.findIndex((c) => (c.verb === 'deleting' || c.verb === 'deleted') && SERVICE_KIND_NAMES.has(c.object.split('/')[0]!));
      const lastService = changes.findLastIndex((c) => c.verb === 'deleted' && SERVICE_KIND_NAMES.has(c.object.split('/')[0]!));
      if (firstService >= 0 && firstService < lastKorc) problems.push('a service CR was deleted before the K-ORC objects were gone');
      if (lastService >= 0 && firstInfra >= 0 && lastService > firstInfra) problems.push('Keystone or infrastructure was deleted before the service CRs were gone');
      // One service at a time, each before what it depends on: the reverse of SERVICES.
      // (An object without finalizers goes at once: `deleted` with no `deleting` before it.)
      const isKind = (kind: string) => (c: { object: string }) => c.object.split('/')[0] === kind;
      const started = (kind: string) => changes.findIndex((c) => (c.verb === 'deleting' || c.verb === 'deleted') && isKind(kind)(c));
      const gone = (kind: string) => changes.findLastIndex((c) => c.verb === 'deleted' && isKind(kind)(c));
      const deleted = SERVICES.filter((d) => started(d.kind.kind) >= 0);
      for (let i = 1; i < deleted.length; i++) {
        const [before, after] = [deleted[i - 1]!, deleted[i]!];
        if (started(before.kind.kind) < gone(after.kind.kind)) problems.push(`${before.kind.kind} was deleted before ${after.kind.kind} was gone (the teardown goes in reverse SERVICES order)`);
      }
      const users = ctx.sim.world.openstack.users.size;
      if (users > 0) problems.push(`${users} service user(s) left in Keystone`);
      const revoked = ctx.sim.world.openstack.applicationCredentials.size;
      return revoked === 0 ? problems : [...problems, `${revoked} application credential(s) left in Keystone`];
    },
  },
  ...AGGREGATE_PHASES,
  ...TAKEOVER_PHASES,
  ...UPGRADE_PHASES,
  ...VERIFICATION_PHASES,
  ...SCHEDULED_PHASES,
  ...BACKUP_PHASES,
  ...SERVICE_PHASES,
  ...OPENBAO_PHASES,
};

/** Scenario names a user passes to --scenario, as phase sequences. */
export const SCENARIOS: Record<string, string[]> = {
  'rotate-password': ['rotate-password'],
  remint: ['remint'],
  outage: ['outage', 'recover'],
  duplicate: ['duplicate', 'remove-duplicate'],
  aggregate: ['aggregate', 'remove-source-key', 'restore-source-key', 'conflict', 'resolve-conflict', 'rotate-password', 'aggregate-current', 'delete-aggregate'],
  delete: ['delete'],
  takeover: ['reference-operator', 'takeover'],
  upgrade: ['upgrade'],
  'upgrade-fails': ['upgrade-fails'],
  'upgrade-refused': ['upgrade-refused'],
  'upgrade-verified': ['upgrade-verified'],
  'upgrade-verification-fails': ['upgrade-verification-fails'],
  scheduled: ['scheduled', 'scheduled-outage'],
  'rotate-service-password': ['rotate-service-password'],
  backup: ['backup', 'backup-fails', 'backup-recovers', 'restore'],
  'openbao-lost': ['openbao-lost', 'openbao-restored'],
};
export const ALL_SCENARIOS = ['rotate-password', 'remint', 'outage', 'aggregate', 'rotate-service-password', 'delete'];

function outageTarget(ctx: PhaseContext): string {
  const cp = ctx.sim.get(ctx.cp)!;
  return isManagedDatabase(cp.spec) ? `MariaDB/${cp.spec.infrastructure.database.clusterRef.name}` : `Keystone/${childNames(ctx.cp.name).keystone}`;
}

export interface PhaseResult {
  phase: Phase;
  rounds: number | undefined;
  records: RoundRecord[];
  problems: string[];
}

/** Run one phase: act, rounds until done at rest, verify. */
export async function runPhase(sim: Simulation, cp: ObjectRef, phase: Phase, maxRounds = 200): Promise<PhaseResult> {
  const ctx: PhaseContext = { sim, cp, uid: sim.get(cp)?.metadata.uid ?? '', startId: undefined, startMints: sim.world.openstack.mints.length, records: [] };
  ctx.startId = adminCredentialId(ctx);
  const first = sim.rounds.length;
  phase.act(ctx);
  const limit = phase.maxRounds ?? maxRounds;
  const watched: string[] = [];
  const rounds = await sim.runUntil(() => phase.done(ctx), limit, phase.watch ? () => watched.push(...phase.watch!(ctx)) : undefined);
  ctx.records = sim.rounds.slice(first);
  const problems = [...new Set(watched)].slice(0, 10);
  problems.push(...(rounds === undefined ? [`did not reach its goal within ${limit} rounds`] : phase.verify(ctx)));
  return { phase, rounds, records: ctx.records, problems };
}
