// The compute cloud against the real Keystone and K-ORC (issues 39, 53): Glance, Placement, Neutron,
// Cinder and Nova on a managed bus (the ControlPlane of hooks/' cloud run), with the real Glance,
// Placement, Cinder, Nova and Neutron per CR (e2e/openstack-apis.ts; Cinder with its scheduler and
// a volume service per CinderBackend, Nova with its conductor, scheduler and a fake-driver compute,
// Neutron with its periodic and OVN maintenance workers) on a real RabbitMQ node (e2e/rabbitmq.ts)
// and a real MariaDB, Neutron on the real OVN databases and northd behind the OVNCentral
// (e2e/ovn.ts, with a chassis for the compute host); stand-in operators for the bus's and the
// OVNCentral's status (src/sim/operators.ts) and the CRDs of test/support/compute-crds.ts; the
// service users, role assignments and catalog rows are K-ORC's, in Keystone's database. A user
// reaches the real Cinder through its catalog row, before and after its password rotation, makes a
// volume that goes available (real-apis.ts), boots a server on a port and attaches a volume
// (real-compute.ts), and boots another after Nova's password rotation. The scenario first holds
// the services back (the bus down, then no OVNCentral) and checks that no CR is created meanwhile
// and that the conditions say why.
import type { Obj } from '../../src/sim/cluster.js';
import { GVK } from '../../src/k8s/kinds.js';
import { SERVICE_PASSWORD_KEY, accountNames, childNames, rabbitmqName, serviceChildNames, serviceRemoteKeys } from '../../src/controlplane/names.js';
import { SERVICES, cinder, nova as novaFacts, hasReference } from '../../src/api/services/index.js';
import { stringAt } from '../../src/k8s/read.js';
import type { Ref } from '../kube.js';
import type { KeystoneApi } from '../keystone.js';
import { CLOUD } from '../../src/cli/hook-payloads.js';
import type { Ctx, Scenario } from './support.js';
import { unb64, secretValue, check, waitUntil, condition, cpRef, childrenOf, ensureNamespace, createControlPlane, userSecret, waitReady, REAL_CLOUD_NS, keystoneApiOf } from './support.js';
import { REAL_NAME, answerAsKeystoneGoes } from './real-keystone.js';
import { cinderValidatesAfterRotation, usersReachCinder, usersVolumeGoesAvailable } from './real-apis.js';
import { rotateServicePassword } from './service-password.js';
import { OPENSTACK_APIS } from '../openstack-api-descriptors.js';
import { usersServerBoots, usersSecondServerBoots } from './real-compute.js';
import { tempestJudgesTheCloud } from './real-tempest.js';

const ns = REAL_CLOUD_NS;

/** Every account of the cloud's services (its own and extra ones) with the roles it must hold in Keystone. */
function accounts(): { user: string; k8s: string; password: string; roles: readonly string[] }[] {
  return SERVICES.flatMap((d) => [
    { key: '', roles: d.roles },
    ...(d.extraAccounts ?? []).map((a) => ({ key: a.key, roles: a.roles })),
  ].map(({ key, roles }) => {
    const n = accountNames(REAL_NAME, d.name, key);
    return { user: n.osUser, k8s: n.user, password: n.password, roles };
  }));
}

/** The cloud's users, catalog services and endpoints Keystone holds (ids). */
async function cloudIn(keystone: KeystoneApi): Promise<{ users: string[]; services: string[]; endpoints: string[] }> {
  const users = new Set(accounts().map((a) => a.user));
  const types = new Set<string>(SERVICES.map((d) => d.serviceType));
  const services = (await keystone.services()).filter((s) => types.has(s.type)).map((s) => s.id as string);
  return {
    users: (await keystone.users()).filter((u) => users.has(u.name)).map((u) => u.id as string),
    services,
    endpoints: (await keystone.endpoints()).filter((e) => services.includes(e.service_id)).map((e) => e.id as string),
  };
}

export function realCloudScenarios(): Scenario[] {
  const ref = cpRef(ns, REAL_NAME);
  const names = childNames(REAL_NAME);
  const keystoneOf = (ctx: Ctx) => keystoneApiOf(ctx, ns, REAL_NAME);
  const crOf = (ctx: Ctx, d: (typeof SERVICES)[number]) => ctx.kube.get({ apiVersion: d.kind.apiVersion, kind: d.kind.kind, namespace: ns, name: serviceChildNames(REAL_NAME, d.name).cr });
  return [
    {
      id: 26,
      title: 'real Keystone and K-ORC: the compute cloud (Glance, Placement, Neutron on an OVNCentral, Cinder, Nova, a managed bus): no service CR while the bus or OVN is not Ready, and the conditions say why; converged, every service user with its roles and every catalog row in Keystone; a user lists volumes from the real Cinder API through its catalog row (401 without a token) and makes one that goes available through the real scheduler and volume service over the real RabbitMQ; a server booted from a Glance image on a Neutron port goes ACTIVE on the real Nova (port bound through the real OVN), a volume attached and detached, its Placement allocation gone after delete; a Cinder and a Nova password rotation, after which Cinder still validates tokens and Nova boots a second server; deletion removes them from Keystone before the Keystone CR goes',
      async run(ctx) {
        await ensureNamespace(ctx, ns);
        for (const d of SERVICES) for (const db of d.databases) await ctx.bao.put(serviceRemoteKeys(ns, REAL_NAME, d.name).dbOf(db.infix), { username: db.name, password: secretValue() });
        await userSecret(ctx, ns, 'glance-s3-credentials', { 'access-key-id': 'e2e', 'secret-access-key': secretValue() });
        const spec = structuredClone(CLOUD.spec);
        // The scheduler maps a new compute host into the cell every 10 s, not 300 (upstream's default): a test cloud's choice, through the Nova CR's extraConfig.
        spec.services.nova.extraConfig = { scheduler: { discover_hosts_in_cells_interval: '10' } };
        const ovnName = stringAt(spec.services.neutron, ...SERVICES.filter(hasReference)[0]!.reference.refPath)!;
        const ovnRef: Ref = { apiVersion: 'ovn.openstack.c5c3.io/v1alpha1', kind: 'OVNCentral', namespace: ns, name: ovnName };

        // 1. The bus down: InfrastructureReady names it, and no service CR is created.
        const bus = `RabbitmqCluster/${rabbitmqName(REAL_NAME)}`;
        ctx.ops.world.down.add(bus);
        await createControlPlane(ctx, { metadata: { name: REAL_NAME, namespace: ns }, spec });
        const held = await waitUntil('InfrastructureReady False waiting for the bus alone', async () => {
          const cp = await ctx.kube.get(ref);
          const infra = condition(cp, 'InfrastructureReady');
          return infra?.status === 'False' && infra.reason === 'WaitingForMessaging' && /RabbitmqCluster/.test(infra.message) ? cp : undefined;
        }, 180_000, ctx);
        for (const d of SERVICES) check(!(await crOf(ctx, d)), `${d.kind.kind} created while the bus is down`);
        console.log(`    bus down: InfrastructureReady=False/${condition(held, 'InfrastructureReady')?.reason} "${condition(held, 'InfrastructureReady')?.message}", no service CR`);
        ctx.ops.world.down.delete(bus);

        // 2. No OVNCentral yet: OVNReady and NeutronReady say so, no Neutron CR; the others go on.
        const waiting = await waitUntil('NeutronReady False waiting for OVN, Cinder and Nova Ready', async () => {
          const cp = await ctx.kube.get(ref);
          return condition(cp, 'NeutronReady')?.reason === 'WaitingForOVN' && condition(cp, 'CinderReady')?.status === 'True' && condition(cp, 'NovaReady')?.status === 'True' ? cp : undefined;
        }, 420_000, ctx);
        check(condition(waiting, 'OVNReady')?.reason === 'OVNCentralNotFound', `OVNReady ${JSON.stringify(condition(waiting, 'OVNReady'))}`);
        check(!(await crOf(ctx, SERVICES.find((d) => d.name === 'neutron')!)), 'a Neutron CR without its OVNCentral');
        console.log(`    no OVNCentral: OVNReady=False/OVNCentralNotFound "${condition(waiting, 'OVNReady')?.message}"; NeutronReady=False/WaitingForOVN; no Neutron CR; Cinder and Nova Ready`);
        await ctx.kube.create({ apiVersion: ovnRef.apiVersion, kind: ovnRef.kind, metadata: { name: ovnName, namespace: ns }, spec: { tls: { issuerRef: { name: 'e2e' } } } });

        // 3. Converged: every account with its roles and password, every catalog row.
        const cp = await waitReady(ctx, ref, 420_000, (o) => condition(o, 'ServicesReady')?.status === 'True');
        const want = ['keystone', ...SERVICES.map((d) => d.name)].map((n) => `${n}:true:2025.2`);
        check(JSON.stringify(cp.status.services?.map((s: Obj) => `${s.name}:${s.ready}:${s.release}`)) === JSON.stringify(want), `status.services ${JSON.stringify(cp.status.services)}`);
        const keystone = keystoneOf(ctx);
        const users = await keystone.users();
        const lines: string[] = [];
        for (const a of accounts()) {
          const user = users.find((u) => u.name === a.user);
          check(!!user, `Keystone has no user ${a.user}`);
          const roles = (await keystone.roleAssignmentsOf(user!.id)).sort();
          check(JSON.stringify(roles) === JSON.stringify(a.roles.map((r) => `${r}@service`).sort()), `${a.user}'s role assignments in Keystone: ${roles.join(', ')}; expected ${a.roles.join(', ')} on service`);
          const pw = (await ctx.kube.get({ apiVersion: 'v1', kind: 'Secret', namespace: ns, name: a.password }))?.data?.[SERVICE_PASSWORD_KEY];
          check(!!pw && (await keystone.acceptsPassword(a.user, unb64(pw), 'service')), `Keystone does not accept ${a.user}'s password from Secret ${a.password}`);
          lines.push(`${a.user} (${roles.join(' ')})`);
        }
        const catalog = await keystone.services();
        const endpoints = await keystone.endpoints();
        for (const d of SERVICES) {
          const n = serviceChildNames(REAL_NAME, d.name);
          const svcObj = await ctx.kube.get({ apiVersion: GVK.Service.apiVersion, kind: 'Service', namespace: ns, name: n.service });
          const row = catalog.find((c) => c.id === svcObj?.status?.id);
          check(row?.type === d.serviceType && row?.name === d.name, `Keystone's catalog service for ${d.name}: ${JSON.stringify(row)}`);
          const rows = endpoints.filter((e) => e.service_id === row!.id);
          const got = rows.map((e) => `${e.interface} ${e.url}`).sort();
          check(got.length === 2 && got.some((e) => e === `internal http://${n.cr}.${ns}.svc:${d.port}${d.path}`), `${d.serviceType} endpoints in Keystone: ${got.join(', ')}`);
          check(rows.every((e) => e.region_id === spec.region), `${d.serviceType} endpoints in Keystone outside region ${spec.region}: ${rows.map((e) => `${e.interface} ${e.region_id ?? 'none'}`).join(', ')}`);
          lines.push(`${d.serviceType} ${got.join(' + ')} in ${spec.region}`);
        }
        console.log(`    Keystone: ${lines.join('; ')}`);
        const nova = await crOf(ctx, SERVICES.find((d) => d.name === 'nova')!);
        check(nova?.spec?.apiDatabase?.database === 'nova_api' && nova?.spec?.database?.database === 'nova', `Nova's databases ${JSON.stringify([nova?.spec?.apiDatabase, nova?.spec?.database])}`);
        const neutron = await crOf(ctx, SERVICES.find((d) => d.name === 'neutron')!);
        check(neutron?.spec?.nova?.serviceUser?.username === 'neutron-nova', `Neutron's notifier ${JSON.stringify(neutron?.spec?.nova)}`);
        // Every service's database accounts on the real MariaDB, as its operator has them made (the descriptors' instance names).
        const cluster = nova!.spec.database.clusterRef.name as string;
        const serviceAccounts = SERVICES.flatMap((d) => OPENSTACK_APIS.find((a) => a.kind === d.kind.kind)?.databases.map((u) => u.instance(serviceChildNames(REAL_NAME, d.name).cr)) ?? []);
        const dbUsers = (await ctx.mariadbs.users(ns, cluster)) ?? [];
        check(serviceAccounts.every((u) => dbUsers.includes(u)), `MariaDB ${cluster}'s users ${dbUsers.join(', ')}; expected ${serviceAccounts.join(', ')}`);
        console.log(`    MariaDB ${cluster}: the services' accounts ${serviceAccounts.join(', ')}`);
        // The real Cinder behind its row, as a user reaches it.
        const user = await usersReachCinder(ctx, ns, REAL_NAME, spec.region);
        // The bus used: a volume scheduled and created over the RabbitMQ node behind the hooks' transport URL.
        const backends = (await ctx.kube.list(cinder.partKinds[0]!.apiVersion, cinder.partKinds[0]!.kind, ns)).filter((b) => b.spec?.cinderRef?.name === serviceChildNames(REAL_NAME, cinder.name).cr).map((b) => b.metadata.name as string);
        check(backends.length > 0 && ctx.rabbitmqs.serves(ns, rabbitmqName(REAL_NAME)), `CinderBackends ${backends.join(', ') || 'none'}; RabbitMQ ${rabbitmqName(REAL_NAME)} ${ctx.rabbitmqs.serves(ns, rabbitmqName(REAL_NAME)) ? 'serves' : 'does not serve'}`);
        await usersVolumeGoesAvailable(ctx, ns, REAL_NAME, user, backends);
        // A server booted on a Neutron port, a volume attached, Placement's allocation.
        const compute = await usersServerBoots(ctx, ns, REAL_NAME, user.cloud, ovnName);

        // 4. A new service's password rotated: OpenBao and Keystone hold the new one, the old is refused.
        {
          const { next, fresh, mark } = await rotateServicePassword(ctx, keystone, ns, REAL_NAME, cinder);
          console.log(`    Cinder's password rotated: Secret ${next} in OpenBao and Keystone (accepted), the old one refused`);
          await cinderValidatesAfterRotation(ctx, ns, REAL_NAME, user, fresh, mark);
        }

        // 5. Nova's password rotated: the restarted Nova reaches Placement, Neutron and Glance with it and boots a server.
        {
          const { next } = await rotateServicePassword(ctx, keystone, ns, REAL_NAME, novaFacts);
          console.log(`    Nova's password rotated: Secret ${next} in OpenBao and Keystone (accepted), the old one refused`);
          await usersSecondServerBoots(ctx, compute);
        }

        // 6. Tempest judges the cloud: the Job the hooks would emit to verify it, run as its pod would.
        await tempestJudgesTheCloud(ctx, ns, REAL_NAME, spec, compute);

        // 7. Deletion: every account, catalog row and endpoint leaves Keystone before its CR goes.
        const uid = cp.metadata.uid as string;
        await ctx.kube.delete(ref);
        const ksRef: Ref = { apiVersion: GVK.Keystone.apiVersion, kind: 'Keystone', namespace: ns, name: names.keystone };
        const last = await answerAsKeystoneGoes(ctx, ksRef, 'the ControlPlane and every child gone', async () => cloudIn(keystone), async () => !(await ctx.kube.get(ref)) && (await childrenOf(ctx, ns, uid)).length === 0, 420_000);
        check(!!last, 'Keystone never answered during the teardown');
        check(last!.users.length + last!.services.length + last!.endpoints.length === 0, `still in Keystone when its CR went: ${JSON.stringify(last)}`);
        check(!!(await ctx.kube.get(ovnRef)), 'the OVNCentral was deleted (it is not the ControlPlane\'s)');
        // The operators' finalizers drop their accounts once they see their CR go (the suite's next pass).
        const kept = () => serviceAccounts.filter((u) => !ctx.mariadbs.dropped(ns, cluster).includes(u));
        await waitUntil(`every service's database account dropped (left: ${kept().join(', ')})`, async () => kept().length === 0, 180_000, ctx);
        console.log(`    Keystone as its CR went (K-ORC's objects all deleted before it): none of the ${accounts().length} service users, ${SERVICES.length} catalog services or their endpoints; the ${serviceAccounts.length} database accounts dropped; the OVNCentral kept`);
        await ctx.kube.delete(ovnRef);
      },
    },
  ];
}
