// A fleet on the real API server (issue 34 item 5): FLEET_SIZE ControlPlanes, one per namespace,
// created at once and deleted at once, with the stand-in Keystone and K-ORC (a real Keystone per
// ControlPlane would be the heavier part of the run). It asserts on objects and counts; the figures
// it prints (the service's CPU, hook latency, idle CPU, memo hit rates) decide nothing.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import type { Obj } from '../../src/sim/cluster.js';
import { GVK, CONTROLPLANE_CHILD_KINDS } from '../../src/k8s/kinds.js';
import { childNames } from '../../src/controlplane/names.js';
import { MEMO } from '../../src/memo.js';
import { combine, histogramDelta, latencyLine, procCpuSeconds, scrape, total, type Sample } from '../figures.js';
import type { Ctx, Scenario } from './support.js';
import { sleep, secretValue, AssertionError, check, waitUntil, condition, cpRef, conditionsLine, childrenOf, createControlPlane } from './support.js';
import { metacontrollerRestarted } from './faults.js';

const FLEET_SIZE = 30;
const FLEET_NAME = 'controlplane-keystone';
const fleetNamespaces = () => Array.from({ length: FLEET_SIZE }, (_, i) => `fleet-${String(i + 1).padStart(2, '0')}`);
/** The env of the deployed container (manifests/deployment.yaml), but where the suite listens, and no shutdown delay. */
function deployedServiceEnv(repo: string): NodeJS.ProcessEnv {
  const deployment = parse(readFileSync(join(repo, 'manifests', 'deployment.yaml'), 'utf8')) as Obj;
  const env: NodeJS.ProcessEnv = Object.fromEntries(((deployment.spec.template.spec.containers[0].env ?? []) as Obj[]).filter((e) => e.value !== undefined).map((e) => [e.name, String(e.value)]));
  delete env.PORT;
  delete env.HOST;
  return { ...env, SHUTDOWN_DELAY_SECONDS: '0' };
}

/**
 * About the characters of a ControlPlane's sync request as Metacontroller sends it: the controller,
 * the parent, its children and the related objects its customize hook names (asked of the
 * service: one customize call), as the API server serves them now.
 */
async function syncRequestChars(ctx: Ctx, namespace: string, name: string, uid: string): Promise<number> {
  const parent = await ctx.kube.get(cpRef(namespace, name));
  const controller = await ctx.kube.get({ apiVersion: 'metacontroller.k8s.io/v1alpha1', kind: 'CompositeController', name: 'c5c3-controlplane' });
  const res = await fetch(`http://127.0.0.1:${ctx.h.servicePort}/controlplane/customize`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ controller: controller ?? {}, parent }) });
  const related: Obj[] = [];
  for (const r of ((await res.json()) as Obj).relatedResources ?? []) {
    const collection = `${r.apiVersion.includes('/') ? `/apis/${r.apiVersion}` : `/api/${r.apiVersion}`}${r.namespace ? `/namespaces/${r.namespace}` : ''}/${r.resource}`;
    const selector = r.labelSelector?.matchLabels ? `?labelSelector=${encodeURIComponent(Object.entries(r.labelSelector.matchLabels as Record<string, string>).map(([k, v]) => `${k}=${v}`).join(','))}` : '';
    if (!Array.isArray(r.names)) {
      related.push(...(((await ctx.kube.request('GET', `${collection}${selector}`)).items ?? []) as Obj[]));
      continue;
    }
    for (const n of r.names as string[]) {
      const o = await ctx.kube.request('GET', `${collection}/${n}`).catch(() => undefined);
      if (o) related.push(o);
    }
  }
  return JSON.stringify({ controller, parent, children: await childrenOf(ctx, namespace, uid), related, finalizing: false }).length;
}

export function fleetScenarios(shared: string): Scenario[] {
  return [
    {
      id: 25,
      title: `fleet of ${FLEET_SIZE} ControlPlanes (one per namespace) created at once: all Ready, one credential each; Metacontroller restarted with all converged: no mint, no deletion, no child created or updated; deleted at once: every one gone, every credential revoked, nothing else lost; the kept answers looked up`,
      async run(ctx) {
        // The service as deployed (its env in manifests/deployment.yaml: no capture, log level
        // info), so the figures are the hooks' own and not the suite's capture; afterwards as before.
        await ctx.h.restartService({ ...deployedServiceEnv(ctx.h.paths.repo), CAPTURE_DIR: '', CAPTURE_KEY: '' });
        try {
          await fleet(ctx, shared);
        } finally {
          await ctx.h.restartService();
        }
      },
    },
  ];
}

async function fleet(ctx: Ctx, shared: string): Promise<void> {
  const spec = structuredClone((parse(readFileSync(join(shared, 'examples', 'controlplane-full-managed.yaml'), 'utf8')) as Obj).spec);
  const namespaces = fleetNamespaces();
  const inFleet = new Set(namespaces);
  const os = ctx.ops.world.openstack;
  const pid = ctx.h.servicePid();
  check(pid !== undefined, 'the hooks service does not run');
  const svcUrl = `http://127.0.0.1:${ctx.h.servicePort}/metrics`;
  // Metacontroller's metrics address: a fresh one after its restart (below).
  const mcUrlNow = () => ctx.h.metacontrollerMetrics;
  const mcUrl = mcUrlNow();
  // The service's CPU from /proc; where there is none, its own process_cpu_seconds_total (says so).
  const cpuSource = procCpuSeconds(pid!) !== undefined ? '/proc' : 'process_cpu_seconds_total';
  const cpu = async () => procCpuSeconds(pid!) ?? total(await scrape(svcUrl), 'process_cpu_seconds_total');
  const listCps = async () => (await ctx.kube.list(GVK.ControlPlane.apiVersion, 'ControlPlane')).filter((o) => inFleet.has(o.metadata.namespace));
  const readyWithCredential = (o: Obj) => condition(o, 'Ready')?.status === 'True' && condition(o, 'Ready')?.reason === 'AllReady' && !!o.status?.adminApplicationCredential?.id;
  const snapshot = async () => ({ at: Date.now(), cpu: await cpu(), svc: await scrape(svcUrl), mc: mcUrlNow() ? await scrape(mcUrlNow()) : [] });

  // What must survive the fleet: the other ControlPlanes (their credential), the credentials and
  // catalog entries the stand-in OpenStack holds now.
  const others = (await ctx.kube.list(GVK.ControlPlane.apiVersion, 'ControlPlane')).filter((o) => !inFleet.has(o.metadata.namespace));
  const liveBefore = new Set(os.applicationCredentials.keys());
  const catalogBefore = new Set(os.catalog.keys());
  const startMints = os.mints.length;
  const startRevoked = os.revoked.length;
  // One simulated OpenStack, one admin password (see createControlPlane): the one in use, if any.
  const password = os.adminPassword ?? secretValue();
  const eventsFrom = Date.now();

  // The service before the fleet, for the idle figure to be read against (the suite's other
  // ControlPlanes resyncing, if any; else a Node process with nothing to do): measured, deciding nothing.
  const b0 = await snapshot();
  await sleep(10_000);

  // --- created at once ---------------------------------------------------------------------------
  const s0 = await snapshot();
  const mcMark = ctx.mc.mark();
  const created = await Promise.all(namespaces.map((ns) => createControlPlane(ctx, { metadata: { name: FLEET_NAME, namespace: ns }, spec: structuredClone(spec) }, password)));
  const uids = new Set(created.map((o) => o.metadata.uid as string));
  const readyAt = new Map<string, number>();
  let listed: Obj[] = [];
  await waitUntil(
    `all ${FLEET_SIZE} ControlPlanes Ready=True/AllReady with a credential`,
    async () => {
      listed = await listCps();
      for (const o of listed) if (readyWithCredential(o) && !readyAt.has(o.metadata.namespace)) readyAt.set(o.metadata.namespace, Date.now());
      return listed.length === FLEET_SIZE && listed.every(readyWithCredential);
    },
    600_000,
    ctx,
    1000,
  ).catch((err: Error) => {
    const waiting = listed.filter((o) => !readyWithCredential(o));
    throw new AssertionError(`${err.message}; ${listed.length} listed, ${waiting.length} not Ready, e.g. ${waiting.slice(0, 3).map((o) => `${o.metadata.namespace}: ${conditionsLine(o)}`).join('; ')}`);
  });
  const s1 = await snapshot();
  // Every child accepted: no refusal by the API server in Metacontroller's log (its retried
  // conflicts, at 30 parents at once, are no refusal).
  const refused = ctx.mc.json(mcMark).filter((l) => /is invalid|admission webhook|forbidden/i.test(`${l.msg ?? ''} ${l.error ?? ''}`));
  check(refused.length === 0, `the API server refused children: ${refused.slice(0, 3).map((l) => `${l.msg}: ${String(l.error ?? '').slice(0, 300)}`).join('; ')}`);

  // One credential each: the one in its status and on its ApplicationCredential, minted once.
  await ctx.ops.settle();
  const acs = (await ctx.kube.list(GVK.ApplicationCredential.apiVersion, 'ApplicationCredential')).filter((o) => inFleet.has(o.metadata.namespace) && o.metadata.name === childNames(FLEET_NAME).adminAppCredential);
  const fleetIds = new Map<string, string>(acs.filter((o) => o.status?.id).map((o) => [o.metadata.namespace as string, o.status.id as string]));
  const statusIds = new Map<string, string>(listed.map((o) => [o.metadata.namespace as string, o.status.adminApplicationCredential.id as string]));
  const mismatch = namespaces.filter((ns) => !fleetIds.has(ns) || fleetIds.get(ns) !== statusIds.get(ns));
  check(mismatch.length === 0, `the admin credential in status is not the ApplicationCredential's in ${mismatch.length} namespace(s), e.g. ${mismatch.slice(0, 3).map((ns) => `${ns}: status ${statusIds.get(ns)}, AC ${fleetIds.get(ns)}`).join('; ')}`);
  check(new Set(fleetIds.values()).size === FLEET_SIZE, `${new Set(fleetIds.values()).size} distinct credentials for ${FLEET_SIZE} ControlPlanes`);
  const minted = os.mints.slice(startMints);
  check(minted.length === FLEET_SIZE && minted.every((id) => [...fleetIds.values()].includes(id)), `expected exactly ${FLEET_SIZE} mints, one per ControlPlane, saw ${minted.length}: ${minted.filter((id) => ![...fleetIds.values()].includes(id)).join(', ') || 'each a fleet credential'}`);

  // --- idle, every one converged ---------------------------------------------------------------
  // A window of at least one resync period (each ControlPlane synced again at least once; at most
  // a minute), for the idle CPU figure; its length decides nothing.
  const resync = ctx.h.resyncSeconds || 300;
  const idleSeconds = Math.max(30, Math.min(resync + 10, 60));
  const s2a = await snapshot();
  await sleep(idleSeconds * 1000);
  const s2 = await snapshot();
  // The memo counters: printed with the figures (whether a resync repeats its body's bytes within
  // the window depends on what else changed: ESO refreshes, status writes).
  const hits = (samples: Sample[], memo: string, result = 'hit') => total(samples, 'c5c3_hooks_memo_lookups_total', { memo, result });
  const lookups = (samples: Sample[], memo: string) => hits(samples, memo) + hits(samples, memo, 'miss');
  const idleEnd = s2.svc;
  const stillReady = (await listCps()).filter(readyWithCredential).length;
  check(stillReady === FLEET_SIZE, `${FLEET_SIZE - stillReady} ControlPlane(s) left Ready while the fleet was idle`);

  // --- Metacontroller restarted, every ControlPlane converged (issue 41: faults.ts) ---------------
  // Its burst of syncs is left out of the latency figures below (r0 → r1); its counters start at 0.
  const r0 = await snapshot();
  console.log(`    ${await metacontrollerRestarted(ctx, inFleet)}`);
  const r1 = await snapshot();

  // What one converged sync request carries, about (a figure).
  const bodyChars = await syncRequestChars(ctx, namespaces[0]!, FLEET_NAME, listed.find((o) => o.metadata.namespace === namespaces[0])!.metadata.uid);

  // --- deleted at once ------------------------------------------------------------------------
  const s3a = await snapshot();
  await Promise.all(namespaces.map((ns) => ctx.kube.delete(cpRef(ns, FLEET_NAME))));
  let left: string[] = [];
  await waitUntil(
    `every fleet ControlPlane and child gone`,
    async () => {
      const cps = await listCps();
      if (cps.length > 0) {
        left = cps.map((o) => `${o.metadata.namespace}: ${conditionsLine(o)}`);
        return false;
      }
      const children = (await Promise.all(CONTROLPLANE_CHILD_KINDS.map((k) => ctx.kube.list(k.apiVersion, k.kind)))).flat();
      const owned = children.filter((o) => inFleet.has(o.metadata.namespace) && (o.metadata.ownerReferences ?? []).some((r: Obj) => uids.has(r.uid)));
      left = owned.map((o) => `${o.metadata.namespace}/${o.kind}/${o.metadata.name}`);
      return owned.length === 0;
    },
    300_000,
    ctx,
    1000,
  ).catch((err: Error) => {
    throw new AssertionError(`${err.message}; ${left.length} left, e.g. ${left.slice(0, 3).join('; ')}`);
  });
  const s3 = await snapshot();
  await ctx.ops.settle();

  // Every credential of the fleet revoked; nothing else revoked or lost.
  const ids = [...fleetIds.values()];
  const revoked = os.revoked.slice(startRevoked);
  const notRevoked = ids.filter((id) => !revoked.includes(id) || os.applicationCredentials.has(id));
  check(notRevoked.length === 0, `${notRevoked.length} fleet credential(s) not revoked: ${notRevoked.join(', ')}`);
  const otherRevoked = revoked.filter((id) => !ids.includes(id));
  check(otherRevoked.length === 0, `credentials of others revoked: ${otherRevoked.join(', ')}`);
  const lostCredentials = [...liveBefore].filter((id) => !os.applicationCredentials.has(id));
  check(lostCredentials.length === 0, `credentials live before the fleet gone: ${lostCredentials.join(', ')}`);
  const fleetCatalog = new Set(ctx.rec.since(eventsFrom, (e) => inFleet.has(e.namespace) && (e.kind === 'Service' || e.kind === 'Endpoint') && !!e.orcId).map((e) => e.orcId!));
  const catalogLeft = [...fleetCatalog].filter((id) => os.catalog.has(id));
  check(fleetCatalog.size > 0 && catalogLeft.length === 0, `catalog entries of the fleet left: ${catalogLeft.join(', ') || '(none recorded)'}`);
  const lostCatalog = [...catalogBefore].filter((id) => !os.catalog.has(id));
  check(lostCatalog.length === 0, `catalog entries held before the fleet gone: ${lostCatalog.join(', ')}`);
  for (const o of others) {
    const now = await ctx.kube.get(cpRef(o.metadata.namespace, o.metadata.name));
    check(now?.metadata.uid === o.metadata.uid, `ControlPlane ${o.metadata.namespace}/${o.metadata.name} gone or replaced`);
    const before = o.status?.adminApplicationCredential?.id;
    check(now!.status?.adminApplicationCredential?.id === before, `the credential of ${o.metadata.namespace}/${o.metadata.name} changed: ${before} → ${now!.status?.adminApplicationCredential?.id}`);
  }
  // Every memo is looked up by the fleet's calls.
  const unused = Object.values(MEMO).filter((m) => lookups(s3.svc, m) <= lookups(s0.svc, m));
  check(unused.length === 0, `memo lookup counters did not move: ${unused.join(', ')}`);
  // The namespaces go too (not waited for: the namespace controller removes what ESO left).
  await Promise.all(namespaces.map((ns) => ctx.kube.delete({ apiVersion: 'v1', kind: 'Namespace', name: ns })));

  // --- the figures ------------------------------------------------------------------------------
  const sec = (ms: number) => `${(ms / 1000).toFixed(0)} s`;
  const readyTimes = [...readyAt.values()].map((t) => t - s0.at).sort((a, b) => a - b);
  console.log(`    ${FLEET_SIZE} created at once: first Ready after ${sec(readyTimes[0]!)}, all Ready after ${sec(s1.at - s0.at)}; ${FLEET_SIZE} credentials minted; deleted at once: every ControlPlane and child gone after ${sec(s3.at - s3a.at)}, all ${ids.length} credentials revoked; ${others.length} other ControlPlane(s) and their credentials untouched`);
  const converge = s1.cpu - s0.cpu;
  const teardown = s3.cpu - s3a.cpu;
  console.log(`    service CPU (${cpuSource}): ${converge.toFixed(1)} s creating to all Ready, ${teardown.toFixed(1)} s deleting to all gone: ${((converge + teardown) / FLEET_SIZE).toFixed(3)} s per ControlPlane over its lifecycle (the idle window not counted${others.length > 0 ? `; the resyncs of the suite's ${others.length} other ControlPlane(s) in it` : ''})`);
  const idleCpu = (s2.cpu - s2a.cpu) / ((s2.at - s2a.at) / 1000);
  const syncs = (a: Sample[], b: Sample[]) => total(b, 'c5c3_hooks_request_duration_seconds_count', { hook: 'controlplane/sync' }) - total(a, 'c5c3_hooks_request_duration_seconds_count', { hook: 'controlplane/sync' });
  const calls = (a: Sample[], b: Sample[]) => total(b, 'c5c3_hooks_request_duration_seconds_count') - total(a, 'c5c3_hooks_request_duration_seconds_count');
  const baseCpu = (s0.cpu - b0.cpu) / ((s0.at - b0.at) / 1000);
  console.log(`    idle, all ${FLEET_SIZE} converged (resync every ${resync} s): ${(idleCpu * 100).toFixed(1)} % of a core over ${sec(s2.at - s2a.at)} (${calls(s2a.svc, s2.svc)} hook calls, ${syncs(s2a.svc, s2.svc)} of them ControlPlane syncs); before the fleet ${(baseCpu * 100).toFixed(1)} % over ${sec(s0.at - b0.at)} (${calls(b0.svc, s0.svc)} hook calls)`);
  for (const hook of ['sync', 'finalize', 'customize']) {
    const svcName = 'c5c3_hooks_request_duration_seconds';
    const svc = combine(histogramDelta(s0.svc, s3.svc, svcName, { hook: `controlplane/${hook}` }), histogramDelta(r0.svc, r1.svc, svcName, { hook: `controlplane/${hook}` }), -1);
    const mcName = `metacontroller_${hook}_request_duration_histogram_seconds`;
    const mc = combine(histogramDelta(s0.mc, r0.mc, mcName, { controller_name: 'c5c3-controlplane' }), histogramDelta(r1.mc, s3.mc, mcName, { controller_name: 'c5c3-controlplane' }));
    console.log(`    controlplane/${hook} latency, create → gone (Metacontroller's restart left out): as Metacontroller sees it ${mcUrl ? latencyLine(mc) : 'NOT MEASURED (no metrics address)'}; in the service ${latencyLine(svc)}`);
  }
  const rates = Object.values(MEMO).map((m) => {
    const h = hits(s3.svc, m) - hits(s0.svc, m);
    const n = h + hits(s3.svc, m, 'miss') - hits(s0.svc, m, 'miss');
    return n === 0 ? `${m} not looked up` : `${m} ${((100 * h) / n).toFixed(0)} % of ${n}`;
  });
  console.log(`    memo hits, create → gone: ${rates.join(', ')}; while idle: ${Object.values(MEMO).map((m) => `${m} ${hits(idleEnd, m) - hits(s2a.svc, m)} of ${lookups(idleEnd, m) - lookups(s2a.svc, m)}`).join(', ')}`);
  console.log(`    a converged sync request is about ${(bodyChars / 1024).toFixed(0)} KiB here (the controller, the parent, its children and related objects as the API server serves them); a repeated one is answered from the kept answers before it is parsed`);
}

