// spec.infrastructure.database.backup: scheduled backups of the managed MariaDB, projected as a
// mariadb-operator `Backup` (k8s.mariadb.com/v1alpha1, the release of the MariaDB CRD we emit:
// v0.38.1, ../shared/crds/k8s.mariadb.com/backups.yaml). The fields are the upstream Backup's
// own (schedule.cron, storage.s3 / storage.persistentVolumeClaim, maxRetention, compression),
// so the child is this object passed through (controlplane/database-backup.ts).
//
// What the upstream operator checks in its webhook (api/v1alpha1/backup_types.go Validate,
// base_types.go Schedule.Validate, mariadb-operator@1d616a2c) is expressed here, so the API
// server refuses it at admission and a spec that bypassed admission is answered InvalidSpec:
// - the schedule is a five-field cron expression (robfig/cron with Minute|Hour|Dom|Month|Dow);
// - exactly one storage (upstream: exactly one of s3, persistentVolumeClaim, volume; `volume` is
//   not offered: a node-local or hand-written volume is no place for a control plane's backups);
// - the retention is a positive duration (upstream defaults an empty one to 30 days, and it is
//   immutable once set: `webhook:"inmutableinit"`, so the schema gives the default itself).
import { Type, type Static } from '@sinclair/typebox';
import { cel, StringEnum, type KubeOptions } from './kube.js';

/** mariadb-operator's default retention (30 days, backup_types.go SetDefaults), as a Go duration. */
export const DEFAULT_BACKUP_RETENTION = '720h';

export const BACKUP_COMPRESSIONS = ['none', 'bzip2', 'gzip'] as const;

const MONTHS = 'JAN|FEB|MAR|APR|MAY|JUN|JUL|AUG|SEP|OCT|NOV|DEC';
const DAYS = 'SUN|MON|TUE|WED|THU|FRI|SAT';

/** One cron field: `*` or a value or a range, an optional `/step`, comma-separated. */
function cronField(value: string): string {
  const item = `(\\*|(${value})(-(${value}))?)(/[1-9][0-9]{0,2})?`;
  return `${item}(,${item})*`;
}

/**
 * A five-field cron expression as robfig/cron's standard parser reads it (minute 0-59, hour 0-23,
 * day of month 1-31 or `?`, month 1-12 or JAN-DEC, day of week 0-6 or SUN-SAT or `?`), fields
 * separated by single spaces. Descriptors (`@daily`) are refused as upstream refuses them.
 */
export const CRON_PATTERN =
  '^' +
  [
    cronField('[0-5]?[0-9]'),
    cronField('[01]?[0-9]|2[0-3]'),
    `(\\?|${cronField('0?[1-9]|[12][0-9]|3[01]')})`,
    cronField(`0?[1-9]|1[0-2]|${MONTHS}`),
    `(\\?|${cronField(`[0-6]|${DAYS}`)})`,
  ].join(' ') +
  '$';

/** A Go duration of whole h/m/s components; `duration()` reads it (the rule guards the parse). */
export const BACKUP_RETENTION_PATTERN = '^([0-9]+(h|m|s))+$';
export const BACKUP_RETENTION_RULE = `self.matches('${BACKUP_RETENTION_PATTERN}') && duration(self) > duration('0s')`;

const SecretKeySelector = (description: string) =>
  Type.Object(
    { key: Type.String({ description: 'Key of the Secret.' }), name: Type.String({ description: 'Name of the Secret.' }) },
    { description, 'x-kubernetes-map-type': 'atomic' } as KubeOptions,
  );

const S3 = Type.Object(
  {
    bucket: Type.String({ minLength: 1, description: 'Bucket the backups are stored in.' }),
    endpoint: Type.String({ minLength: 1, description: 'S3 API endpoint without scheme (host:port).' }),
    region: Type.Optional(Type.String({ description: 'S3 region.' })),
    prefix: Type.Optional(Type.String({ description: 'Folder in the bucket, e.g. "keystone/" (a trailing slash is added).' })),
    accessKeyIdSecretKeyRef: Type.Optional(SecretKeySelector('Secret key holding the S3 access key id.')),
    secretAccessKeySecretKeyRef: Type.Optional(SecretKeySelector('Secret key holding the S3 secret access key.')),
    sessionTokenSecretKeyRef: Type.Optional(SecretKeySelector('Secret key holding an S3 session token.')),
    tls: Type.Optional(
      Type.Object(
        {
          enabled: Type.Boolean({ description: 'Connect to S3 with TLS.' }),
          caSecretKeyRef: Type.Optional(SecretKeySelector('Secret key holding the CA bundle that verifies S3.')),
        },
        { description: 'TLS towards S3.' },
      ),
    ),
  },
  { description: 'An S3-compatible bucket (the upstream Backup spec.storage.s3).' },
);

const PersistentVolumeClaim = Type.Object(
  {
    accessModes: Type.Optional(Type.Array(Type.String(), { description: 'Access modes of the claim (e.g. ReadWriteOnce).', 'x-kubernetes-list-type': 'atomic' } as KubeOptions)),
    resources: Type.Object(
      {
        requests: Type.Object(
          { storage: Type.String({ minLength: 1, description: 'Size of the claim, e.g. 50Gi.' }) },
          { description: 'Requested resources.' },
        ),
      },
      { description: 'Size of the claim.' },
    ),
    storageClassName: Type.Optional(Type.String({ description: 'StorageClass of the claim.' })),
  },
  {
    description:
      'A PersistentVolumeClaim the operator creates, named like the Backup (the upstream Backup spec.storage.persistentVolumeClaim). ' +
      'It has no owner: it and the backups in it outlive the Backup and the ControlPlane.',
  },
);

export const DatabaseBackup = Type.Object(
  {
    schedule: Type.String({
      pattern: CRON_PATTERN,
      description: 'When to take a backup: a five-field cron expression (minute hour day-of-month month day-of-week), e.g. "0 3 * * *".',
    }),
    suspend: Type.Optional(Type.Boolean({ default: false, description: 'Pause the schedule (e.g. during a restore).' })),
    storage: Type.Object(
      { s3: Type.Optional(S3), persistentVolumeClaim: Type.Optional(PersistentVolumeClaim) },
      {
        description: 'Where backups go: exactly one of s3 or persistentVolumeClaim. Immutable (the operator refuses a change).',
        ...cel(
          { rule: 'has(self.s3) != has(self.persistentVolumeClaim)', message: 'backup storage: exactly one of s3 or persistentVolumeClaim must be set' },
          { rule: 'self == oldSelf', message: 'backup storage is immutable: remove the backup and declare it again to move it' },
        ),
      } as KubeOptions,
    ),
    retention: Type.Optional(
      Type.String({
        default: DEFAULT_BACKUP_RETENTION,
        description: 'How long backups are kept: a positive Go duration of h/m/s (default 720h, 30 days). Immutable once set (the operator refuses a change).',
        ...cel(
          { rule: BACKUP_RETENTION_RULE, message: 'backup retention must be a positive duration such as 720h' },
          { rule: 'self == oldSelf', message: 'backup retention is immutable: remove the backup and declare it again to change it' },
        ),
      }),
    ),
    compression: Type.Optional(StringEnum(BACKUP_COMPRESSIONS, { description: 'Compression of the backup files (operator default: none).' })),
  },
  {
    description:
      'Scheduled backups of the managed MariaDB (a mariadb-operator Backup {controlplane}-database-backup). ' +
      'Only for a managed database (clusterRef): a brownfield database is the user\'s to back up.',
  },
);

export type DatabaseBackupSpec = Static<typeof DatabaseBackup>;

/** The CEL rule on `database` that keeps `backup` to a managed database, and its message. */
export const BACKUP_MANAGED_ONLY = {
  rule: '!has(self.backup) || has(self.clusterRef)',
  message: "backup applies to a managed database (clusterRef): a brownfield database (host) is the user's to back up",
} as const;
