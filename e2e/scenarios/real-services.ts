// Services beside Keystone against the real Keystone and K-ORC (issue 32): Placement, Glance with
// one S3 backend and a managed bus (the ControlPlane of hooks/' services run). The service users,
// role assignments and catalog rows are K-ORC's, in Keystone's database; behind the catalog rows
// the real Placement and Glance APIs (issue 40: openstack-apis.ts), which a user reaches with the
// `openstack` client (real-apis.ts); stand-in operators for the bus and the infrastructure.
import type { Obj } from '../../src/sim/cluster.js';
import { GVK } from '../../src/k8s/kinds.js';
import { SERVICE_PASSWORD_KEY, childNames, serviceChildNames, serviceRemoteKeys } from '../../src/controlplane/names.js';
import type { Ref } from '../kube.js';
import type { KeystoneApi } from '../keystone.js';
import { SERVICES as HOOKS_SERVICES } from '../../src/cli/hook-payloads.js';
import { SERVICES as ALL_SERVICES, placement } from '../../src/api/services/index.js';
import type { Ctx, Scenario } from './support.js';
import { unb64, secretValue, check, condition, cpRef, childrenOf, ensureNamespace, createControlPlane, userSecret, waitReady, mints, REAL_SERVICES_NS, keystoneApiOf, waitUntil } from './support.js';
import { REAL_NAME, answerAsKeystoneGoes } from './real-keystone.js';
import { rollout } from './upgrade.js';
import { apiValidatesAfterRotation, servicesGoneForUsers, usersReachTheApis } from './real-apis.js';
import { rotateServicePassword } from './service-password.js';

const SERVICES_SPEC: Obj = HOOKS_SERVICES.spec;
/** The services that ControlPlane declares, as their descriptors describe them. */
const SERVICES = ALL_SERVICES.filter((d) => SERVICES_SPEC.services[d.name] !== undefined).map((d) => ({ name: d.name, type: d.serviceType, kind: d.kind }));

interface ServicesInKeystone {
  users: string[];
  services: string[];
  endpoints: string[];
}

/** The services' users, catalog services and endpoints Keystone holds (ids). */
async function servicesIn(keystone: KeystoneApi): Promise<ServicesInKeystone> {
  const names = new Set<string>(SERVICES.map((s) => s.name));
  const types = new Set<string>(SERVICES.map((s) => s.type));
  const services = (await keystone.services()).filter((s) => types.has(s.type));
  const ids = new Set(services.map((s) => s.id as string));
  return {
    users: (await keystone.users()).filter((u) => names.has(u.name)).map((u) => u.id as string),
    services: [...ids],
    endpoints: (await keystone.endpoints()).filter((e) => ids.has(e.service_id)).map((e) => e.id as string),
  };
}

export function realServicesScenarios(): Scenario[] {
  const ns = REAL_SERVICES_NS;
  const ref = cpRef(ns, REAL_NAME);
  const names = childNames(REAL_NAME);
  const keystoneOf = (ctx: Ctx) => keystoneApiOf(ctx, ns, REAL_NAME);
  return [
    {
      id: 21,
      title: 'real Keystone, K-ORC, Placement and Glance: Placement, Glance (one backend) and a managed bus converge; service users, roles and catalog rows in Keystone; a user reaches both APIs through the catalog with the openstack client (401 without a valid token); the rotated service password restarts Placement, which still validates tokens; release upgrade through UpdatingServices; deletion removes them from Keystone and the catalog',
      async run(ctx) {
        await ensureNamespace(ctx, ns);
        for (const s of SERVICES) await ctx.bao.put(serviceRemoteKeys(ns, REAL_NAME, s.name).db, { username: s.name, password: secretValue() });
        // The keys the GlanceBackend controller reads (glancebackend_types.go S3AccessKeyIDKey, S3SecretAccessKeyKey).
        await userSecret(ctx, ns, 'glance-s3-credentials', { 'access-key-id': 'e2e', 'secret-access-key': secretValue() });
        await createControlPlane(ctx, { metadata: { name: REAL_NAME, namespace: ns }, spec: structuredClone(SERVICES_SPEC) });
        const cp = await waitReady(ctx, ref, 420_000, (o) => condition(o, 'ServicesReady')?.status === 'True');
        check(JSON.stringify(cp.status.services?.map((s: Obj) => `${s.name}:${s.ready}:${s.release}`)) === JSON.stringify(['keystone', ...SERVICES.map((d) => d.name)].map((n) => `${n}:true:2025.2`)), `status.services ${JSON.stringify(cp.status.services)}`);
        const keystone = keystoneOf(ctx);
        const users = await keystone.users();
        const catalog = await keystone.services();
        const endpoints = await keystone.endpoints();
        check((await keystone.projects()).some((p) => p.name === 'service'), 'Keystone has no service project');
        const lines: string[] = [];
        for (const s of SERVICES) {
          const n = serviceChildNames(REAL_NAME, s.name);
          const user = users.find((u) => u.name === s.name);
          check(!!user, `Keystone has no user ${s.name}`);
          const roles = await keystone.roleAssignmentsOf(user!.id);
          check(roles.includes('service@service'), `${s.name}'s role assignments in Keystone: ${roles.join(', ')}`);
          const pw = (await ctx.kube.get({ apiVersion: 'v1', kind: 'Secret', namespace: ns, name: n.password }))?.data?.[SERVICE_PASSWORD_KEY];
          check(!!pw && (await keystone.acceptsPassword(s.name, unb64(pw), 'service')), `Keystone does not accept ${s.name}'s password from Secret ${n.password}`);
          const svcObj = await ctx.kube.get({ apiVersion: GVK.Service.apiVersion, kind: 'Service', namespace: ns, name: n.service });
          const row = catalog.find((c) => c.id === svcObj?.status?.id);
          check(row?.type === s.type && row?.name === s.name, `Keystone's catalog service ${svcObj?.status?.id}: ${JSON.stringify(row)}`);
          const want: string[] = [];
          for (const e of [n.regionEndpointOf('a', 'public'), n.regionEndpointOf('a', 'internal')]) {
            const obj = await ctx.kube.get({ apiVersion: GVK.Endpoint.apiVersion, kind: 'Endpoint', namespace: ns, name: e });
            want.push(`${obj?.spec?.resource?.interface} ${obj?.spec?.resource?.url}`);
          }
          const rows = endpoints.filter((e) => e.service_id === row!.id);
          const got = rows.map((e) => `${e.interface} ${e.url}`).sort();
          check(JSON.stringify(got) === JSON.stringify(want.sort()), `${s.type} endpoints in Keystone: ${got.join(', ')}; expected ${want.join(', ')}`);
          check(rows.every((e) => e.region_id === SERVICES_SPEC.region), `${s.type} endpoints in Keystone outside region ${SERVICES_SPEC.region}: ${rows.map((e) => `${e.interface} ${e.region_id ?? 'none'}`).join(', ')}`);
          lines.push(`user ${s.name} (service@service, password accepted), ${s.type} ${got.join(' + ')} in ${SERVICES_SPEC.region}`);
        }
        console.log(`    Keystone: ${lines.join('; ')}`);
        // Every real program on its own MariaDB account (the CR's name, seed 001 managed mode), made from the DB credential Secret.
        const cluster: string = cp.spec.infrastructure.database.clusterRef.name;
        const accounts = [names.keystone, ...SERVICES.map((d) => serviceChildNames(REAL_NAME, d.name).cr)].sort();
        const dbUsers = await ctx.mariadbs.users(ns, cluster);
        check(JSON.stringify(dbUsers) === JSON.stringify(accounts), `the users of MariaDB ${cluster}: ${JSON.stringify(dbUsers)}; expected ${JSON.stringify(accounts)}`);
        console.log(`    MariaDB ${cluster}: ${accounts.join(', ')}, each with its database; Keystone, Placement and Glance serve from them`);
        // The real Placement and Glance behind those rows, as a user reaches them.
        const user = await usersReachTheApis(ctx, ns, REAL_NAME, SERVICES_SPEC.region);

        // A service user's password rotated (CredentialRotation target serviceUserPassword): OpenBao
        // and Keystone hold the new one, Keystone refuses the old one, only the old Secret is deleted.
        {
          const { next, fresh, mark } = await rotateServicePassword(ctx, keystone, ns, REAL_NAME, placement);
          const old = serviceChildNames(REAL_NAME, placement.name).password;
          const gone = [...new Set(ctx.rec.since(mark, (e) => e.namespace === ns && e.terminating).map((e) => `${e.kind}/${e.name}`))];
          check(JSON.stringify(gone) === JSON.stringify([`Secret/${old}`]), `deleted during the password rotation: ${gone.join(', ')}`);
          console.log(`    password rotation: Secret ${next} in OpenBao and Keystone (accepted), the old password refused, Secret ${old} released, nothing else deleted, ${Math.round((Date.now() - mark) / 1000)} s`);
          await apiValidatesAfterRotation(ctx, ns, REAL_NAME, user, fresh, mark);
        }

        // Day 2: the release moves Keystone first, then the services.
        const startMints = mints(ctx);
        const mark = Date.now();
        const { phases } = await rollout(ctx, ref, '2026.1', (o) => o.status?.updatePhase === 'Idle' && o.status?.lastUpdate?.result === 'Complete' && condition(o, 'Ready')?.status === 'True', 420_000);
        console.log(`    phases: ${phases.join(' → ')}`);
        for (const p of ['UpdatingKeystone', 'UpdatingServices', 'Complete']) check(phases.includes(p), `never ${p}: ${phases.join(' → ')}`);
        check(phases.indexOf('UpdatingKeystone') < phases.indexOf('UpdatingServices'), `services before Keystone: ${phases.join(' → ')}`);
        for (const s of SERVICES) {
          const o = await ctx.kube.get({ apiVersion: s.kind.apiVersion, kind: s.kind.kind, namespace: ns, name: serviceChildNames(REAL_NAME, s.name).cr });
          check(o?.spec?.image?.tag === '2026.1' && o?.spec?.openStackRelease === '2026.1', `${s.kind.kind} at ${o?.spec?.image?.tag}/${o?.spec?.openStackRelease}`);
        }
        check(mints(ctx) === startMints, 'a mint during the upgrade');
        const gone = ctx.rec.since(mark, (e) => e.namespace === ns && e.terminating && e.kind !== 'ControlPlane');
        check(gone.length === 0, `deleted during the upgrade: ${[...new Set(gone.map((e) => `${e.kind}/${e.name}`))].join(', ')}`);
        const after = await servicesIn(keystone);
        check(after.users.length === 2 && after.services.length === 2 && after.endpoints.length === 4, `in Keystone after the upgrade: ${JSON.stringify(after)}`);

        // Deletion: the services' users, catalog rows and endpoints leave Keystone before its CR goes;
        // then a token's catalog has no row for them and their users cannot authenticate.
        const passwords: Record<string, string> = {};
        for (const s of SERVICES) {
          const o = await ctx.kube.get({ apiVersion: s.kind.apiVersion, kind: s.kind.kind, namespace: ns, name: serviceChildNames(REAL_NAME, s.name).cr });
          const raw = (await ctx.kube.get({ apiVersion: 'v1', kind: 'Secret', namespace: ns, name: o?.spec?.serviceUser?.secretRef?.name }))?.data?.[SERVICE_PASSWORD_KEY];
          check(raw !== undefined, `no password Secret of ${s.kind.kind} ${o?.metadata?.name}`);
          passwords[s.name] = unb64(raw);
        }
        const uid = cp.metadata.uid as string;
        await ctx.kube.delete(ref);
        const ksRef: Ref = { apiVersion: GVK.Keystone.apiVersion, kind: 'Keystone', namespace: ns, name: names.keystone };
        let forUsers: { catalog: string[]; authenticating: string[] } | undefined;
        const answer = await answerAsKeystoneGoes(ctx, ksRef, 'the ControlPlane and every child gone', async () => {
          const rows = await servicesIn(keystone);
          // Asked once the rows are gone (each password check costs Keystone a hash); nothing comes back.
          if (!forUsers && rows.users.length + rows.services.length + rows.endpoints.length === 0) forUsers = await servicesGoneForUsers(keystone, passwords);
          return { ...rows, projects: (await keystone.projects()).map((p) => p.name as string) };
        }, async () => !(await ctx.kube.get(ref)) && (await childrenOf(ctx, ns, uid)).length === 0, 420_000);
        const last: ServicesInKeystone | undefined = answer;
        const projects = answer?.projects ?? [];
        check(!!last, 'Keystone never answered during the teardown');
        check(last!.users.length + last!.services.length + last!.endpoints.length === 0, `still in Keystone when its CR went: ${JSON.stringify(last)}`);
        check(!!forUsers, 'Keystone stopped before a user could look at the catalog without the services');
        const inCatalog = forUsers!.catalog.filter((t) => SERVICES.some((s) => s.type === t));
        check(inCatalog.length === 0 && forUsers!.authenticating.length === 0, `after the teardown: catalog rows ${inCatalog.join(', ') || 'none'}, users authenticating ${forUsers!.authenticating.join(', ') || 'none'}`);
        console.log(`    Keystone as its CR went (K-ORC's objects all deleted before it): no service user, catalog service or endpoint of Placement or Glance; the service project ${projects.includes('service') ? 'kept (detached)' : 'gone'}`);
        console.log(`    a token's catalog then: ${forUsers!.catalog.join(', ') || 'empty'} (no placement, no image); placement and glance refused with their last passwords`);
        // The service CRs go before Keystone and the infrastructure (finalize.ts): their accounts are
        // dropped while the server answers. Keystone and MariaDB go by garbage collection in either
        // order: Keystone's account is dropped, or goes with the server (mariadb-operator's
        // SqlFinalizer drops nothing once the MariaDB is gone or going).
        const services = accounts.filter((u) => u !== names.keystone);
        const dropped = () => ctx.mariadbs.dropped(ns, cluster);
        await waitUntil(`every service's MariaDB user dropped from ${cluster}, Keystone's too or the server stopped`, async () => services.every((u) => dropped().includes(u)) && (dropped().includes(names.keystone) || ctx.mariadbs.stopped(ns, cluster)), 120_000, ctx);
        console.log(`    MariaDB ${cluster}: the users ${services.join(', ')} and their databases dropped before the server stopped with its CR; Keystone's ${dropped().includes(names.keystone) ? 'too' : 'went with the server (its CR went first)'}`);
      },
    },
  ];
}

