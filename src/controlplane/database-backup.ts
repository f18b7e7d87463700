// The aside stage DatabaseBackup → DatabaseBackupReady (docs/architecture.md §2.15): with
// `spec.infrastructure.database.backup` on a managed database, a mariadb-operator Backup
// `{cp}-database-backup` of the MariaDB the clusterRef names (ours or adopted), on its schedule.
//
// Its condition is outside the Ready aggregate: a failing backup is visible on the ControlPlane
// (and alerted on, charts/c5c3-hooks/rules) without taking the control plane out of service,
// which a backup job failing at 3 a.m. says nothing about. It runs on every pass, whatever stage
// the chain stopped at, since a database that exists is worth backing up before Keystone is up.
//
// The Backup's state, as mariadb-operator v0.38.1 writes it (pkg/condition/complete.go
// SetCompleteWithCronJob and internal/controller/backup_controller.go, mariadb-operator@1d616a2c):
// one condition `Complete`, no observedGeneration; for a scheduled Backup
//   False/CronJobScheduled "Scheduled"  no backup finished yet (or the last one is older than the schedule)
//   False/CronJobRunning   "Running"    a backup Job is running and the last one did not succeed
//   False/CronJobScheduled "Failed"     the last scheduled backup failed (upstream's CronJobFailed
//                                       constant has the value "CronJobScheduled": the message tells)
//   True/CronJobSucess     "Success"    the last scheduled backup succeeded
//   False/Failed           "MariaDB not ready", "MariaDB not found", "Error creating CronJob"
import { durationSeconds } from '../k8s/duration.js';
import { GVK } from '../k8s/kinds.js';
import { findCondition } from '../k8s/conditions.js';
import { isTerminating, identity, type KubeObject } from '../k8s/observed.js';
import { carries } from '../k8s/carries.js';
import { DEFAULT_BACKUP_RETENTION, type DatabaseBackupSpec } from '../api/database-backup.js';
import { CONDITION, REASON } from './conditions.js';
import { child } from './children.js';
import { databaseBackupName } from './names.js';
import { complete, type Stage, type StageInput, type StageResult } from './stage.js';
import { invalidSpec } from './stages/invalid-spec.js';

/** The spec path the stage owns (schema errors under it are its InvalidSpec). */
export const BACKUP_SPEC_PATH = 'spec.infrastructure.database.backup';
/** Seconds between passes while the backup's spec is unusable (the resync is not asked for: an aside never stops the chain). */
const INTERVAL = 60;

const under = (e: string) => e.startsWith(`${BACKUP_SPEC_PATH}.`) || e.startsWith(`${BACKUP_SPEC_PATH}:`);

function observedBackup(input: StageInput): KubeObject | undefined {
  return input.children.get(GVK.Backup, input.cp.namespace, databaseBackupName(input.cp.name));
}

/** What the schema and CEL cannot guarantee once a spec bypassed admission (the CEL rules, re-checked). */
function problems(input: StageInput): string[] {
  const db = input.spec.infrastructure?.database;
  const backup = db?.backup;
  if (!backup) return [];
  const out: string[] = [];
  if (db.clusterRef === undefined) {
    out.push(`${BACKUP_SPEC_PATH}: backup applies to a managed database (clusterRef); a brownfield database (host) is the user's to back up`);
  }
  if ((backup.storage.s3 === undefined) === (backup.storage.persistentVolumeClaim === undefined)) {
    out.push(`${BACKUP_SPEC_PATH}.storage: exactly one of s3 or persistentVolumeClaim must be set`);
  }
  const retention = durationSeconds(backup.retention ?? DEFAULT_BACKUP_RETENTION);
  if (retention === undefined || retention <= 0) out.push(`${BACKUP_SPEC_PATH}.retention: must be a positive duration such as 720h`);
  return out;
}

/** The Backup child: the declared fields passed through to the upstream kind. */
export function desiredBackup(input: StageInput, backup: DatabaseBackupSpec, mariadb: string): KubeObject {
  const spec: Record<string, unknown> = {
    mariaDbRef: { name: mariadb },
    schedule: { cron: backup.schedule, suspend: backup.suspend ?? false },
    storage: backup.storage,
    maxRetention: backup.retention ?? DEFAULT_BACKUP_RETENTION,
  };
  if (backup.compression !== undefined) spec.compression = backup.compression;
  return child(GVK.Backup, input.cp, databaseBackupName(input.cp.name), { spec });
}

/** DatabaseBackupReady from the Backup's `Complete` condition (the table at the top). */
function fromBackup(name: string, observed: KubeObject | undefined, desired: KubeObject, schedule: string, suspended: boolean): StageResult['condition'] {
  const label = `Backup ${name}`;
  if (!observed) return { status: 'False', reason: REASON.WaitingForBackup, message: `${label} is being created` };
  if (isTerminating(observed)) return { status: 'False', reason: REASON.WaitingForBackup, message: `${label} is being deleted; it is created again once it is gone` };
  if (!carries(observed, desired, ['spec'])) return { status: 'False', reason: REASON.WaitingForBackup, message: `${label} does not carry the desired spec yet` };
  const when = suspended ? `schedule "${schedule}" suspended` : `schedule "${schedule}"`;
  const complete = findCondition(observed, 'Complete');
  if (!complete) return { status: 'False', reason: REASON.WaitingForBackup, message: `${label} (${when}): mariadb-operator has not reported on it yet` };
  const upstream = `${String(complete.reason ?? '')}: ${String(complete.message ?? '')}`;
  if (complete.status === 'True') return { status: 'True', reason: REASON.BackupSucceeded, message: `${label} (${when}): the last backup succeeded` };
  if (complete.reason === 'CronJobRunning') return { status: 'True', reason: REASON.BackupRunning, message: `${label} (${when}): a backup is running` };
  if (complete.reason === 'CronJobScheduled' && complete.message === 'Scheduled') {
    return { status: 'True', reason: REASON.BackupScheduled, message: `${label} (${when}): scheduled, no backup has completed yet` };
  }
  return {
    status: 'False',
    reason: REASON.BackupFailed,
    message: `${label} (${when}) reports ${upstream}; the ControlPlane stays Ready: kubectl describe backup ${name} shows its CronJob and Jobs`,
  };
}

export const databaseBackupStage: Stage = {
  name: 'DatabaseBackup',
  conditionType: CONDITION.DatabaseBackup,
  reads: [BACKUP_SPEC_PATH],
  interval: INTERVAL,
  aside: {
    // Declared (or declared wrongly), or a Backup of ours left to release: otherwise no condition.
    applies: (input) => input.spec.infrastructure?.database?.backup !== undefined || input.specErrors.some(under) || observedBackup(input) !== undefined,
  },
  run(input): StageResult {
    const name = databaseBackupName(input.cp.name);
    const observed = observedBackup(input);
    const backup = input.spec.infrastructure?.database?.backup;
    const wrong = [...input.specErrors.filter(under), ...problems(input)];
    // Observed children stay as last applied (keepObserved): a bad spec never costs the Backup.
    if (wrong.length > 0) return invalidSpec(wrong, INTERVAL);
    if (backup === undefined) {
      // Removed from the spec: the Backup goes (its Jobs' CronJob with it). The backups it took
      // stay: in S3, or on the claim the operator made without an owner (mariadb-operator@1d616a2c
      // pkg/builder/persistentvolumeclaim_builder.go BuildBackupStoragePVC sets none).
      return {
        condition: { status: 'False', reason: REASON.BackupRemoved, message: `${BACKUP_SPEC_PATH} was removed: Backup ${name} is deleted; the backups it took stay in their storage` },
        outcome: complete(),
        children: [],
        releases: observed && !isTerminating(observed) ? [identity(observed)] : [],
      };
    }
    // The MariaDB's name is the Infrastructure stage's to check: nothing is emitted until it is usable.
    if (!input.resolved.infrastructure.ok) {
      return { condition: { status: 'False', reason: REASON.WaitingForBackup, message: `Backup ${name} waits for a usable spec.infrastructure (InfrastructureReady says what is wrong)` }, outcome: complete(), children: [] };
    }
    const mariadb = input.resolved.infrastructure.value.database.clusterRef?.name;
    if (mariadb === undefined) return invalidSpec(problems(input), INTERVAL);
    const desired = desiredBackup(input, backup, mariadb);
    return {
      condition: fromBackup(name, observed, desired, backup.schedule, backup.suspend === true),
      outcome: complete(),
      children: [desired],
    };
  },
};
