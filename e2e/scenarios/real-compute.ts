// What a user of the compute cloud sees (issue 53): the real Nova (api, conductor, scheduler and a
// fake-driver compute), Neutron on the real OVN and Cinder behind the catalog rows the hooks
// registered, reached with the `openstack` client and the clouds.yaml the ControlPlane publishes. A
// network and subnet, a server from a Glance image on a Neutron port (ACTIVE; the port ACTIVE and
// bound to the compute host through its OVN chassis), a volume attached (in-use) and detached, the
// server's allocation in Placement while it lives and none after it is deleted.
import { randomBytes } from 'node:crypto';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Obj } from '../../src/sim/cluster.js';
import { nova } from '../../src/api/services/index.js';
import { serviceChildNames } from '../../src/controlplane/names.js';
import { novaComputeHost } from '../openstack-api-descriptors.js';
import type { Ctx } from './support.js';
import { check, waitUntil, AssertionError } from './support.js';

/** What the boot left for the next one (the network, image and flavor are reused). */
export interface UserCompute {
  cloud: string;
  network: string;
  image: string;
  flavor: string;
  host: string;
  ns: string;
  /** The Nova CR. */
  nova: string;
}

const short = () => randomBytes(3).toString('hex');

/** `openstack server show` until ACTIVE (or ERROR, which fails with the server's fault). */
async function serverActive(ctx: Ctx, cloud: string, id: string): Promise<Obj> {
  let server: Obj = {};
  await waitUntil(`server ${id} ACTIVE or ERROR`, async () => {
    server = await ctx.openstack.json(cloud, ['server', 'show', id]);
    return server.status === 'ACTIVE' || server.status === 'ERROR';
  }, 240_000, ctx, 3_000);
  if (server.status !== 'ACTIVE') throw new AssertionError(`server ${id} went ${server.status}: ${JSON.stringify(server.fault ?? {})}`);
  return server;
}

async function volumeStatus(ctx: Ctx, cloud: string, id: string, want: string): Promise<Obj> {
  let volume: Obj = {};
  await waitUntil(`volume ${id} ${want} (or error)`, async () => {
    volume = await ctx.openstack.json(cloud, ['volume', 'show', id]);
    return volume.status === want || String(volume.status).startsWith('error');
  }, 240_000, ctx, 3_000);
  if (volume.status !== want) throw new AssertionError(`volume ${id} went ${volume.status}, expected ${want}`);
  return volume;
}

/** The server's allocations in Placement (`openstack resource provider allocation show`), by resource provider. */
async function allocations(ctx: Ctx, cloud: string, server: string): Promise<Obj[]> {
  return (await ctx.openstack.json(cloud, ['resource', 'provider', 'allocation', 'show', server])) as unknown as Obj[];
}

/**
 * As a user: Nova's compute service up on the suite's compute host and its hypervisor in the cell
 * (the scheduler discovered it); a network, subnet and port; a server booted from a Glance image on
 * that port goes ACTIVE on the compute host, the port ACTIVE and bound there (its OVN Port_Binding
 * claimed by the host's chassis); Placement holds the server's allocation on the host; a volume
 * attached goes in-use and back to available when detached; the server deleted, its allocation gone.
 */
export async function usersServerBoots(ctx: Ctx, ns: string, cp: string, cloud: string, ovnCentral: string): Promise<UserCompute> {
  const t0 = Date.now();
  const cr = (await ctx.kube.get({ apiVersion: nova.kind.apiVersion, kind: nova.kind.kind, namespace: ns, name: serviceChildNames(cp, nova.name).cr }))!;
  const host = novaComputeHost(cr);
  const tag = short();
  await waitUntil(`nova-compute up on ${host} and its hypervisor listed (workers ${JSON.stringify(ctx.apis.workersOf(ns, cr.metadata.name))})`, async () => {
    const services = (await ctx.openstack.json(cloud, ['compute', 'service', 'list'])) as unknown as Obj[];
    const up = services.some((s) => s.Binary === 'nova-compute' && s.Host === host && s.State === 'up');
    if (!up) return false;
    const hypervisors = (await ctx.openstack.json(cloud, ['hypervisor', 'list'])) as unknown as Obj[];
    return hypervisors.some((h) => h['Hypervisor Hostname'] === host);
  }, 300_000, ctx, 5_000);
  const services = ((await ctx.openstack.json(cloud, ['compute', 'service', 'list'])) as unknown as Obj[]).map((s) => `${s.Binary}@${s.Host} ${s.State}`);
  const agents = ((await ctx.openstack.json(cloud, ['network', 'agent', 'list'])) as unknown as Obj[]).map((a) => `${a['Agent Type']} ${a.Host} ${a.Alive === true || a.Alive === ':-)' ? 'alive' : `alive=${a.Alive}`}`);
  check(agents.some((a) => a.startsWith('OVN Controller agent') && a.includes(host) && a.endsWith('alive')), `Neutron's agents: ${agents.join(', ')}; expected the OVN controller of ${host} alive`);
  console.log(`    nova: ${services.join(', ')}; hypervisor ${host} in the cell; neutron agents: ${agents.join(', ')}`);

  // Network, subnet, port; an image; a flavor.
  const network = await ctx.openstack.json(cloud, ['network', 'create', `e2e-net-${tag}`]);
  const subnet = await ctx.openstack.json(cloud, ['subnet', 'create', '--network', network.id as string, '--subnet-range', '10.23.0.0/24', `e2e-subnet-${tag}`]);
  const port = await ctx.openstack.json(cloud, ['port', 'create', '--network', network.id as string, `e2e-port-${tag}`]);
  const nb = await ctx.ovns.ctl(ns, ovnCentral, 'nb', ['--format=csv', '--columns=name', 'list', 'Logical_Switch_Port']);
  check(nb.includes(port.id as string), `OVN's northbound database has no Logical_Switch_Port for port ${port.id}: ${nb}`);
  const dir = join(ctx.h.paths.run, 'openstack-client');
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `image-${tag}.raw`);
  writeFileSync(file, randomBytes(1024 * 1024));
  const image = await ctx.openstack.json(cloud, ['image', 'create', '--file', file, '--disk-format', 'raw', '--container-format', 'bare', `e2e-image-${tag}`]);
  rmSync(file);
  check(image.status === 'active', `image ${image.id}: ${image.status}`);
  const flavor = await ctx.openstack.json(cloud, ['flavor', 'create', '--vcpus', '1', '--ram', '128', '--disk', '1', `e2e-flavor-${tag}`]);
  console.log(`    neutron: network ${network.id}, subnet ${subnet.cidr}, port ${port.id} (a Logical_Switch_Port in OVN's northbound database); glance: image ${image.id} active; flavor ${flavor.name}`);

  // The server on the port.
  const bootMark = Date.now();
  const novaHost = `${cr.metadata.name}.${ns}.svc:${nova.port}`;
  const created = await ctx.openstack.json(cloud, ['server', 'create', '--flavor', flavor.id as string, '--image', image.id as string, '--port', port.id as string, `e2e-server-${tag}`]);
  const server = await serverActive(ctx, cloud, created.id as string);
  const serverHost = server['OS-EXT-SRV-ATTR:host'] ?? server.host;
  check(serverHost === host, `server ${server.id} on host ${serverHost}, expected ${host}`);
  let bound: Obj = {};
  await waitUntil(`port ${port.id} ACTIVE and bound to ${host}`, async () => {
    bound = await ctx.openstack.json(cloud, ['port', 'show', port.id as string]);
    return bound.status === 'ACTIVE' && bound.binding_host_id === host;
  }, 120_000, ctx, 3_000);
  check(bound.device_id === server.id && bound.binding_vif_type !== 'binding_failed', `port ${port.id}: device ${bound.device_id}, vif ${bound.binding_vif_type}`);
  // Neutron told Nova the port is up, with the notifier account the hooks gave it (spec.nova).
  await waitUntil(`Neutron's network-vif-plugged event answered by Nova (os-server-external-events through ${novaHost})`, async () => ctx.proxy.answered(bootMark, novaHost).some((a) => a.method === 'POST' && a.path.endsWith('/os-server-external-events') && a.status === 200), 90_000, ctx, 2_000);
  const pb = await ctx.ovns.ctl(ns, ovnCentral, 'sb', ['--bare', '--columns=chassis,up', 'find', 'Port_Binding', `logical_port=${port.id}`]);
  const allocated = await allocations(ctx, cloud, server.id as string);
  check(allocated.length === 1 && /"VCPU":\s*1\b/.test(JSON.stringify(allocated[0]!.resources)), `Placement's allocations of server ${server.id}: ${JSON.stringify(allocated)}`);
  console.log(`    server ${server.id} ACTIVE on ${serverHost} ${Math.round((Date.now() - t0) / 1000)} s in; port ACTIVE, bound to ${bound.binding_host_id} (vif ${bound.binding_vif_type}; OVN Port_Binding ${pb.trim().replace(/\s+/g, ' ')}; Neutron's event to Nova answered 200); Placement: ${JSON.stringify(allocated.map((a) => a.resources))} on ${allocated[0]!.resource_provider}`);

  // A volume attached and detached.
  const volume = await ctx.openstack.json(cloud, ['volume', 'create', '--size', '1', `e2e-vol-${tag}`]);
  await volumeStatus(ctx, cloud, volume.id as string, 'available');
  await ctx.openstack.run(cloud, ['server', 'add', 'volume', server.id as string, volume.id as string]);
  const attached = await volumeStatus(ctx, cloud, volume.id as string, 'in-use');
  const attachments = (attached.attachments ?? []) as Obj[];
  check(attachments.some((a) => a.server_id === server.id), `volume ${volume.id} attachments ${JSON.stringify(attachments)}`);
  await ctx.openstack.run(cloud, ['server', 'remove', 'volume', server.id as string, volume.id as string]);
  await volumeStatus(ctx, cloud, volume.id as string, 'available');
  await ctx.openstack.run(cloud, ['volume', 'delete', volume.id as string]);
  console.log(`    volume ${volume.id} attached to the server (in-use, ${attachments[0]?.device ?? 'no device'}), detached (available), deleted`);

  // Deleted: its allocation gone, the port unbound.
  await ctx.openstack.run(cloud, ['server', 'delete', '--wait', server.id as string]);
  await waitUntil(`server ${server.id}'s allocations gone from Placement`, async () => (await allocations(ctx, cloud, server.id as string)).length === 0, 120_000, ctx, 3_000);
  await ctx.openstack.run(cloud, ['port', 'delete', port.id as string]);
  console.log(`    server deleted: no allocation in Placement; port deleted (${Math.round((Date.now() - t0) / 1000)} s in all)`);
  return { cloud, network: network.id as string, image: image.id as string, flavor: flavor.id as string, host, ns, nova: cr.metadata.name };
}

/** After Nova's password rotation: the restarted Nova still schedules (Placement with the new password) and boots a server on the network. */
export async function usersSecondServerBoots(ctx: Ctx, user: UserCompute): Promise<void> {
  const t0 = Date.now();
  // Nova is Ready once its new API answers; its conductor, scheduler and compute restart after it
  // (a boot while they stop fails, as one during a rollout that replaces them all would).
  await waitUntil(`Nova's conductor, scheduler and compute restarted and up (workers ${JSON.stringify(ctx.apis.workersOf(user.ns, user.nova))})`, async () => {
    if (!ctx.apis.workersCurrent(user.ns, user.nova)) return false;
    const services = (await ctx.openstack.json(user.cloud, ['compute', 'service', 'list'])) as unknown as Obj[];
    return ['nova-conductor', 'nova-scheduler', 'nova-compute'].every((b) => services.some((x) => x.Binary === b && x.State === 'up'));
  }, 240_000, ctx, 5_000);
  const created = await ctx.openstack.json(user.cloud, ['server', 'create', '--flavor', user.flavor, '--image', user.image, '--network', user.network, `e2e-server-${short()}`]);
  const server = await serverActive(ctx, user.cloud, created.id as string);
  const allocated = await allocations(ctx, user.cloud, server.id as string);
  check(allocated.length === 1, `Placement's allocations of server ${server.id}: ${JSON.stringify(allocated)}`);
  await ctx.openstack.run(user.cloud, ['server', 'delete', '--wait', server.id as string]);
  console.log(`    after the rotation: server ${server.id} ACTIVE on ${server['OS-EXT-SRV-ATTR:host'] ?? user.host} (${Math.round((Date.now() - t0) / 1000)} s), its allocation in Placement, deleted`);
}
