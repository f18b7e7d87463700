// Scenario 31: the scheduled database backup (issue 42; docs/architecture.md §2.15). A managed
// ControlPlane declaring `infrastructure.database.backup` (S3) gets its Backup child, accepted by
// the real API server under mariadb-operator's own Backup CRD (v0.38.1, ../shared/crds); the
// CRD refuses bad input; a failing backup Job (the stand-in mariadb-operator's knob) shows in
// DatabaseBackupReady while the ControlPlane stays Ready; and the README's restore (a Restore,
// under the real Restore CRD, from the Backup into the managed MariaDB) leaves the ControlPlane
// Ready with no mint and no child replaced. Scenario 42: the README's way to keep the database
// when the ControlPlane is deleted (release the MariaDB by its controller-uid label).
import { GVK } from '../../src/k8s/kinds.js';
import { databaseBackupName } from '../../src/controlplane/names.js';
import { KubeError } from '../kube.js';
import type { Obj } from '../../src/sim/cluster.js';
import { check, childrenOf, condition, conditionsLine, cpRef, createControlPlane, ensureNamespace, mints, waitReady, waitUntil, type Ctx, type Scenario } from './support.js';

const NS = 'openstack-backup';
const NAME = 'keystone';

const backupSpec = () => ({
  schedule: '0 3 * * *',
  storage: {
    s3: {
      bucket: 'openstack-backups',
      endpoint: 'minio.minio.svc:9000',
      prefix: 'keystone',
      accessKeyIdSecretKeyRef: { name: 's3-backup', key: 'access-key-id' },
      secretAccessKeySecretKeyRef: { name: 's3-backup', key: 'secret-access-key' },
    },
  },
});

const controlPlane = (name: string, backup: Obj): Obj => ({
  metadata: { name, namespace: NS },
  spec: {
    openStackRelease: '2025.2',
    infrastructure: { database: { clusterRef: { name: 'openstack-db' }, backup }, cache: { clusterRef: { name: 'openstack-memcached' } } },
    services: { keystone: { replicas: 1 } },
  },
});

async function backupReason(ctx: Ctx, reason: string, timeoutMs: number): Promise<Obj> {
  return waitUntil(
    `DatabaseBackupReady ${reason}`,
    async () => {
      const cp = await ctx.kube.get(cpRef(NS, NAME));
      return condition(cp, 'DatabaseBackupReady')?.reason === reason ? cp : undefined;
    },
    timeoutMs,
    ctx,
  );
}

export function backupScenarios(): Scenario[] {
  return [
    {
      id: 31,
      title: 'database backup: the Backup child under the real CRD, bad input refused, a failing backup leaves Ready, a Restore converges without a mint',
      async run(ctx) {
        await ensureNamespace(ctx, NS);
        // Admission: the API server refuses what the hooks would answer InvalidSpec.
        for (const [label, backup, message] of [
          ['a schedule that is not cron', { ...backupSpec(), schedule: 'every night' }, /schedule/],
          ['no storage', { ...backupSpec(), storage: {} }, /exactly one of s3 or persistentVolumeClaim/],
          ['a negative retention', { ...backupSpec(), retention: '-24h' }, /positive duration/],
        ] as [string, Obj, RegExp][]) {
          const refused = await ctx.kube
            .create({ apiVersion: GVK.ControlPlane.apiVersion, kind: 'ControlPlane', ...controlPlane(`refused-${label.length}`, backup) })
            .then(() => undefined, (err: unknown) => err);
          check(refused instanceof KubeError && refused.status === 422 && message.test(refused.message), `${label}: refused by admission (got ${refused instanceof Error ? refused.message : 'created'})`);
        }
        const brownfield = controlPlane('refused-brownfield', backupSpec());
        brownfield.spec.infrastructure.database = { host: 'db.example.com', secretRef: { name: 'keystone-db' }, backup: backupSpec() };
        const refused = await ctx.kube.create({ apiVersion: GVK.ControlPlane.apiVersion, kind: 'ControlPlane', ...brownfield }).then(() => undefined, (err: unknown) => err);
        check(refused instanceof KubeError && /user's to back up/.test(refused.message), `a backup of a brownfield database is refused (got ${refused instanceof Error ? refused.message : 'created'})`);

        // The stand-ins model one OpenStack: a ControlPlane created while another lives uses its admin password.
        const created = await createControlPlane(ctx, controlPlane(NAME, backupSpec()), ctx.ops.world.openstack.adminPassword);
        await waitReady(ctx, cpRef(NS, NAME), 240_000, (o) => !!o.status?.adminApplicationCredential?.id);
        const cp = await backupReason(ctx, 'BackupSucceeded', 60_000);
        const backup = await ctx.kube.get({ apiVersion: GVK.Backup.apiVersion, kind: 'Backup', namespace: NS, name: databaseBackupName(NAME) });
        check(!!backup, 'the Backup child exists in the API server');
        check(backup!.spec.mariaDbRef.name === 'openstack-db' && backup!.spec.schedule.cron === '0 3 * * *' && backup!.spec.storage.s3.bucket === 'openstack-backups' && backup!.spec.maxRetention === '720h', `the Backup carries the spec: ${JSON.stringify(backup!.spec)}`);
        check(backup!.metadata.ownerReferences?.some((r: Obj) => r.uid === created.metadata.uid && r.controller), 'owned by the ControlPlane');
        console.log(`    Backup ${backup!.metadata.name} accepted under mariadb-operator's CRD; ${conditionsLine(cp).split(' ').filter((c) => c.startsWith('DatabaseBackupReady')).join('')}`);

        // A failing backup Job: visible, Ready untouched.
        ctx.ops.world.backupsFail = true;
        const failing = await backupReason(ctx, 'BackupFailed', 60_000);
        check(condition(failing, 'Ready')?.status === 'True', `Ready stays True while the backup fails: ${conditionsLine(failing)}`);
        ctx.ops.world.backupsFail = false;
        await backupReason(ctx, 'BackupSucceeded', 60_000);

        // The README's restore: a Restore from the Backup into the managed MariaDB.
        const before = new Map((await childrenOf(ctx, NS, created.metadata.uid)).map((c) => [`${c.kind}/${c.metadata.name}`, c.metadata.uid]));
        const mintsBefore = mints(ctx);
        await ctx.kube.create({
          apiVersion: GVK.Restore.apiVersion,
          kind: 'Restore',
          metadata: { name: `${NAME}-restore`, namespace: NS },
          spec: { mariaDbRef: { name: 'openstack-db' }, backupRef: { name: databaseBackupName(NAME) } },
        });
        await waitUntil(
          'Restore Complete',
          async () => condition(await ctx.kube.get({ apiVersion: GVK.Restore.apiVersion, kind: 'Restore', namespace: NS, name: `${NAME}-restore` }), 'Complete')?.status === 'True',
          60_000,
          ctx,
        );
        await ctx.ops.settle();
        const after = await waitReady(ctx, cpRef(NS, NAME), 60_000);
        const children = new Map((await childrenOf(ctx, NS, created.metadata.uid)).map((c) => [`${c.kind}/${c.metadata.name}`, c.metadata.uid]));
        check(JSON.stringify([...children].sort()) === JSON.stringify([...before].sort()), 'no child deleted or replaced by the restore');
        check(mints(ctx) === mintsBefore, `no mint after the restore (saw ${mints(ctx) - mintsBefore})`);
        check(after.status.adminApplicationCredential.id === cp.status.adminApplicationCredential.id, 'the admin credential is the one from before the restore');
      },
    },
    {
      id: 42,
      title: "keeping the database (README): the MariaDB released by its label outlives its ControlPlane, unowned, never re-adopted",
      needs: [31],
      async run(ctx) {
        const db = { apiVersion: GVK.MariaDB.apiVersion, kind: 'MariaDB', namespace: NS, name: 'openstack-db' };
        const before = await ctx.kube.get(db);
        const cp = await ctx.kube.get(cpRef(NS, NAME));
        check(!!before && !!cp && before.metadata.ownerReferences?.some((r: Obj) => r.controller && r.uid === cp.metadata.uid), 'the managed MariaDB is controlled by its ControlPlane');
        // kubectl -n NS label mariadb openstack-db controller-uid-
        await ctx.kube.mergePatch(db, { metadata: { labels: { 'controller-uid': null } } });
        await waitUntil('Metacontroller released the MariaDB (no owner reference)', async () => ((await ctx.kube.get(db))?.metadata.ownerReferences ?? []).length === 0, 120_000, ctx);
        await ctx.ops.settle();
        const ready = await waitReady(ctx, cpRef(NS, NAME), 60_000);
        check(condition(ready, 'InfrastructureReady')?.status === 'True', `the ControlPlane reads the released MariaDB's readiness: ${conditionsLine(ready)}`);
        const released = await ctx.kube.get(db);
        check(!released?.metadata.labels?.['controller-uid'] && (released?.metadata.ownerReferences ?? []).length === 0, `not re-adopted: ${JSON.stringify(released?.metadata)}`);
        await ctx.kube.delete(cpRef(NS, NAME));
        await waitUntil('ControlPlane deleted', async () => !(await ctx.kube.get(cpRef(NS, NAME))), 180_000, ctx);
        await waitUntil('its children gone', async () => (await childrenOf(ctx, NS, cp?.metadata.uid ?? '')).length === 0, 120_000, ctx);
        const kept = await ctx.kube.get(db);
        check(kept?.metadata.uid === before?.metadata.uid && !kept?.metadata.deletionTimestamp && (kept?.metadata.ownerReferences ?? []).length === 0, `the MariaDB is still there, the same object, unowned: ${JSON.stringify(kept?.metadata)}`);
        console.log(`    MariaDB ${NS}/openstack-db kept past its ControlPlane (uid ${kept?.metadata.uid})`);
      },
    },
  ];
}
