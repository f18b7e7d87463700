// Shared by the e2e scenario files: the context every scenario gets, the checks and waits, and
// the helpers that act on the real API server (ControlPlanes, Secrets, takeover cutover, credentials).
import { randomBytes } from 'node:crypto';
import { parse } from 'yaml';
import type { Obj } from '../../src/sim/cluster.js';
import { GVK, CONTROLPLANE_CHILD_KINDS } from '../../src/k8s/kinds.js';
import { childNames, remoteKeys } from '../../src/controlplane/names.js';
import { effectiveAdminPasswordRef, isManagedDatabase } from '../../src/controlplane/spec.js';
import type { Harness } from '../harness.js';
import type { Kube, Ref } from '../kube.js';
import type { StandIns } from '../standins.js';
import type { OpenBao } from '../openbao.js';
import type { KeystoneApi, Keystones } from '../keystone.js';
import type { OpenStackApis } from '../openstack-apis.js';
import type { TempestJobs } from '../tempest.js';
import type { RabbitMQs } from '../rabbitmq.js';
import type { OVNCentrals } from '../ovn.js';
import type { MariaDBs } from '../mariadb.js';
import type { ForwardProxy } from '../forward-proxy.js';
import type { OpenStackCli } from '../openstack-cli.js';
import { LogView, type Recorder } from '../recorder.js';
export interface Ctx {
  h: Harness;
  kube: Kube;
  ops: StandIns;
  /** The real OpenBao ESO reads and writes. */
  bao: OpenBao;
  /** The real Keystones of REAL_OPENSTACK_NS (K-ORC runs for real there). */
  keystones: Keystones;
  /** The real Placement, Glance and Cinder APIs of those namespaces, one per service CR (Cinder with its scheduler and volume services). */
  apis: OpenStackApis;
  /** The verification Jobs' pods there (the real Tempest), and the suite's own Tempest runs. */
  tempest: TempestJobs;
  /** The real MariaDB servers of those namespaces, one per MariaDB CR: the accounts every real service connects with. */
  mariadbs: MariaDBs;
  /** The real RabbitMQ nodes of those namespaces, one per RabbitmqCluster CR: the bus of the services the suite runs. */
  rabbitmqs: RabbitMQs;
  ovns: OVNCentrals;
  /** The in-cluster DNS of those namespaces: what a request to a `*.svc` URL got. */
  proxy: ForwardProxy;
  /** The `openstack` client a user runs. */
  openstack: OpenStackCli;
  rec: Recorder;
  mc: LogView;
  svc: LogView;
  /** Scenario 10 may skip (loudly) when only issue 22 makes it fail. */
  allowIssue22: boolean;
  /** Scenario 11 may skip (loudly) when only the pending AC adoption (branch adopt) makes it fail. */
  allowAdoptPending: boolean;
}

export class Skip extends Error {
  override name = 'Skip';
}

export interface Scenario {
  id: number;
  title: string;
  needs?: number[];
  run(ctx: Ctx): Promise<void>;
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
export const b64 = (s: string) => Buffer.from(s, 'utf8').toString('base64');
export const unb64 = (s: string) => Buffer.from(s, 'base64').toString('utf8');
export const secretValue = () => `e2e-${randomBytes(12).toString('hex')}`;

export class AssertionError extends Error {
  override name = 'AssertionError';
}

export function check(ok: boolean, message: string): void {
  if (!ok) throw new AssertionError(message);
}

export async function waitUntil<T>(what: string, probe: () => Promise<T | undefined | false>, timeoutMs: number, ctx: Ctx, everyMs = 500): Promise<T> {
  const until = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    const dead = ctx.h.dead();
    if (dead) throw new AssertionError(`${what}: component ${dead.name} exited (${dead.exited})`);
    try {
      const v = await probe();
      if (v !== undefined && v !== false) return v;
    } catch (err) {
      last = err;
    }
    if (Date.now() > until) throw new AssertionError(`${what}: not reached within ${timeoutMs / 1000} s${last ? ` (last error: ${(last as Error).message})` : ''}`);
    await sleep(everyMs);
  }
}

export const condition = (o: Obj | undefined, type: string): Obj | undefined => (o?.status?.conditions ?? []).find((c: Obj) => c.type === type);
export const cpRef = (namespace: string, name: string): Ref => ({ apiVersion: GVK.ControlPlane.apiVersion, kind: 'ControlPlane', namespace, name });
export const conditionsLine = (o: Obj | undefined) => ((o?.status?.conditions ?? []) as Obj[]).map((c) => `${c.type}=${c.status}/${c.reason}`).join(' ');

/** The children of a parent (by controller owner reference), every child kind. */
export async function childrenOf(ctx: Ctx, namespace: string, uid: string, kinds: readonly { apiVersion: string; kind: string }[] = CONTROLPLANE_CHILD_KINDS): Promise<Obj[]> {
  const all = (await Promise.all(kinds.map((k) => ctx.kube.list(k.apiVersion, k.kind, namespace)))).flat();
  return all.filter((o) => (o.metadata.ownerReferences ?? []).some((r: Obj) => r.uid === uid && r.controller));
}

export const korcKinds = CONTROLPLANE_CHILD_KINDS.filter((k) => k.apiVersion.startsWith('openstack.k-orc.cloud/'));

export async function ensureNamespace(ctx: Ctx, name: string): Promise<void> {
  if (!(await ctx.kube.get({ apiVersion: 'v1', kind: 'Namespace', name }))) {
    await ctx.kube.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
  }
}

/**
 * A ControlPlane created as a user would (the API server applies the CRD defaults), OpenBao seeded.
 * `adminPasswordOverride`: the stand-ins model one OpenStack with one admin password, so a ControlPlane
 * created while another one's Keystone lives must use that password (two would keep re-bootstrapping
 * it, and K-ORC could never authenticate).
 */
export async function createControlPlane(ctx: Ctx, input: Obj, adminPasswordOverride?: string): Promise<Obj> {
  const ns = input.metadata.namespace;
  await ensureNamespace(ctx, ns);
  const keys = remoteKeys(ns, input.metadata.name);
  const dbPassword = secretValue();
  const adminPassword = adminPasswordOverride ?? secretValue();
  await ctx.bao.put(keys.db, { username: 'keystone', password: dbPassword });
  await ctx.bao.put(keys.adminPassword, { password: adminPassword });
  if (!isManagedDatabase(input.spec)) {
    const db = input.spec.infrastructure.database.secretRef;
    const admin = effectiveAdminPasswordRef(input.spec, input.metadata.name);
    await userSecret(ctx, ns, db.name, { [db.key ?? 'password']: dbPassword });
    await userSecret(ctx, ns, admin.name!, { [admin.key]: adminPassword });
  }
  return ctx.kube.create({ apiVersion: GVK.ControlPlane.apiVersion, kind: 'ControlPlane', metadata: { name: input.metadata.name, namespace: ns }, spec: input.spec });
}

export async function userSecret(ctx: Ctx, namespace: string, name: string, values: Record<string, string>): Promise<void> {
  const data = Object.fromEntries(Object.entries(values).map(([k, v]) => [k, b64(v)]));
  const existing = await ctx.kube.get({ apiVersion: 'v1', kind: 'Secret', namespace, name });
  if (existing) await ctx.kube.replace({ ...existing, data });
  else await ctx.kube.create({ apiVersion: 'v1', kind: 'Secret', metadata: { name, namespace }, type: 'Opaque', data });
}

export async function waitReady(ctx: Ctx, ref: Ref, timeoutMs: number, extra: (cp: Obj) => boolean = () => true): Promise<Obj> {
  let last: Obj | undefined;
  try {
    return await waitUntil(
      `ControlPlane ${ref.namespace}/${ref.name} Ready=True/AllReady`,
      async () => {
        last = await ctx.kube.get(ref);
        const ready = condition(last, 'Ready');
        return ready?.status === 'True' && ready.reason === 'AllReady' && extra(last!) ? last : undefined;
      },
      timeoutMs,
      ctx,
    );
  } catch (err) {
    throw new AssertionError(`${(err as Error).message}; conditions: ${conditionsLine(last)}`);
  }
}

/** Metacontroller log lines that say a child was refused or an apply failed. */
export function applyErrors(ctx: Ctx, from: number): string[] {
  return ctx.mc
    .json(from)
    // "Failed to update child due to outdated resourceVersion" is a conflict Metacontroller retries
    // (a stand-in wrote a status in between): not a refusal.
    .filter((l) => l.level === 'error' || /is invalid|admission webhook|forbidden/i.test(`${l.msg ?? ''} ${l.error ?? ''}`))
    .map((l) => `${l.msg}${l.error ? `: ${String(l.error).slice(0, 300)}` : ''}`);
}

export const mcVerbs = (ctx: Ctx, from: number, msg: string) => ctx.mc.json(from).filter((l) => l.msg === msg);
export const childLabel = (l: Obj) => {
  const c = l.child;
  if (typeof c === 'string') return c;
  return c ? `${c.kind ?? '?'}/${c.name ?? c.metadata?.name ?? '?'}` : '?';
};

/**
 * The takeover runbook (docs/hooks.md "Taking over from the reference operator") on a converged
 * ControlPlane: Metacontroller's CompositeController removed (the children stay) and every trace
 * of it and of this service's bookkeeping removed from the objects — what the Go operator leaves
 * behind (controller owner reference, no controller-uid label, finalizer c5c3.io/orc-teardown on
 * the parent) —, then the cutover: the children labelled for Metacontroller's selector, the Go
 * operator's finalizer dropped, the CompositeController installed again. Returns the children's
 * uids before the cutover and the marks it began at.
 */
export async function cutover(ctx: Ctx, ns: string, name: string, uid: string): Promise<{ before: Map<string, string>; mark: number; mcMark: number }> {
  const ccRef: Ref = { apiVersion: 'metacontroller.k8s.io/v1alpha1', kind: 'CompositeController', name: 'c5c3-controlplane' };
  await ctx.kube.delete(ccRef);
  await waitUntil('CompositeController c5c3-controlplane gone', async () => !(await ctx.kube.get(ccRef)), 30_000, ctx);
  await sleep(3000);
  const bookkeeping = ['metacontroller.k8s.io/last-applied-configuration', 'c5c3.io/secret-sha256', 'c5c3.io/minted-secret-sha256', 'c5c3.io/rotation-requests', 'c5c3.io/source-sha256', 'c5c3.io/force-sync-attempt'];
  for (const c of await childrenOf(ctx, ns, uid)) {
    const labels = { ...(c.metadata.labels ?? {}) };
    delete labels['controller-uid'];
    const annotations = { ...(c.metadata.annotations ?? {}) };
    for (const a of bookkeeping) delete annotations[a];
    await ctx.kube.replace({ ...c, metadata: { ...c.metadata, labels, annotations } });
  }
  await ctx.kube.mergePatch(cpRef(ns, name), { metadata: { finalizers: ['c5c3.io/orc-teardown'] } });
  await sleep(2000);
  const before = new Map((await childrenOf(ctx, ns, uid)).map((c) => [`${c.kind}/${c.metadata.name}`, c.metadata.uid as string]));
  const mark = Date.now();
  const mcMark = ctx.mc.mark();
  for (const c of await childrenOf(ctx, ns, uid)) {
    await ctx.kube.mergePatch({ apiVersion: c.apiVersion, kind: c.kind, namespace: ns, name: c.metadata.name }, { metadata: { labels: { 'controller-uid': uid } } });
  }
  await ctx.kube.mergePatch(cpRef(ns, name), { metadata: { finalizers: null } });
  await ctx.h.installControllers();
  await waitUntil('Metacontroller synced the ControlPlane again', async () => mcVerbs(ctx, mcMark, 'Sync').length > 0 || ctx.mc.json(mcMark).some((l) => /Sync/.test(String(l.msg))), 60_000, ctx);
  return { before, mark, mcMark };
}

/** Application credentials minted since a count, and the live ones of a ControlPlane. */
export const mints = (ctx: Ctx) => ctx.ops.world.openstack.mints.length;
export const liveCredentialsOf = (ctx: Ctx, cp: string) => [...ctx.ops.world.openstack.applicationCredentials.entries()].filter(([, ac]) => ac.name.startsWith(`${cp}-admin-app-credential`));

/** How long after a new admin credential is Available K-ORC's materialised Secret may still lack it (issue 30). */
export const NEW_CREDENTIAL_BOUND_SECONDS = 60;

/**
 * Waits for a new admin application credential (an id other than `previousId`) to be Available
 * and then for the materialised clouds.yaml Secret K-ORC reads to authenticate with it (its id and
 * the app-credential Secret's `value`), through the real PushSecret → OpenBao → ExternalSecret chain.
 * Returns the id and the seconds between the two, checked against the bound.
 */
export async function newCredentialReachesKorc(ctx: Ctx, namespace: string, cp: string, previousId: string | undefined, timeoutMs: number): Promise<{ id: string; seconds: number }> {
  const names = childNames(cp);
  const acRef: Ref = { apiVersion: GVK.ApplicationCredential.apiVersion, kind: 'ApplicationCredential', namespace, name: names.adminAppCredential };
  let available: { id: string; at: number } | undefined;
  const reached = await waitUntil(
    `a new admin credential reaches Secret k-orc-clouds-yaml`,
    async () => {
      const ac = await ctx.kube.get(acRef);
      const id: string | undefined = ac?.status?.id;
      const isAvailable = condition(ac, 'Available')?.status === 'True' && !ac?.metadata?.deletionTimestamp;
      if (!available && id && id !== previousId && isAvailable) available = { id, at: Date.now() };
      if (!available) return undefined;
      const value = (await ctx.kube.get({ apiVersion: 'v1', kind: 'Secret', namespace, name: names.adminAppCredential }))?.data?.value;
      const doc = (await ctx.kube.get({ apiVersion: 'v1', kind: 'Secret', namespace, name: 'k-orc-clouds-yaml' }))?.data?.['clouds.yaml'];
      if (!value || !doc) return undefined;
      const auth = Object.values((parse(unb64(doc)) as Obj)?.clouds ?? {})[0] as Obj | undefined;
      return auth?.auth?.application_credential_id === available.id && auth?.auth?.application_credential_secret === unb64(value) ? Date.now() : undefined;
    },
    timeoutMs,
    ctx,
    250,
  );
  const seconds = (reached - available!.at) / 1000;
  console.log(`    k-orc-clouds-yaml: new credential after ${seconds.toFixed(1)} s (credential ${available!.id} Available, then materialised through the real PushSecret, OpenBao and ExternalSecret)`);
  check(seconds <= NEW_CREDENTIAL_BOUND_SECONDS, `the new credential reached k-orc-clouds-yaml ${seconds.toFixed(1)} s after it was Available (bound ${NEW_CREDENTIAL_BOUND_SECONDS} s)`);
  return { id: available!.id, seconds };
}

/** What an operator does to make ESO re-read OpenBao now: a new value of any annotation of the ExternalSecret. */
export async function forceRefresh(ctx: Ctx, namespace: string, name: string): Promise<void> {
  await ctx.kube.mergePatch({ apiVersion: GVK.ExternalSecret.apiVersion, kind: 'ExternalSecret', namespace, name }, { metadata: { annotations: { 'e2e.c5c3.io/refresh': String(Date.now()) } } });
}

// ------------------------------------------------------------------------------------------------
export const MANAGED_NS = 'openstack';
/** The namespaces where K-ORC and Keystone run for real (scenarios 16-20). */
export const REAL_OPENSTACK_NS = 'openstack-real';
export const REAL_OPENSTACK_DOWN_NS = 'openstack-real-down';
export const REAL_SERVICES_NS = 'openstack-real-services';
export const REAL_SCHEDULED_NS = 'openstack-real-scheduled';
export const REAL_TAKEOVER_NS = 'openstack-real-takeover';
export const REAL_CLOUD_NS = 'openstack-real-cloud';
/** The fault scenarios' ControlPlane with a real Keystone (faults.ts). */
export const REAL_FAULTS_NS = 'openstack-real-faults';
/** Where a ControlPlane converged by the previous release of the hooks moves its catalog into its region (real-region.ts). */
export const REAL_MIGRATION_NS = 'openstack-real-migration';
export const REAL_OPENSTACK_NAMESPACES = [REAL_OPENSTACK_NS, REAL_OPENSTACK_DOWN_NS, REAL_SERVICES_NS, REAL_SCHEDULED_NS, REAL_TAKEOVER_NS, REAL_CLOUD_NS, REAL_FAULTS_NS, REAL_MIGRATION_NS];

export const sortKeys = (o: Obj | undefined) => o && Object.fromEntries(Object.keys(o).sort().map((k) => [k, o[k]]));

/** The admin API of the real Keystone of ControlPlane `cp` in `ns` (the real-Keystone namespaces). */
export function keystoneApiOf(ctx: Ctx, ns: string, cp: string): KeystoneApi {
  const keystone = childNames(cp).keystone;
  const api = ctx.keystones.api(ns, keystone);
  if (!api) throw new AssertionError(`Keystone ${ns}/${keystone} does not serve`);
  return api;
}
