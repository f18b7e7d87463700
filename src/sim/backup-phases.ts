// The database backup and the README's restore procedure in the simulation (docs/architecture.md
// §2.15): the Backup succeeds; a backup Job failing shows in DatabaseBackupReady while the
// ControlPlane stays Ready; a `Restore` from the Backup brings Keystone's database back to the
// backup and the ControlPlane converges on it without a mint, a deletion or a changed credential.
// Nothing to do (each phase done at once) for a ControlPlane that declares no backup.
import { databaseBackupName } from '../api/child-names.js';
import { GVK } from '../k8s/kinds.js';
import { adminCredentialId, conditionOf, controlPlaneReady, isTrue, type Phase, type PhaseContext } from './phase.js';

const declared = (ctx: PhaseContext) => ctx.sim.get(ctx.cp)?.spec?.infrastructure?.database?.backup !== undefined;
const backupCondition = (ctx: PhaseContext) => conditionOf(ctx.sim.get(ctx.cp), 'DatabaseBackupReady');
const restoreRef = (ctx: PhaseContext) => ({ apiVersion: GVK.Restore.apiVersion, kind: GVK.Restore.kind, namespace: ctx.cp.namespace, name: `${ctx.cp.name}-restore` });
/** A user that exists in Keystone's database only after the backup: the restore removes it. */
const MARKER = 'created-after-the-backup';

function unchanged(ctx: PhaseContext): string[] {
  const problems: string[] = [];
  const minted = ctx.sim.world.openstack.mints.length - ctx.startMints;
  if (minted !== 0) problems.push(`expected no application credential mint, saw ${minted}`);
  const deleted = ctx.records.flatMap((r) => r.changes).filter((c) => (c.verb === 'deleting' || c.verb === 'deleted') && c.by === 'metacontroller');
  for (const c of deleted) problems.push(`${c.object} was deleted`);
  if (adminCredentialId(ctx) !== ctx.startId) problems.push('the admin credential changed');
  return problems;
}

/** A phase watch: the ControlPlane never leaves Ready because of its backup. */
const staysReady = (ctx: PhaseContext) => (controlPlaneReady(ctx) ? [] : [`Ready went ${conditionOf(ctx.sim.get(ctx.cp), 'Ready')?.reason}`]);

/** The stand-in mariadb-operator's backup Jobs fail (or no longer), until DatabaseBackupReady says `reason`; Ready holds throughout. */
function knobPhase(name: string, title: string, fail: boolean, reason: string): Phase {
  return {
    name,
    title,
    act: (ctx) => {
      ctx.sim.world.backupsFail = fail;
    },
    done: (ctx) => !declared(ctx) || backupCondition(ctx)?.reason === reason,
    watch: staysReady,
    verify: unchanged,
  };
}

export const BACKUP_PHASES: Record<string, Phase> = {
  backup: {
    name: 'backup',
    title: 'the scheduled database backup runs',
    act: () => undefined,
    done: (ctx) => !declared(ctx) || (backupCondition(ctx)?.reason === 'BackupSucceeded' && controlPlaneReady(ctx)),
    verify: (ctx) => {
      if (!declared(ctx)) return [];
      const problems = unchanged(ctx);
      if (!ctx.sim.world.backups.get(`${ctx.cp.namespace}/${databaseBackupName(ctx.cp.name)}`)?.snapshot) problems.push('the Backup holds no snapshot');
      return problems;
    },
  },
  'backup-fails': knobPhase('backup-fails', "the backup Job fails (the stand-in mariadb-operator's knob)", true, 'BackupFailed'),
  'backup-recovers': knobPhase('backup-recovers', 'the backup Job succeeds again', false, 'BackupSucceeded'),
  restore: {
    name: 'restore',
    title: 'Restore from the Backup into the managed MariaDB (docs/operations.md "Restoring the database")',
    act: (ctx) => {
      if (!declared(ctx)) return;
      // Keystone's database moves on after the backup; the restore must bring it back.
      ctx.sim.world.openstack.users.set(MARKER, 'x');
      const cp = ctx.sim.get(ctx.cp)!;
      ctx.sim.cluster.create(
        {
          ...restoreRef(ctx),
          metadata: { name: restoreRef(ctx).name, namespace: ctx.cp.namespace },
          spec: { mariaDbRef: { name: cp.spec.infrastructure.database.clusterRef.name }, backupRef: { name: databaseBackupName(ctx.cp.name) } },
        },
        'user',
      );
    },
    done: (ctx) => !declared(ctx) || (isTrue(ctx.sim.cluster.get(restoreRef(ctx)), 'Complete') && !ctx.sim.world.openstack.users.has(MARKER) && controlPlaneReady(ctx)),
    watch: staysReady,
    verify: (ctx) => {
      if (!declared(ctx)) return [];
      const problems = unchanged(ctx);
      // The backup was taken after the credential was minted: the restored Keystone still knows it
      // (a backup older than the last mint would not: docs/operations.md, "Restoring the database").
      const id = adminCredentialId(ctx);
      if (id === undefined || !ctx.sim.world.openstack.applicationCredentials.has(id)) problems.push(`the restored Keystone database does not hold the admin application credential ${id}`);
      return problems;
    },
  },
};
