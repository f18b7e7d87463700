// The stand-in mariadb-operator's Backup and Restore controllers, reduced to the status the hooks
// and a person read: the one `Complete` condition mariadb-operator v0.38.1 writes
// (pkg/condition/complete.go SetCompleteWithCronJob / SetCompleteWithJob,
// internal/controller/backup_controller.go and restore_controller.go, mariadb-operator@1d616a2c):
//
// Backup (scheduled): MariaDB not Ready → False/Failed "MariaDB not ready" (waitForIt, the
// default); then False/CronJobScheduled "Scheduled" until its first backup; then
// True/CronJobSucess "Success" or, when it failed, False/CronJobScheduled "Failed" (upstream's
// CronJobFailed constant has the value "CronJobScheduled"). Simplification: the stand-in's CronJob
// fires on the pass after it was scheduled, not at the cron time, and again whenever the failure
// knob flips. A successful backup takes a copy of the OpenStack state (what Keystone's database
// holds): the snapshot a Restore brings back.
//
// Restore (backupRef): False/JobRunning "Running", then, once the Backup holds a snapshot,
// Keystone's database is the snapshot again and True/JobComplete "Success"; without one it stays
// Running. The MariaDB stays Ready meanwhile (a Restore runs a Job against the live database).
import type { Obj } from './cluster.js';
import { refOf } from './cluster.js';
import type { Cluster } from './cluster.js';
import { condition } from './conditions.js';

/** What Keystone's database holds (the model's records of mints and revocations and its id counters are history, not the database's). */
export interface KeystoneData {
  adminPassword: string | undefined;
  applicationCredentials: Map<string, { name: string; secret: string; expiresAt?: string }>;
  catalog: Map<string, string>;
  users: Map<string, string>;
  projects: Set<string>;
  roles: Set<string>;
  regions: Map<string, string>;
  /** Catalog rows by id: what K-ORC's Endpoint adoption lists (endpoint/actuator.go ListOSResourcesForAdoption). */
  endpoints: Map<string, CatalogRow>;
}

/** One row of Keystone's endpoint table; region '' is none. */
export interface CatalogRow {
  service: string;
  iface: string;
  url: string;
  region: string;
}

/** The part of the simulated world (operators.ts World) the stand-in mariadb-operator reads and writes. */
export interface BackupWorld {
  cluster: Cluster;
  openstack: KeystoneData;
  notes: { by: string; text: string }[];
  backups: Map<string, BackupRecord>;
  backupsFail: boolean;
}

/** A Backup's `Complete` state as the stand-in keeps it. */
export type BackupState = 'mariadb-not-ready' | 'scheduled' | 'succeeded' | 'failed';

const COMPLETE: Record<BackupState, [boolean, string, string]> = {
  'mariadb-not-ready': [false, 'Failed', 'MariaDB not ready'],
  scheduled: [false, 'CronJobScheduled', 'Scheduled'],
  succeeded: [true, 'CronJobSucess', 'Success'],
  failed: [false, 'CronJobScheduled', 'Failed'],
};

/** The status mariadb-operator writes for a scheduled Backup in `state` (no observedGeneration: it reports none). */
export function backupStatusOf(b: Obj, state: BackupState, now: Date): Obj {
  const [ok, reason, message] = COMPLETE[state];
  return { conditions: [condition(b.status, 'Complete', ok, reason, message, now)] };
}

/** What the stand-in remembers of each Backup (`namespace/name`): its state, and the last good snapshot. */
export interface BackupRecord {
  state: BackupState;
  snapshot?: KeystoneData;
  /** The failure knob when the last backup ran. */
  ranFailing?: boolean;
}

const keyOf = (o: Obj) => `${o.metadata.namespace}/${o.metadata.name}`;
const live = (o: Obj) => !o.metadata.deletionTimestamp;
const isReady = (o: Obj | undefined) => !!o?.status?.conditions?.some((c: Obj) => c.type === 'Ready' && c.status === 'True');

function snapshotOf(o: KeystoneData): KeystoneData {
  return {
    adminPassword: o.adminPassword,
    applicationCredentials: new Map([...o.applicationCredentials].map(([k, v]) => [k, { ...v }])),
    catalog: new Map(o.catalog),
    users: new Map(o.users),
    projects: new Set(o.projects),
    roles: new Set(o.roles),
    regions: new Map(o.regions),
    endpoints: new Map([...o.endpoints].map(([k, v]) => [k, { ...v }])),
  };
}

/** Keystone's database as it was at `snapshot`, in place (phases hold the OpenStack object). */
function restoreInto(o: KeystoneData, snapshot: KeystoneData): void {
  Object.assign(o, snapshotOf(snapshot));
}

function mariadbOf(w: BackupWorld, o: Obj): Obj | undefined {
  return w.cluster.get({ apiVersion: 'k8s.mariadb.com/v1alpha1', kind: 'MariaDB', namespace: o.metadata.namespace, name: o.spec?.mariaDbRef?.name });
}

export function mariadbBackups(w: BackupWorld): void {
  for (const b of w.cluster.list((o) => o.kind === 'Backup' && live(o))) {
    const record = w.backups.get(keyOf(b)) ?? { state: 'scheduled' };
    if (!isReady(mariadbOf(w, b))) {
      record.state = 'mariadb-not-ready';
    } else if (record.state === 'mariadb-not-ready') {
      record.state = 'scheduled';
    } else if (!b.spec?.schedule?.suspend && (record.state === 'scheduled' || record.ranFailing !== w.backupsFail)) {
      record.ranFailing = w.backupsFail;
      if (w.backupsFail) record.state = 'failed';
      else {
        record.state = 'succeeded';
        record.snapshot = snapshotOf(w.openstack);
      }
      w.notes.push({ by: 'mariadb-operator', text: `Backup ${b.metadata.name}: ${record.state === 'failed' ? 'the backup Job failed' : "backed up Keystone's database"}` });
    }
    w.backups.set(keyOf(b), record);
    w.cluster.updateStatus(refOf(b), backupStatusOf(b, record.state, w.cluster.now()), 'mariadb-operator');
  }
  for (const r of w.cluster.list((o) => o.kind === 'Restore' && live(o))) {
    if (r.status?.conditions?.some((c: Obj) => c.type === 'Complete' && c.status === 'True')) continue;
    const snapshot = w.backups.get(`${r.metadata.namespace}/${r.spec?.backupRef?.name}`)?.snapshot;
    const running = !r.status || !snapshot || !isReady(mariadbOf(w, r));
    if (!running) {
      restoreInto(w.openstack, snapshot!);
      w.notes.push({ by: 'mariadb-operator', text: `Restore ${r.metadata.name}: Keystone's database restored from Backup ${r.spec.backupRef.name}` });
    }
    const now = w.cluster.now();
    w.cluster.updateStatus(refOf(r), { conditions: [condition(r.status, 'Complete', !running, running ? 'JobRunning' : 'JobComplete', running ? 'Running' : 'Success', now)] }, 'mariadb-operator');
  }
}
