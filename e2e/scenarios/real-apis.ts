// What a user of a cloud with Placement and Glance (scenario 21) or Cinder (scenario 26) sees
// (issue 40): the real APIs
// behind the catalog rows the hooks registered, reached as a user reaches them — the `openstack`
// client fed the clouds.yaml the ControlPlane publishes (its admin application credential, as
// materialised from OpenBao), the endpoints taken from the token's catalog, every request through
// the in-cluster URLs (the suite's forward proxy, which records what each API answered).
import { createHash, randomBytes } from 'node:crypto';
import { readFileSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Obj } from '../../src/sim/cluster.js';
import { placement, glance, cinder } from '../../src/api/services/index.js';
import { GVK } from '../../src/k8s/kinds.js';
import { serviceChildNames } from '../../src/controlplane/names.js';
import type { ProxiedAnswer } from '../forward-proxy.js';
import type { KeystoneApi } from '../keystone.js';
import type { Ctx } from './support.js';
import { check, cpRef, unb64, waitUntil, AssertionError } from './support.js';

const sha256 = (b: Buffer | string) => createHash('sha256').update(b).digest('hex');

/** The clouds.yaml the ControlPlane publishes (spec.korc.adminCredential.cloudCredentialsRef, materialised by ESO). */
export async function publishedCloud(ctx: Ctx, ns: string, cp: string): Promise<string> {
  const spec = (await ctx.kube.get(cpRef(ns, cp)))?.spec;
  const name = spec?.korc?.adminCredential?.cloudCredentialsRef?.secretName;
  const doc = (await ctx.kube.get({ apiVersion: 'v1', kind: 'Secret', namespace: ns, name }))?.data?.['clouds.yaml'];
  if (!doc) throw new AssertionError(`Secret ${ns}/${name} holds no clouds.yaml`);
  const text = unb64(doc);
  check(text.includes('v3applicationcredential'), `Secret ${ns}/${name}: not the application-credential cloud yet`);
  return text;
}

/** The published clouds.yaml and the catalog of a token it gets (`openstack catalog list`). */
async function publishedCatalog(ctx: Ctx, ns: string, cp: string): Promise<{ published: string; catalog: Obj[] }> {
  const published = await publishedCloud(ctx, ns, cp);
  return { published, catalog: (await ctx.openstack.json(published, ['catalog', 'list'])) as Obj[] };
}

/** The API of service `d`'s CR, once restarted after `since` with `password` (what it was started with, by its SHA-256). */
function restartedWith(ctx: Ctx, ns: string, cp: string, d: typeof placement | typeof cinder, password: string, since: number, timeoutMs: number): Promise<{ starts: number }> {
  const cr = serviceChildNames(cp, d.name).cr;
  return waitUntil(`the ${d.title} API of ${ns}/${cr} restarted with the new password`, async () => {
    const s = ctx.apis.servingOf(ns, cr);
    return s && s.startedAt > since && s.passwordSha === sha256(password) ? s : undefined;
  }, timeoutMs, ctx);
}

/** `host:port` of a URL, as the proxy records it. */
const hostOf = (url: string) => {
  const u = new URL(url);
  return `${u.hostname}:${u.port || '80'}`;
};
const answersLine = (as: ProxiedAnswer[]) => [...new Set(as.map((a) => `${a.method} ${a.path.replace(/[0-9a-f-]{36}/g, '{id}')} ${a.status}`))].join(', ');

/**
 * The internal endpoint of a service type in the token's catalog (`openstack catalog list`), which
 * must be in `region` (keystoneauth skips a row of another region, or of none, when the client names
 * region_name, as the published clouds.yaml does); and every row of every type the catalog lists is
 * in `region`, none without one.
 */
function catalogEndpoint(catalog: Obj[], type: string, region: string): string {
  const strays = catalog.flatMap((c) => ((c.Endpoints ?? []) as Obj[]).filter((e) => (e.region_id ?? e.region) !== region).map((e) => `${c.Type} ${e.interface} ${e.url} (region ${e.region_id ?? e.region ?? 'none'})`));
  check(strays.length === 0, `rows of the token's catalog outside region ${region}: ${strays.join('; ')}`);
  const endpoint = ((catalog.find((c) => c.Type === type)?.Endpoints ?? []) as Obj[]).find((e) => e.interface === 'internal');
  if (!endpoint?.url) throw new AssertionError(`the token's catalog has no internal ${type} endpoint in ${region}: ${JSON.stringify(catalog)}`);
  return endpoint.url as string;
}

/** The rows the hooks registered: each internal Endpoint CR's URL, the in-cluster Service URL, is the token's. */
async function rowsAreTheHooks(ctx: Ctx, ns: string, cp: string, rows: [typeof placement | typeof glance | typeof cinder, string][]): Promise<void> {
  for (const [d, url] of rows) {
    const n = serviceChildNames(cp, d.name);
    const name = n.regionEndpointOf('a', 'internal');
    const ep = await ctx.kube.get({ apiVersion: GVK.Endpoint.apiVersion, kind: 'Endpoint', namespace: ns, name });
    check(ep?.spec?.resource?.url === url && url === `http://${n.cr}.${ns}.svc:${d.port}${d.path}`, `the token's internal ${d.name} URL ${url}; Endpoint ${name} registers ${ep?.spec?.resource?.url}`);
    check(ep?.spec?.resource?.regionRef === n.regionOf('a'), `Endpoint ${name} names Region ${ep?.spec?.resource?.regionRef}, not ${n.regionOf('a')}`);
  }
}

export interface UserApis {
  cloud: string;
  placementUrl: string;
  imageUrl: string;
}

/**
 * As a user: the catalog of the token holds the placement and image rows at the in-cluster URLs;
 * `openstack resource provider create/list` gets 200 from the real Placement; `openstack image
 * create --file` makes an active image and `openstack image save` gives the same bytes back; a
 * request without a token, or with a bogus one, gets 401 from either API.
 */
export async function usersReachTheApis(ctx: Ctx, ns: string, cp: string, region: string): Promise<UserApis> {
  const t0 = Date.now();
  const { published, catalog } = await publishedCatalog(ctx, ns, cp);
  const placementUrl = catalogEndpoint(catalog, placement.serviceType, region);
  const imageUrl = catalogEndpoint(catalog, glance.serviceType, region);
  // The published clouds.yaml as written (region_name included) finds every row.
  const cloud = published;
  await rowsAreTheHooks(ctx, ns, cp, [[placement, placementUrl], [glance, imageUrl]]);

  const mark = Date.now();
  const name = `e2e-${randomBytes(4).toString('hex')}`;
  const rp = await ctx.openstack.json(cloud, ['resource', 'provider', 'create', name]);
  const listed = (await ctx.openstack.json(cloud, ['resource', 'provider', 'list'])) as Obj[];
  check(typeof rp.uuid === 'string' && listed.some((p) => p.uuid === rp.uuid && p.name === name), `resource provider ${name} not listed: ${JSON.stringify(listed)}`);
  const byPlacement = ctx.proxy.answered(mark, hostOf(placementUrl));
  for (const [method, path] of [['POST', '/resource_providers'], ['GET', '/resource_providers']]) {
    check(byPlacement.some((a) => a.method === method && a.path === path && a.status === 200), `Placement did not answer ${method} ${path} with 200: ${answersLine(byPlacement)}`);
  }

  const dir = join(ctx.h.paths.run, 'openstack-client');
  mkdirSync(dir, { recursive: true });
  const upload = join(dir, `${name}.raw`);
  const download = join(dir, `${name}.saved`);
  const bytes = randomBytes(1024 * 1024);
  writeFileSync(upload, bytes);
  const imageMark = Date.now();
  const image = await ctx.openstack.json(cloud, ['image', 'create', '--file', upload, '--disk-format', 'raw', '--container-format', 'bare', name]);
  check(image.status === 'active' && image.size === bytes.length, `image ${name}: status ${image.status}, size ${image.size}`);
  await ctx.openstack.run(cloud, ['image', 'save', '--file', download, image.id]);
  const back = readFileSync(download);
  check(sha256(back) === sha256(bytes), `image ${image.id} saved back ${back.length} bytes that differ from the ${bytes.length} uploaded`);
  rmSync(upload);
  rmSync(download);
  const byGlance = ctx.proxy.answered(imageMark, hostOf(imageUrl));
  check(byGlance.some((a) => a.method === 'PUT' && a.path === `/v2/images/${image.id}/file` && a.status === 204), `Glance did not take the upload: ${answersLine(byGlance)}`);
  check(byGlance.some((a) => a.method === 'GET' && a.path === `/v2/images/${image.id}/file` && a.status === 200), `Glance did not serve the download: ${answersLine(byGlance)}`);

  for (const url of [`${placementUrl}/resource_providers`, `${imageUrl}/v2/images`]) {
    for (const [what, headers] of [['no token', {}], ['a bogus token', { 'x-auth-token': `bogus-${randomBytes(8).toString('hex')}` }]] as const) {
      const { status } = await ctx.proxy.get(url, headers);
      check(status === 401, `GET ${url} with ${what}: HTTP ${status}, expected 401`);
    }
  }
  console.log(`    as a user (openstack with the published clouds.yaml as written, region_name ${region}): every catalog row in ${region}; placement ${placementUrl}, image ${imageUrl} (${Math.round((Date.now() - t0) / 1000)} s)`);
  console.log(`    placement: ${answersLine(byPlacement)}; resource provider ${rp.uuid} listed`);
  console.log(`    glance: ${answersLine(byGlance)}; image ${image.id} active, ${bytes.length} bytes saved back identical`);
  console.log('    GET /resource_providers and /v2/images without a token or with a bogus one: 401 from both');
  return { cloud, placementUrl, imageUrl };
}

/**
 * After the service password rotation: the API of `service`'s CR was restarted after `since` with
 * the password now in its Secret, and it validates a user's token (keystonemiddleware fetches its
 * own token with that password first).
 */
export async function apiValidatesAfterRotation(ctx: Ctx, ns: string, cp: string, user: UserApis, password: string, since: number): Promise<void> {
  const serving = await restartedWith(ctx, ns, cp, placement, password, since, 60_000);
  const mark = Date.now();
  await ctx.openstack.json(user.cloud, ['resource', 'provider', 'list']);
  const answered = ctx.proxy.answered(mark, hostOf(user.placementUrl));
  check(answered.some((a) => a.method === 'GET' && a.path === '/resource_providers' && a.status === 200), `after the rotation Placement answered: ${answersLine(answered)}`);
  console.log(`    placement restarted with the new password (start ${serving.starts}), then GET /resource_providers 200 for a user's token`);
}

export interface UserCinder {
  cloud: string;
  volumeUrl: string;
}

/**
 * As a user of the compute cloud: the token's catalog holds the block-storage row at the in-cluster
 * URL; with the user's token (`openstack token issue`) `GET {url}/{project_id}/volumes` gets 200
 * from the real Cinder, and `openstack volume list` (the user's client, the endpoint from the
 * catalog) lists through it; without a token, or with a bogus one, 401.
 */
export async function usersReachCinder(ctx: Ctx, ns: string, cp: string, region: string): Promise<UserCinder> {
  const t0 = Date.now();
  const { published, catalog } = await publishedCatalog(ctx, ns, cp);
  const volumeUrl = catalogEndpoint(catalog, cinder.serviceType, region);
  const cloud = published;
  await rowsAreTheHooks(ctx, ns, cp, [[cinder, volumeUrl]]);
  const listed = await volumesListed(ctx, cloud, volumeUrl);
  const url = listed.url;
  for (const [what, headers] of [['no token', {}], ['a bogus token', { 'x-auth-token': `bogus-${randomBytes(8).toString('hex')}` }]] as const) {
    const { status } = await ctx.proxy.get(url, headers);
    check(status === 401, `GET ${url} with ${what}: HTTP ${status}, expected 401`);
  }
  console.log(`    as a user (openstack with the published clouds.yaml as written, region_name ${region}): every catalog row in ${region}; block-storage ${volumeUrl} (${Math.round((Date.now() - t0) / 1000)} s)`);
  console.log(`    cinder: ${listed.answers}`);
  console.log(`    GET ${volumeUrl}/{project_id}/volumes without a token or with a bogus one: 401`);
  return { cloud, volumeUrl };
}

/** `GET {volumeUrl}/{project_id}/volumes` with the user's token, and `openstack volume list`: both 200 from Cinder; what it answered. */
async function volumesListed(ctx: Ctx, cloud: string, volumeUrl: string): Promise<{ url: string; answers: string }> {
  const token = await ctx.openstack.json(cloud, ['token', 'issue']);
  check(typeof token.id === 'string' && typeof token.project_id === 'string', `openstack token issue: no token or project (${Object.keys(token).join(', ')})`);
  const url = `${volumeUrl}/${token.project_id}/volumes`;
  const mark = Date.now();
  const { status, body } = await ctx.proxy.get(url, { 'x-auth-token': token.id as string });
  check(status === 200 && Array.isArray((JSON.parse(body) as Obj).volumes), `GET ${url} with the user's token: HTTP ${status} ${body.slice(0, 200)}`);
  const volumes = (await ctx.openstack.json(cloud, ['volume', 'list'])) as Obj[];
  check(Array.isArray(volumes), `openstack volume list: ${JSON.stringify(volumes)}`);
  const answered = ctx.proxy.answered(mark, hostOf(volumeUrl)).map((a) => ({ ...a, path: a.path.replace(token.project_id as string, '{project_id}') }));
  check(answered.filter((a) => a.status === 200 && /\/volumes(\/detail)?(\?|$)/.test(a.path)).length >= 2, `Cinder did not answer both listings with 200: ${answersLine(answered)}`);
  return { url, answers: `${answersLine(answered)}; ${volumes.length} volumes listed by openstack volume list` };
}

/**
 * As a user: a volume made through the catalog's block-storage row goes `available` — the real
 * cinder-api casts to the real cinder-scheduler, which picks the volume service `{cr}@{backend}`
 * and casts to it, both over the RabbitMQ node behind the transport URL the hooks built; the
 * volume service (FakeLoggingVolumeDriver: no storage) creates it in the database. Before that,
 * `openstack volume service list` shows the scheduler and every volume service up (their
 * heartbeats in the database) and the scheduler lists a pool for every backend (their capabilities
 * reached it over the bus). The volume is deleted after.
 */
export async function usersVolumeGoesAvailable(ctx: Ctx, ns: string, cp: string, user: UserCinder, backends: string[]): Promise<void> {
  const t0 = Date.now();
  const cr = serviceChildNames(cp, cinder.name).cr;
  const want = ['cinder-scheduler', ...backends.map((b) => `cinder-volume ${cr}@${b}`)];
  let services: Obj[] = [];
  await waitUntil(`Cinder's services up: ${want.join(', ')} (workers ${JSON.stringify(ctx.apis.workersOf(ns, cr))})`, async () => {
    services = (await ctx.openstack.json(user.cloud, ['volume', 'service', 'list'])) as unknown as Obj[];
    const up = services.filter((x) => x.State === 'up' && x.Status === 'enabled').map((x) => (x.Binary === 'cinder-scheduler' ? x.Binary : `${x.Binary} ${x.Host}`));
    return want.every((w) => up.includes(w));
  }, 240_000, ctx, 5_000);
  // Up is a heartbeat in the database; the scheduler places a volume only on a backend whose
  // capabilities reached it over the bus (the volume service's periodic report, up to a minute or
  // two after both start: a volume made before that fails with NoValidBackend, as on any new cloud).
  let pools: string[] = [];
  await waitUntil(`the scheduler's pools name every backend (${backends.map((b) => `${cr}@${b}`).join(', ')})`, async () => {
    pools = ((await ctx.openstack.json(user.cloud, ['volume', 'backend', 'pool', 'list'])) as unknown as Obj[]).map((p) => String(p.Name));
    return backends.every((b) => pools.some((p) => p.startsWith(`${cr}@${b}#`)));
  }, 240_000, ctx, 5_000);
  const created = await ctx.openstack.json(user.cloud, ['volume', 'create', '--size', '1', `e2e-${randomBytes(3).toString('hex')}`]);
  const id = created.id as string;
  check(typeof id === 'string', `openstack volume create: ${JSON.stringify(created)}`);
  let volume: Obj = created;
  await waitUntil(`volume ${id} available or in error`, async () => {
    volume = await ctx.openstack.json(user.cloud, ['volume', 'show', id]);
    return volume.status === 'available' || volume.status === 'error';
  }, 240_000, ctx, 3_000);
  check(volume.status === 'available', `volume ${id} went to ${String(volume.status)}: the scheduler or the volume service failed it (see their logs)`);
  const host = String(volume['os-vol-host-attr:host'] ?? '');
  check(backends.some((b) => host.startsWith(`${cr}@${b}`)), `volume ${id} on host ${host}, expected ${cr}@<one of ${backends.join(', ')}>`);
  await ctx.openstack.run(user.cloud, ['volume', 'delete', id]);
  await waitUntil(`volume ${id} deleted`, async () => !((await ctx.openstack.json(user.cloud, ['volume', 'list'])) as unknown as Obj[]).some((v) => v.ID === id), 120_000, ctx, 3_000);
  console.log(`    Cinder's services up: ${want.join(', ')} (openstack volume service list); the scheduler's pools ${pools.join(', ')} (openstack volume backend pool list)`);
  console.log(`    as a user: volume ${id} (1 GiB) available on ${host} after ${Math.round((Date.now() - t0) / 1000)} s — scheduled and created over the real RabbitMQ node behind the hooks' transport URL (FakeLoggingVolumeDriver: no storage), then deleted`);
}

/**
 * After Cinder's password rotation: the API of its CR was restarted after `since` with the
 * password now in its Secret, and it validates a user's token (keystonemiddleware fetches its own
 * token with that password first).
 */
export async function cinderValidatesAfterRotation(ctx: Ctx, ns: string, cp: string, user: UserCinder, password: string, since: number): Promise<void> {
  const serving = await restartedWith(ctx, ns, cp, cinder, password, since, 120_000);
  const listed = await volumesListed(ctx, user.cloud, user.volumeUrl);
  console.log(`    cinder restarted with the new password (start ${serving.starts}), then for a user's token: ${listed.answers}`);
}

/**
 * What a user of the cloud finds once the services' K-ORC objects are gone (the teardown, while
 * Keystone still answers): the service types of a token's catalog, and which of the services'
 * users still authenticate with their last password.
 */
export async function servicesGoneForUsers(keystone: KeystoneApi, passwords: Record<string, string>): Promise<{ catalog: string[]; authenticating: string[] }> {
  const authenticating: string[] = [];
  for (const [user, password] of Object.entries(passwords)) if (await keystone.acceptsPassword(user, password, 'service')) authenticating.push(user);
  return { catalog: await keystone.catalogTypes(), authenticating };
}
