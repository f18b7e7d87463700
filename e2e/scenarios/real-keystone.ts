// The real OpenStack side (issue 31): in REAL_OPENSTACK_NS the K-ORC controller manager and a real
// Keystone (per Keystone CR) do what the stand-ins model elsewhere; the checks ask Keystone itself.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import type { Obj } from '../../src/sim/cluster.js';
import { GVK } from '../../src/k8s/kinds.js';
import { childNames, remoteKeys } from '../../src/controlplane/names.js';
import type { Ref } from '../kube.js';
import type { Event } from '../recorder.js';
import type { KeystoneApi } from '../keystone.js';
import type { Ctx, Scenario } from './support.js';
import { sleep, unb64, secretValue, AssertionError, check, waitUntil, condition, cpRef, childrenOf, korcKinds, ensureNamespace, createControlPlane, waitReady, newCredentialReachesKorc, forceRefresh, REAL_OPENSTACK_NS, REAL_OPENSTACK_DOWN_NS } from './support.js';

export const REAL_NAME = 'keystone';
/**
 * Access rules name a K-ORC Service object of the namespace (seed 000 projectAccessRules: `service`
 * becomes the rule's serviceRef; K-ORC resolves it to that object's service type): the identity
 * service, imported under the name `identity`. What K-ORC itself calls on Keystone is identity API;
 * each rule on a path of its own (Metacontroller merges a list of objects with paths by path).
 */
const IDENTITY_RULES = [
  ['GET', '/v3/**'],
  ['POST', '/v3/services'],
  ['POST', '/v3/endpoints'],
  ['PATCH', '/v3/services/*'],
  ['DELETE', '/v3/endpoints/*'],
].map(([method, path]) => ({ service: 'identity', method: method!, path: path! }));
const identityImport = (ns: string) => ({
  apiVersion: GVK.Service.apiVersion,
  kind: 'Service',
  metadata: { name: 'identity', namespace: ns },
  spec: { cloudCredentialsRef: { cloudName: 'admin', secretName: childNames(REAL_NAME).adminPasswordCloud }, managementPolicy: 'unmanaged', import: { filter: { type: 'identity' } } },
});

/**
 * What Keystone answers as its CR `ksRef` goes: `read` runs once, when the suite's Keystone runner
 * sees the CR gone or its MariaDB going, before that Keystone stops (Keystones.beforeGone; a poll
 * while the CR lives could keep an answer from before the last revocation, when the hooks release
 * Keystone within one poll of it). Then `done` must hold, and the order is checked on the API
 * server's revisions: every K-ORC object of the CR's ControlPlane was deleted before the Keystone CR
 * began to go. K-ORC removes its finalizer only once the resource is gone from Keystone, or left
 * there on detach (k-orc c22784ca, internal/controllers/generic/reconciler/resource_actions.go), so
 * the read's answer held before the CR went. Undefined when the read failed.
 */
export async function answerAsKeystoneGoes<T>(ctx: Ctx, ksRef: Ref, what: string, read: () => Promise<T>, done: () => Promise<boolean>, timeoutMs: number): Promise<T | undefined> {
  let last: T | undefined;
  let ran = false;
  ctx.keystones.beforeGone(ksRef.namespace!, ksRef.name, async () => {
    try {
      last = await read();
    } finally {
      ran = true;
    }
  });
  await waitUntil(`${what}, and Keystone read as its CR went`, async () => ran && (await done()), timeoutMs, ctx, 250);
  await korcGoneBeforeKeystone(ctx, ksRef);
  return last;
}

/** Every K-ORC object of the ControlPlane that owned Keystone CR `ksRef` was deleted at a lower revision than the CR's first terminating event. */
async function korcGoneBeforeKeystone(ctx: Ctx, ksRef: Ref): Promise<void> {
  const kinds = new Set(korcKinds.map((k) => k.kind));
  let going: Event[] = [];
  let korc = new Map<string, Event[]>();
  // The recorder's watch events arrive on their own: wait until it saw the CR go and every K-ORC object deleted.
  await waitUntil(`the recorder saw Keystone ${ksRef.name} go and every K-ORC object of its ControlPlane deleted`, async () => {
    const ks = ctx.rec.events.filter((e) => e.kind === 'Keystone' && e.namespace === ksRef.namespace && e.name === ksRef.name);
    const uid = ks.filter((e) => e.type === 'DELETED').at(-1)?.uid;
    going = ks.filter((e) => e.uid === uid && e.terminating);
    const owner = going[0]?.owner;
    korc = new Map();
    for (const e of ctx.rec.events) if (owner && e.owner === owner && kinds.has(e.kind)) korc.set(e.uid, [...(korc.get(e.uid) ?? []), e]);
    return going.length > 0 && [...korc.values()].every((es) => es.some((e) => e.type === 'DELETED'));
  }, 30_000, ctx, 250);
  const firstGoing = Math.min(...going.map((e) => e.rv));
  const late = [...korc.values()].map((es) => es.find((e) => e.type === 'DELETED')!).filter((e) => e.rv > firstGoing);
  check(late.length === 0, `the Keystone CR began to go (revision ${firstGoing}) before K-ORC's ${late.map((e) => `${e.kind}/${e.name} (deleted at ${e.rv})`).join(', ')}`);
}

/** The admin's application credentials, the catalog services and the endpoints Keystone holds (ids). */
async function identityIn(keystone: KeystoneApi): Promise<{ acs: string[]; services: string[]; endpoints: string[] }> {
  return { acs: (await keystone.applicationCredentials()).map((a) => a.id), services: (await keystone.services()).map((s) => s.id), endpoints: (await keystone.endpoints()).map((e) => e.id) };
}

async function realKeystone(ctx: Ctx): Promise<KeystoneApi> {
  const ks = childNames(REAL_NAME).keystone;
  const api = ctx.keystones.api(REAL_OPENSTACK_NS, ks);
  if (!api) throw new AssertionError(`Keystone ${REAL_OPENSTACK_NS}/${ks} does not serve`);
  return api;
}

/** Waits until Keystone no longer holds `previous`, then checks that `current` is the admin's only credential. */
async function onlyCredentialIn(ctx: Ctx, previous: string, current: string): Promise<KeystoneApi> {
  const keystone = await realKeystone(ctx);
  const ids = await waitUntil('the previous credential gone from Keystone', async () => {
    const acs = (await keystone.applicationCredentials()).map((a) => a.id as string);
    return acs.includes(previous) ? undefined : acs;
  }, 120_000, ctx);
  check(ids.length === 1 && ids[0] === current, `Keystone holds ${JSON.stringify(ids)}, expected only ${current}`);
  return keystone;
}

/** The K-ORC clouds.yaml Secret's application credential (id, secret). */
export async function korcCredential(ctx: Ctx, ns: string): Promise<{ id: string; secret: string } | undefined> {
  const doc = (await ctx.kube.get({ apiVersion: 'v1', kind: 'Secret', namespace: ns, name: 'k-orc-clouds-yaml' }))?.data?.['clouds.yaml'];
  if (!doc) return undefined;
  const auth = (Object.values((parse(unb64(doc)) as Obj)?.clouds ?? {})[0] as Obj | undefined)?.auth;
  return auth?.application_credential_id ? { id: auth.application_credential_id, secret: auth.application_credential_secret } : undefined;
}

export function realOpenStackScenarios(shared: string): Scenario[] {
  const ns = REAL_OPENSTACK_NS;
  const ref = () => cpRef(ns, REAL_NAME);
  return [
    {
      id: 16,
      title: 'real Keystone and K-ORC: fresh ControlPlane mints exactly one restricted credential, catalog registered, Ready',
      async run(ctx) {
        const example = parse(readFileSync(join(shared, 'examples', 'controlplane-full-managed.yaml'), 'utf8')) as Obj;
        const spec = structuredClone(example.spec) as Obj;
        spec.korc = { ...(spec.korc ?? {}), adminCredential: { ...(spec.korc?.adminCredential ?? {}), applicationCredential: { ...(spec.korc?.adminCredential?.applicationCredential ?? {}), restricted: true } } };
        await createControlPlane(ctx, { metadata: { name: REAL_NAME, namespace: ns }, spec });
        await newCredentialReachesKorc(ctx, ns, REAL_NAME, undefined, 300_000);
        const cp = await waitReady(ctx, ref(), 180_000, (o) => !!o.status?.adminApplicationCredential?.id);
        const keystone = await realKeystone(ctx);
        const acs = await keystone.applicationCredentials();
        check(acs.length === 1, `Keystone holds ${acs.length} application credentials for admin, expected 1: ${acs.map((a) => a.name).join(', ')}`);
        const ac = acs[0]!;
        check(ac.id === cp.status.adminApplicationCredential.id, `Keystone's credential ${ac.id} is not status.adminApplicationCredential.id ${cp.status.adminApplicationCredential.id}`);
        check(ac.unrestricted === false, `the credential is unrestricted in Keystone`);
        const cred = await korcCredential(ctx, ns);
        check(cred?.id === ac.id && (await keystone.acceptsApplicationCredential(cred!.id, cred!.secret)), 'Keystone does not accept the credential in k-orc-clouds-yaml');
        const service = await ctx.kube.get({ apiVersion: GVK.Service.apiVersion, kind: 'Service', namespace: ns, name: childNames(REAL_NAME).identityService });
        const endpoint = await ctx.kube.get({ apiVersion: GVK.Endpoint.apiVersion, kind: 'Endpoint', namespace: ns, name: childNames(REAL_NAME).identityRegionEndpoint });
        const services = await keystone.services();
        const endpoints = await keystone.endpoints();
        check(services.some((s) => s.id === service?.status?.id && s.type === 'identity'), `Keystone has no identity service ${service?.status?.id}`);
        const ep = endpoints.find((e) => e.id === endpoint?.status?.id);
        check(ep?.url === endpoint?.spec?.resource?.url && ep?.interface === 'public', `Keystone's endpoint ${endpoint?.status?.id}: ${JSON.stringify(ep)}`);
        const region = cp.spec.region ?? 'RegionOne';
        check(ep?.region_id === region, `Keystone's identity endpoint ${ep?.id} is in region ${ep?.region_id ?? 'none'}, not ${region} (a client naming region_name would not find it)`);
        console.log(`    Keystone: 1 application credential ${ac.id} (restricted), ${services.filter((s) => s.type === 'identity').length} identity service(s), endpoint ${ep?.url} in region ${ep?.region_id}`);
        const cluster: string = cp.spec.infrastructure.database.clusterRef.name;
        const dbUsers = await ctx.mariadbs.users(ns, cluster);
        check(JSON.stringify(dbUsers) === JSON.stringify([childNames(REAL_NAME).keystone]), `the users of MariaDB ${cluster}: ${JSON.stringify(dbUsers)}; expected only Keystone's, ${childNames(REAL_NAME).keystone} (seed 001: the user named as the Keystone CR)`);
        console.log(`    MariaDB ${cluster}: Keystone's database ${cp.spec.infrastructure.database.database} and its user ${dbUsers?.join(', ')}, with the password our ExternalSecret materialised from OpenBao (Keystone serves from it)`);
      },
    },
    {
      id: 17,
      title: 'real Keystone and K-ORC: admin password rotated: exactly one new credential, the previous one gone from Keystone, K-ORC authenticates with the new one',
      needs: [16],
      async run(ctx) {
        const before = await ctx.kube.get(ref());
        const startId: string = before!.status.adminApplicationCredential.id;
        const password = secretValue();
        await ctx.bao.put(remoteKeys(ns, REAL_NAME).adminPassword, { password });
        await forceRefresh(ctx, ns, childNames(REAL_NAME).adminPassword);
        const { id } = await newCredentialReachesKorc(ctx, ns, REAL_NAME, startId, 300_000);
        await waitReady(ctx, ref(), 180_000, (o) => o.status?.adminApplicationCredential?.id === id);
        const keystone = await onlyCredentialIn(ctx, startId, id);
        const cred = await korcCredential(ctx, ns);
        check(cred?.id === id && (await keystone.acceptsApplicationCredential(cred!.id, cred!.secret)), 'Keystone does not accept the new credential in k-orc-clouds-yaml');
        console.log(`    Keystone: ${startId} revoked, ${id} the only credential, accepted`);
      },
    },
    {
      id: 19,
      title: 'real Keystone and K-ORC: CredentialRotation reMint: exactly one new credential, the previous one gone from Keystone, RotationComplete',
      needs: [16],
      async run(ctx) {
        const startId: string = (await ctx.kube.get(ref()))!.status.adminApplicationCredential.id;
        const example = parse(readFileSync(join(shared, 'examples', 'credentialrotation-remint.yaml'), 'utf8')) as Obj;
        const crRef: Ref = { apiVersion: GVK.CredentialRotation.apiVersion, kind: 'CredentialRotation', namespace: ns, name: example.metadata?.name ?? 'rotate-admin' };
        await ctx.kube.create({ apiVersion: crRef.apiVersion, kind: crRef.kind, metadata: { name: crRef.name, namespace: ns }, spec: example.spec });
        const { id } = await newCredentialReachesKorc(ctx, ns, REAL_NAME, startId, 300_000);
        await waitUntil('CredentialRotation RotationComplete=True', async () => condition(await ctx.kube.get(crRef), 'RotationComplete')?.status === 'True', 180_000, ctx);
        await waitReady(ctx, ref(), 120_000, (o) => o.status?.adminApplicationCredential?.id === id);
        await onlyCredentialIn(ctx, startId, id);
        console.log(`    Keystone: ${startId} revoked, ${id} the only credential`);
      },
    },
    {
      id: 18,
      title: 'real Keystone and K-ORC: deletion removes the credential, the endpoint and the service from Keystone before the Keystone CR goes',
      needs: [16],
      async run(ctx) {
        const names = childNames(REAL_NAME);
        const keystone = await realKeystone(ctx);
        const ids = {
          ac: (await ctx.kube.get(ref()))!.status.adminApplicationCredential.id as string,
          service: (await ctx.kube.get({ apiVersion: GVK.Service.apiVersion, kind: 'Service', namespace: ns, name: names.identityService }))?.status?.id as string,
          endpoint: (await ctx.kube.get({ apiVersion: GVK.Endpoint.apiVersion, kind: 'Endpoint', namespace: ns, name: names.identityRegionEndpoint }))?.status?.id as string,
        };
        const cluster: string = (await ctx.kube.get(ref()))!.spec.infrastructure.database.clusterRef.name;
        await ctx.kube.delete(ref());
        // Keystone read as its CR goes (every K-ORC object deleted before it, in revision order): it must lack all three.
        const ksRef: Ref = { apiVersion: GVK.Keystone.apiVersion, kind: 'Keystone', namespace: ns, name: names.keystone };
        const last = await answerAsKeystoneGoes(ctx, ksRef, 'the ControlPlane and its Keystone CR gone', () => identityIn(keystone), async () => !(await ctx.kube.get(ref())), 300_000);
        check(!!last, 'Keystone never answered during the teardown');
        const left = [last!.acs.includes(ids.ac) && `application credential ${ids.ac}`, last!.services.includes(ids.service) && `service ${ids.service}`, last!.endpoints.includes(ids.endpoint) && `endpoint ${ids.endpoint}`].filter(Boolean);
        check(left.length === 0, `still in Keystone when its CR went: ${left.join(', ')}`);
        console.log(`    Keystone as its CR went (K-ORC's objects all deleted before it): credential, service and endpoint gone (${last!.acs.length} credentials, ${last!.services.length} services left)`);
        // Garbage collection removes the released ControlPlane's Keystone and MariaDB in either
        // order: the account is dropped, or it goes with the server (mariadb-operator's
        // SqlFinalizer drops nothing once the MariaDB is gone or going).
        await waitUntil(`Keystone's MariaDB user dropped from ${cluster}, or the server stopped with its CR`, async () => ctx.mariadbs.dropped(ns, cluster).includes(names.keystone) || ctx.mariadbs.stopped(ns, cluster), 120_000, ctx);
        console.log(ctx.mariadbs.dropped(ns, cluster).includes(names.keystone)
          ? `    MariaDB ${cluster}: Keystone's user and database dropped (the operator's finalizer), before the server stopped with its CR`
          : `    MariaDB ${cluster}: its CR went before Keystone's; the account went with the server`);
      },
    },
    {
      id: 20,
      title: 'real Keystone and K-ORC: a credential with access rules (an identity import as serviceRef); deletion with Keystone stopped: held at FinalizingORC, nothing lost; finished, the credential revoked, once Keystone answers again',
      async run(ctx) {
        const ns2 = REAL_OPENSTACK_DOWN_NS;
        const names = childNames(REAL_NAME);
        const example = parse(readFileSync(join(shared, 'examples', 'controlplane-full-managed.yaml'), 'utf8')) as Obj;
        const spec = structuredClone(example.spec) as Obj;
        spec.korc = { ...(spec.korc ?? {}), adminCredential: { ...(spec.korc?.adminCredential ?? {}), applicationCredential: { ...(spec.korc?.adminCredential?.applicationCredential ?? {}), restricted: true, accessRules: IDENTITY_RULES } } };
        await ensureNamespace(ctx, ns2);
        await ctx.kube.create(identityImport(ns2));
        const created = await createControlPlane(ctx, { metadata: { name: REAL_NAME, namespace: ns2 }, spec });
        const cp = await waitReady(ctx, cpRef(ns2, REAL_NAME), 300_000, (o) => !!o.status?.adminApplicationCredential?.id);
        const id: string = cp.status.adminApplicationCredential.id;
        const api = ctx.keystones.api(ns2, names.keystone);
        check(!!api, `Keystone ${ns2}/${names.keystone} does not serve`);
        const acs = await api!.applicationCredentials();
        check(acs.length === 1 && acs[0]!.id === id, `Keystone holds ${JSON.stringify(acs.map((a) => a.id))}, expected ${id}`);
        const rules = ((acs[0]!.access_rules ?? []) as Obj[]).map((r) => `${r.service} ${r.method} ${r.path}`).sort();
        const want = IDENTITY_RULES.map((r) => `${r.service} ${r.method} ${r.path}`).sort();
        check(JSON.stringify(rules) === JSON.stringify(want), `access rules in Keystone: ${rules.join(', ')}; expected ${want.join(', ')}`);
        console.log(`    Keystone: credential ${id} with ${rules.length} access rules (service identity via the K-ORC Service import named identity)`);
        await ctx.keystones.down(ns2, names.keystone);
        const ksRef: Ref = { apiVersion: GVK.Keystone.apiVersion, kind: 'Keystone', namespace: ns2, name: names.keystone };
        await waitUntil('Keystone reported not Ready', async () => condition(await ctx.kube.get(ksRef), 'Ready')?.status === 'False', 60_000, ctx);
        await ctx.kube.delete(cpRef(ns2, REAL_NAME));
        await ctx.kube.delete({ apiVersion: GVK.Service.apiVersion, kind: 'Service', namespace: ns2, name: 'identity' });
        // K-ORC (generic/reconciler/resource_actions.go DeleteResource) fetches an object's resource
        // by id before it looks at onDelete: with Keystone unreachable even a detached object keeps
        // its finalizer. So the teardown holds, and loses nothing, while Keystone is down.
        let held: Obj | undefined;
        await waitUntil('the teardown held at FinalizingORC', async () => {
          held = await ctx.kube.get(cpRef(ns2, REAL_NAME));
          return condition(held, 'KORCReady')?.reason === 'FinalizingORC';
        }, 120_000, ctx);
        await sleep(20_000);
        const stillThere = (await childrenOf(ctx, ns2, created.metadata.uid)).map((c) => `${c.kind}/${c.metadata.name}`);
        check(!!(await ctx.kube.get(cpRef(ns2, REAL_NAME))), 'the ControlPlane was released while K-ORC could not reach Keystone');
        check(stillThere.includes(`Keystone/${names.keystone}`) && stillThere.includes(`Secret/${names.adminAppCredential}`), `children gone while K-ORC objects were held: ${stillThere.join(', ')}`);
        console.log(`    Keystone stopped: held at FinalizingORC (${condition(held, 'KORCReady')?.message}); ${stillThere.length} children kept`);
        ctx.keystones.up(ns2, names.keystone);
        await waitUntil('ControlPlane released and every child gone once Keystone answers', async () => !(await ctx.kube.get(cpRef(ns2, REAL_NAME))) && (await childrenOf(ctx, ns2, created.metadata.uid)).length === 0, 300_000, ctx);
        const korcLeft = (await Promise.all(korcKinds.map((k) => ctx.kube.list(k.apiVersion, k.kind, ns2)))).flat();
        check(korcLeft.length === 0, `K-ORC objects left: ${korcLeft.map((o) => `${o.kind}/${o.metadata.name}`).join(', ')}`);
        const onDisk = await ctx.keystones.credentialsOnDisk(ns2, names.keystone);
        check(!onDisk.some((c) => c.id === id), `credential ${id} left in Keystone: nothing may be detached while Keystone is down`);
        console.log(`    Keystone back: teardown finished; credential ${id} revoked`);
      },
    },
    {
      id: 22,
      title: 'real Keystone and K-ORC: deletion of a credential with identity access rules and a live Keystone finishes: credential revoked, endpoint gone, the identity service detached (Keystone refuses such a credential without it)',
      needs: [18],
      async run(ctx) {
        const names = childNames(REAL_NAME);
        const example = parse(readFileSync(join(shared, 'examples', 'controlplane-full-managed.yaml'), 'utf8')) as Obj;
        const spec = structuredClone(example.spec) as Obj;
        spec.korc = { ...(spec.korc ?? {}), adminCredential: { ...(spec.korc?.adminCredential ?? {}), applicationCredential: { ...(spec.korc?.adminCredential?.applicationCredential ?? {}), restricted: true, accessRules: IDENTITY_RULES } } };
        await ctx.kube.create(identityImport(ns));
        const created = await createControlPlane(ctx, { metadata: { name: REAL_NAME, namespace: ns }, spec });
        const cp = await waitReady(ctx, ref(), 300_000, (o) => !!o.status?.adminApplicationCredential?.id);
        const keystone = await realKeystone(ctx);
        const ids = {
          ac: cp.status.adminApplicationCredential.id as string,
          service: (await ctx.kube.get({ apiVersion: GVK.Service.apiVersion, kind: 'Service', namespace: ns, name: names.identityService }))?.status?.id as string,
          endpoint: (await ctx.kube.get({ apiVersion: GVK.Endpoint.apiVersion, kind: 'Endpoint', namespace: ns, name: names.identityRegionEndpoint }))?.status?.id as string,
        };
        check((await keystone.applicationCredentials()).some((a) => a.id === ids.ac && (a.access_rules ?? []).length === IDENTITY_RULES.length), `Keystone has no credential ${ids.ac} with ${IDENTITY_RULES.length} access rules`);
        await ctx.kube.delete(ref());
        // The import authenticates with the password cloud, which K-ORC keeps (its finalizer on the
        // Secret) while the import lives: it goes with the ControlPlane, while Keystone answers.
        await ctx.kube.delete({ apiVersion: GVK.Service.apiVersion, kind: 'Service', namespace: ns, name: 'identity' });
        const ksRef: Ref = { apiVersion: GVK.Keystone.apiVersion, kind: 'Keystone', namespace: ns, name: names.keystone };
        const last = await answerAsKeystoneGoes(ctx, ksRef, 'the ControlPlane released and every child gone (not held at FinalizingORC)', () => identityIn(keystone),
          async () => !(await ctx.kube.get(ref())) && (await childrenOf(ctx, ns, created.metadata.uid)).length === 0, 300_000);
        check(!!last, 'Keystone never answered during the teardown');
        check(!last!.acs.includes(ids.ac) && !last!.endpoints.includes(ids.endpoint), `still in Keystone when its CR went: ${JSON.stringify(last)}`);
        check(last!.services.includes(ids.service), `the identity service ${ids.service} was deleted from Keystone, not detached`);
        console.log(`    Keystone as its CR went (K-ORC's objects all deleted before it): credential ${ids.ac} revoked, endpoint gone, identity service ${ids.service} kept (detached)`);
      },
    },
  ];
}

