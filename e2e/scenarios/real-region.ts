// The catalog in its region (issue 57), against the real Keystone and the K-ORC with Region
// (482412c0): a ControlPlane converged by the previous release of the hooks, whose rows are
// region-less, is handed to this build. Its rows move into spec.region through new Endpoint
// objects while Keystone is polled: no service type is ever without a row, no credential is
// minted, the old rows go. Then its deletion removes every row, Endpoints before the Regions they
// name, and leaves the bootstrap region in Keystone.
import type { Obj } from '../../src/sim/cluster.js';
import { GVK } from '../../src/k8s/kinds.js';
import { childNames, serviceChildNames, serviceRemoteKeys } from '../../src/controlplane/names.js';
import { SERVICES as HOOKS_SERVICES } from '../../src/cli/hook-payloads.js';
import { SERVICES as ALL_SERVICES } from '../../src/api/services/index.js';
import type { Ref } from '../kube.js';
import type { Ctx, Scenario } from './support.js';
import { check, condition, cpRef, childrenOf, createControlPlane, ensureNamespace, keystoneApiOf, secretValue, sleep, userSecret, waitReady, waitUntil, REAL_MIGRATION_NS } from './support.js';
import { REAL_NAME, answerAsKeystoneGoes } from './real-keystone.js';
import { publishedCloud } from './real-apis.js';

const SPEC: Obj = HOOKS_SERVICES.spec;
const DECLARED = ALL_SERVICES.filter((d) => SPEC.services[d.name] !== undefined);
/** The rows a user needs, by `<type> <interface>`. */
const ROWS = ['identity public', ...DECLARED.flatMap((d) => [`${d.serviceType} public`, `${d.serviceType} internal`])];

/** Keystone's rows of the ControlPlane's service types, by `<type> <interface>`, with their regions. */
async function rowsIn(ctx: Ctx): Promise<Map<string, (string | null)[]>> {
  const keystone = keystoneApiOf(ctx, REAL_MIGRATION_NS, REAL_NAME);
  const services = new Map((await keystone.services()).map((s) => [s.id as string, s.type as string]));
  const out = new Map<string, (string | null)[]>();
  for (const e of await keystone.endpoints()) {
    const type = services.get(e.service_id);
    if (type === undefined) continue;
    const key = `${type} ${e.interface}`;
    out.set(key, [...(out.get(key) ?? []), (e.region_id as string | null) ?? null]);
  }
  return out;
}

const line = (rows: Map<string, (string | null)[]>) => ROWS.map((r) => `${r}: ${(rows.get(r) ?? []).map((x) => x ?? 'none').join('+') || '-'}`).join(', ');

export function realRegionScenarios(): Scenario[] {
  const ns = REAL_MIGRATION_NS;
  const ref = cpRef(ns, REAL_NAME);
  const region = SPEC.region as string;
  return [
    {
      id: 41,
      title: 'the catalog moves into its region: a ControlPlane converged by the previous release of the hooks (region-less rows) is taken over by this build; every row registered in spec.region through new Endpoint objects, Keystone never without a row of any service type on any poll, no credential minted, the region-less rows gone; the published clouds.yaml as written finds every row; deletion removes every row and Region import, Endpoints first, and leaves the bootstrap region',
      async run(ctx) {
        await ensureNamespace(ctx, ns);
        for (const d of DECLARED) await ctx.bao.put(serviceRemoteKeys(ns, REAL_NAME, d.name).db, { username: d.name, password: secretValue() });
        await userSecret(ctx, ns, 'glance-s3-credentials', { 'access-key-id': 'e2e', 'secret-access-key': secretValue() });
        const keystone = () => keystoneApiOf(ctx, ns, REAL_NAME);

        // 1. The previous release converges it: its rows are region-less (but the identity row it adopted from the bootstrap).
        // Its captures apart: scenario 12 replays the captured calls against this build.
        await ctx.h.restartService({ CAPTURE_DIR: `${ctx.h.captureDir}-previous-release` }, ctx.h.paths.bin.previousHooks);
        let cp: Obj;
        let before: Map<string, (string | null)[]>;
        let credentialsBefore: string[];
        let acBefore: Obj | undefined;
        try {
          await createControlPlane(ctx, { metadata: { name: REAL_NAME, namespace: ns }, spec: structuredClone(SPEC) });
          cp = await waitReady(ctx, ref, 420_000, (o) => condition(o, 'ServicesReady')?.status === 'True');
          before = await rowsIn(ctx);
          for (const d of DECLARED) check((before.get(`${d.serviceType} internal`) ?? []).every((r) => r === null), `the previous release registered ${d.serviceType} in a region: ${line(before)}`);
          const regions = await ctx.kube.list(GVK.Region.apiVersion, 'Region', ns);
          check(regions.length === 0, `the previous release made Region objects: ${regions.map((r) => r.metadata.name).join(', ')}`);
          credentialsBefore = (await keystone().applicationCredentials()).map((c) => c.id as string).sort();
          acBefore = await ctx.kube.get({ apiVersion: GVK.ApplicationCredential.apiVersion, kind: 'ApplicationCredential', namespace: ns, name: childNames(REAL_NAME).adminAppCredential });
          console.log(`    the previous release (${ctx.h.paths.bin.previousHooks.split('/').pop()!.slice(0, 8)}): Ready; Keystone's rows ${line(before)}`);
        } finally {
          // 2. This build takes over (whatever happened: the rest of the suite runs on it).
          await ctx.h.restartService();
        }

        // Keystone polled while the rows move: every row a user needs exists on every poll.
        const mark = Date.now();
        const polls: Map<string, (string | null)[]>[] = [];
        let polling = true;
        const poller = (async () => {
          while (polling) {
            polls.push(await rowsIn(ctx));
            await sleep(500);
          }
        })();
        const legacy = [childNames(REAL_NAME).identityEndpoint, ...DECLARED.flatMap((d) => [serviceChildNames(REAL_NAME, d.name).publicEndpoint, serviceChildNames(REAL_NAME, d.name).internalEndpoint])];
        try {
          await waitUntil('every row in its region, the region-less Endpoint objects gone, the ControlPlane Ready', async () => {
            const o = await ctx.kube.get(ref);
            if (condition(o, 'Ready')?.status !== 'True' || condition(o, 'CatalogReady')?.status !== 'True') return undefined;
            const endpoints = await ctx.kube.list(GVK.Endpoint.apiVersion, 'Endpoint', ns);
            if (endpoints.some((e) => legacy.includes(e.metadata.name))) return undefined;
            const rows = await rowsIn(ctx);
            return ROWS.every((r) => JSON.stringify(rows.get(r)) === JSON.stringify([region])) ? rows : undefined;
          }, 420_000, ctx);
        } finally {
          polling = false;
          await poller;
        }
        const seconds = Math.round((Date.now() - mark) / 1000);
        const empty = polls.flatMap((p, i) => ROWS.filter((r) => (p.get(r) ?? []).length === 0).map((r) => `poll ${i}: no ${r} row`));
        check(polls.length > 0 && empty.length === 0, `Keystone without a row while they moved: ${empty.slice(0, 5).join('; ')}`);
        const most = Math.max(...polls.map((p) => Math.max(...ROWS.map((r) => (p.get(r) ?? []).length))));
        const after = await rowsIn(ctx);
        console.log(`    this build took over: ${polls.length} polls of Keystone in ${seconds} s, every row present on each (at most ${most} of one type and interface at once); now ${line(after)}`);
        const credentialsAfter = (await keystone().applicationCredentials()).map((c) => c.id as string).sort();
        check(JSON.stringify(credentialsAfter) === JSON.stringify(credentialsBefore!), `application credentials before ${credentialsBefore!.join(', ')}, after ${credentialsAfter.join(', ')}: a mint`);
        const acAfter = await ctx.kube.get({ apiVersion: GVK.ApplicationCredential.apiVersion, kind: 'ApplicationCredential', namespace: ns, name: childNames(REAL_NAME).adminAppCredential });
        check(acAfter?.metadata?.uid === acBefore?.metadata?.uid && acAfter?.status?.id === acBefore?.status?.id, 'the admin ApplicationCredential was replaced');
        const gone = [...new Set(ctx.rec.since(mark, (e) => e.namespace === ns && e.terminating).map((e) => `${e.kind}/${e.name}`))].sort();
        check(JSON.stringify(gone) === JSON.stringify(legacy.map((n) => `Endpoint/${n}`).sort()), `deleted while the rows moved: ${gone.join(', ')} (expected the region-less Endpoints only)`);
        console.log(`    deleted: only the region-less Endpoints (${legacy.length}); no mint (application credential ${acAfter?.status?.id} kept)`);
        // A user with the published clouds.yaml as written (region_name included) finds the moved rows.
        const published = await publishedCloud(ctx, ns, REAL_NAME);
        check(published.includes(`region_name: ${region}`), `the published clouds.yaml names no region_name ${region}`);
        const providers = await ctx.openstack.json(published, ['resource', 'provider', 'list']);
        const images = await ctx.openstack.json(published, ['image', 'list']);
        check(Array.isArray(providers) && Array.isArray(images), `openstack resource provider list / image list: ${JSON.stringify([providers, images]).slice(0, 300)}`);
        console.log(`    the published clouds.yaml as written (region_name ${region}): openstack resource provider list and image list answered from the moved rows`);

        // 3. Deletion: every row gone, Endpoints before the Regions they name; the bootstrap region stays.
        const uid = cp!.metadata.uid as string;
        const deleteMark = Date.now();
        await ctx.kube.delete(ref);
        const ksRef: Ref = { apiVersion: GVK.Keystone.apiVersion, kind: 'Keystone', namespace: ns, name: childNames(REAL_NAME).keystone };
        const last = await answerAsKeystoneGoes(ctx, ksRef, 'the ControlPlane and every child gone', async () => ({ rows: await rowsIn(ctx), regions: (await keystone().regions()).map((r) => r.id as string) }), async () => !(await ctx.kube.get(ref)) && (await childrenOf(ctx, ns, uid)).length === 0, 420_000);
        check(!!last, 'Keystone never answered during the teardown');
        const left = DECLARED.flatMap((d) => [...(last!.rows.get(`${d.serviceType} public`) ?? []), ...(last!.rows.get(`${d.serviceType} internal`) ?? [])]);
        check(left.length === 0, `rows of the services still in Keystone when its CR went: ${line(last!.rows)}`);
        check(last!.regions.includes(region), `Keystone's regions when its CR went: ${last!.regions.join(', ')} (the bootstrap region ${region} must stay)`);
        const events = ctx.rec.since(deleteMark, (e) => e.namespace === ns && (e.kind === 'Endpoint' || e.kind === 'Region') && e.type === 'DELETED');
        const lastEndpoint = Math.max(...events.filter((e) => e.kind === 'Endpoint').map((e) => e.rv));
        const firstRegion = Math.min(...events.filter((e) => e.kind === 'Region').map((e) => e.rv));
        check(events.some((e) => e.kind === 'Region') && lastEndpoint < firstRegion, `Regions deleted before the Endpoints naming them: ${events.map((e) => `${e.kind}/${e.name}`).join(' → ')}`);
        console.log(`    deletion: ${events.filter((e) => e.kind === 'Endpoint').length} Endpoints, then ${events.filter((e) => e.kind === 'Region').length} Regions (${events.filter((e) => e.kind === 'Region').map((e) => e.name).join(', ')}); no service row left; Keystone's regions then ${last!.regions.join(', ')}`);
      },
    },
  ];
}
