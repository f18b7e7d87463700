// The e2e scenarios: each acts on the real API server (or on the stand-ins' OpenBao / outage
// switches), waits for a goal, and asserts on the API server's objects, the stand-ins' record of
// mints and revocations, and Metacontroller's and the service's logs.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { parse } from 'yaml';
import type { Obj } from '../src/sim/cluster.js';
import { GVK, CONTROLPLANE_CHILD_KINDS } from '../src/k8s/kinds.js';
import { SERVICE_PASSWORD_KEY, childNames, remoteKeys, serviceChildNames, serviceRemoteKeys } from '../src/controlplane/names.js';
import { effectiveAdminPasswordRef, isManagedDatabase } from '../src/controlplane/spec.js';
import { passwordSecretName } from '../src/controlplane/services/password-rotation.js';
import type { Harness } from './harness.js';
import type { Kube, Ref } from './kube.js';
import type { StandIns } from './standins.js';
import type { OpenBao } from './openbao.js';
import { KeystoneApi, type Keystones } from './keystone.js';
import { captureFiles, LogView, type Recorder } from './recorder.js';
import { BROWNFIELD as HOOKS_BROWNFIELD, SERVICES as HOOKS_SERVICES, replayCaptured } from '../src/cli/hook-payloads.js';
import type { CapturedCall } from '../src/capture/capture.js';
import { mkdirSync, writeFileSync } from 'node:fs';
import { MEMO } from '../src/memo.js';
import { BODY_MEMO } from '../src/json-body.js';
import { histogramDelta, latencyLine, procCpuSeconds, scrape, total, type Sample } from './figures.js';

export interface Ctx {
  h: Harness;
  kube: Kube;
  ops: StandIns;
  /** The real OpenBao ESO reads and writes. */
  bao: OpenBao;
  /** The real Keystones of REAL_OPENSTACK_NS (K-ORC runs for real there). */
  keystones: Keystones;
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

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const b64 = (s: string) => Buffer.from(s, 'utf8').toString('base64');
const unb64 = (s: string) => Buffer.from(s, 'base64').toString('utf8');
const secretValue = () => `e2e-${randomBytes(12).toString('hex')}`;

export class AssertionError extends Error {
  override name = 'AssertionError';
}

function check(ok: boolean, message: string): void {
  if (!ok) throw new AssertionError(message);
}

async function waitUntil<T>(what: string, probe: () => Promise<T | undefined | false>, timeoutMs: number, ctx: Ctx, everyMs = 500): Promise<T> {
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
const cpRef = (namespace: string, name: string): Ref => ({ apiVersion: GVK.ControlPlane.apiVersion, kind: 'ControlPlane', namespace, name });
const conditionsLine = (o: Obj | undefined) => ((o?.status?.conditions ?? []) as Obj[]).map((c) => `${c.type}=${c.status}/${c.reason}`).join(' ');

/** The children of a parent (by controller owner reference), every child kind. */
async function childrenOf(ctx: Ctx, namespace: string, uid: string, kinds: readonly { apiVersion: string; kind: string }[] = CONTROLPLANE_CHILD_KINDS): Promise<Obj[]> {
  const all = (await Promise.all(kinds.map((k) => ctx.kube.list(k.apiVersion, k.kind, namespace)))).flat();
  return all.filter((o) => (o.metadata.ownerReferences ?? []).some((r: Obj) => r.uid === uid && r.controller));
}

const korcKinds = CONTROLPLANE_CHILD_KINDS.filter((k) => k.apiVersion.startsWith('openstack.k-orc.cloud/'));

async function ensureNamespace(ctx: Ctx, name: string): Promise<void> {
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
async function createControlPlane(ctx: Ctx, input: Obj, adminPasswordOverride?: string): Promise<Obj> {
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

async function userSecret(ctx: Ctx, namespace: string, name: string, values: Record<string, string>): Promise<void> {
  const data = Object.fromEntries(Object.entries(values).map(([k, v]) => [k, b64(v)]));
  const existing = await ctx.kube.get({ apiVersion: 'v1', kind: 'Secret', namespace, name });
  if (existing) await ctx.kube.replace({ ...existing, data });
  else await ctx.kube.create({ apiVersion: 'v1', kind: 'Secret', metadata: { name, namespace }, type: 'Opaque', data });
}

async function waitReady(ctx: Ctx, ref: Ref, timeoutMs: number, extra: (cp: Obj) => boolean = () => true): Promise<Obj> {
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
function applyErrors(ctx: Ctx, from: number): string[] {
  return ctx.mc
    .json(from)
    // "Failed to update child due to outdated resourceVersion" is a conflict Metacontroller retries
    // (a stand-in wrote a status in between): not a refusal.
    .filter((l) => l.level === 'error' || /is invalid|admission webhook|forbidden/i.test(`${l.msg ?? ''} ${l.error ?? ''}`))
    .map((l) => `${l.msg}${l.error ? `: ${String(l.error).slice(0, 300)}` : ''}`);
}

const mcVerbs = (ctx: Ctx, from: number, msg: string) => ctx.mc.json(from).filter((l) => l.msg === msg);
const childLabel = (l: Obj) => {
  const c = l.child;
  if (typeof c === 'string') return c;
  return c ? `${c.kind ?? '?'}/${c.name ?? c.metadata?.name ?? '?'}` : '?';
};

/**
 * The takeover runbook (README "Taking over from the reference operator") on a converged
 * ControlPlane: Metacontroller's CompositeController removed (the children stay) and every trace
 * of it and of this service's bookkeeping removed from the objects — what the Go operator leaves
 * behind (controller owner reference, no controller-uid label, finalizer c5c3.io/orc-teardown on
 * the parent) —, then the cutover: the children labelled for Metacontroller's selector, the Go
 * operator's finalizer dropped, the CompositeController installed again. Returns the children's
 * uids before the cutover and the marks it began at.
 */
async function cutover(ctx: Ctx, ns: string, name: string, uid: string): Promise<{ before: Map<string, string>; mark: number; mcMark: number }> {
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
const mints = (ctx: Ctx) => ctx.ops.world.openstack.mints.length;
const liveCredentialsOf = (ctx: Ctx, cp: string) => [...ctx.ops.world.openstack.applicationCredentials.entries()].filter(([, ac]) => ac.name.startsWith(`${cp}-admin-app-credential`));

/** How long after a new admin credential is Available K-ORC's materialised Secret may still lack it (issue 30). */
const NEW_CREDENTIAL_BOUND_SECONDS = 60;

/**
 * Waits for a new admin application credential (an id other than `previousId`) to be Available
 * and then for the materialised clouds.yaml Secret K-ORC reads to authenticate with it (its id and
 * the app-credential Secret's `value`), through the real PushSecret → OpenBao → ExternalSecret chain.
 * Returns the id and the seconds between the two, checked against the bound.
 */
async function newCredentialReachesKorc(ctx: Ctx, namespace: string, cp: string, previousId: string | undefined, timeoutMs: number): Promise<{ id: string; seconds: number }> {
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
async function forceRefresh(ctx: Ctx, namespace: string, name: string): Promise<void> {
  await ctx.kube.mergePatch({ apiVersion: GVK.ExternalSecret.apiVersion, kind: 'ExternalSecret', namespace, name }, { metadata: { annotations: { 'e2e.c5c3.io/refresh': String(Date.now()) } } });
}

// ------------------------------------------------------------------------------------------------
const MANAGED_NS = 'openstack';
/** The namespaces where K-ORC and Keystone run for real (scenarios 16-20). */
export const REAL_OPENSTACK_NS = 'openstack-real';
const REAL_OPENSTACK_DOWN_NS = 'openstack-real-down';
const REAL_SERVICES_NS = 'openstack-real-services';
const REAL_SCHEDULED_NS = 'openstack-real-scheduled';
const REAL_TAKEOVER_NS = 'openstack-real-takeover';
export const REAL_OPENSTACK_NAMESPACES = [REAL_OPENSTACK_NS, REAL_OPENSTACK_DOWN_NS, REAL_SERVICES_NS, REAL_SCHEDULED_NS, REAL_TAKEOVER_NS];
let managed: Obj = {};
let managedUid = '';
const MANAGED_NAME = () => managed.metadata.name as string;
/** The captured lifecycles' brownfield ControlPlane, with a user-supplied admin password Secret. */
const BROWNFIELD = {
  metadata: structuredClone(HOOKS_BROWNFIELD.metadata),
  spec: { ...structuredClone(HOOKS_BROWNFIELD.spec), korc: { adminCredential: { passwordSecretRef: { name: 'keystone-admin-user', key: 'password' } } } },
};

export function scenarios(shared: string): Scenario[] {
  return [
    {
      id: 1,
      title: 'fresh managed ControlPlane converges: Ready=True/AllReady, one mint, every child accepted',
      async run(ctx) {
        const mark = ctx.mc.mark();
        const startMints = mints(ctx);
        const example = parse(readFileSync(join(shared, 'examples', 'controlplane-full-managed.yaml'), 'utf8')) as Obj;
        managed = example;
        const created = await createControlPlane(ctx, example);
        managedUid = created.metadata.uid;
        await newCredentialReachesKorc(ctx, MANAGED_NS, MANAGED_NAME(), undefined, 240_000);
        const cp = await waitReady(ctx, cpRef(MANAGED_NS, MANAGED_NAME()), 120_000, (o) => !!o.status?.adminApplicationCredential?.id);
        await ctx.ops.settle();
        check(mints(ctx) - startMints === 1, `expected exactly 1 mint, saw ${mints(ctx) - startMints}`);
        const children = await childrenOf(ctx, MANAGED_NS, managedUid);
        const kinds = new Set(children.map((c) => c.kind));
        // The kinds of the services beside Keystone and of the bus come only with a declaration.
        const onlyDeclared = new Set(['RabbitmqCluster', 'Project', 'Role', 'RoleAssignment', 'Placement', 'Glance', 'GlanceBackend']);
        const missing = CONTROLPLANE_CHILD_KINDS.map((k) => k.kind).filter((k) => !onlyDeclared.has(k) && !kinds.has(k));
        check(missing.length === 0, `no child of kind ${missing.join(', ')} in the API server`);
        const errors = applyErrors(ctx, mark);
        check(errors.length === 0, `Metacontroller logged apply errors:\n  ${errors.slice(0, 5).join('\n  ')}`);
        check(!!condition(cp, 'CatalogReady') && condition(cp, 'CatalogReady')!.status === 'True', 'CatalogReady is not True');
        console.log(`    ${children.length} children in the API server (${[...kinds].sort().join(', ')}); admin AC ${cp.status.adminApplicationCredential.id}`);
      },
    },
    {
      id: 2,
      title: 'admin password rotated in OpenBao: exactly one re-mint, Ready again',
      needs: [1],
      async run(ctx) {
        const before = (await ctx.kube.get(cpRef(MANAGED_NS, MANAGED_NAME())))!;
        const startId = before.status.adminApplicationCredential.id;
        const startMints = mints(ctx);
        const password = secretValue();
        await ctx.bao.put(remoteKeys(MANAGED_NS, MANAGED_NAME()).adminPassword, { password });
        // ESO reads OpenBao hourly (refreshInterval 1h); the operator who rotated the password asks
        // for the refresh now, as ESO's documentation says (a new annotation value).
        await forceRefresh(ctx, MANAGED_NS, childNames(MANAGED_NAME()).adminPassword);
        await newCredentialReachesKorc(ctx, MANAGED_NS, MANAGED_NAME(), startId, 180_000);
        await waitReady(ctx, cpRef(MANAGED_NS, MANAGED_NAME()), 120_000, (o) => o.status?.adminApplicationCredential?.id !== startId && ctx.ops.world.openstack.adminPassword === password);
        await sleep(5000);
        await ctx.ops.settle();
        check(mints(ctx) - startMints === 1, `expected exactly 1 re-mint, saw ${mints(ctx) - startMints}`);
        check(liveCredentialsOf(ctx, MANAGED_NAME()).length === 1, `expected 1 live application credential, saw ${liveCredentialsOf(ctx, MANAGED_NAME()).length}`);
      },
    },
    {
      id: 3,
      title: 'CredentialRotation reMint: exactly one re-mint, RotationComplete=True',
      needs: [1],
      async run(ctx) {
        const before = (await ctx.kube.get(cpRef(MANAGED_NS, MANAGED_NAME())))!;
        const startId = before.status.adminApplicationCredential.id;
        const startMints = mints(ctx);
        const example = parse(readFileSync(join(shared, 'examples', 'credentialrotation-remint.yaml'), 'utf8')) as Obj;
        const cr = { apiVersion: GVK.CredentialRotation.apiVersion, kind: 'CredentialRotation', metadata: { name: example.metadata?.name ?? 'rotate-admin', namespace: MANAGED_NS }, spec: example.spec };
        await ctx.kube.create(cr);
        const crRef: Ref = { apiVersion: GVK.CredentialRotation.apiVersion, kind: 'CredentialRotation', namespace: MANAGED_NS, name: cr.metadata.name };
        await newCredentialReachesKorc(ctx, MANAGED_NS, MANAGED_NAME(), startId, 180_000);
        let last: Obj | undefined;
        await waitUntil(
          'CredentialRotation RotationComplete=True',
          async () => {
            last = await ctx.kube.get(crRef);
            return condition(last, 'RotationComplete')?.status === 'True';
          },
          180_000,
          ctx,
        ).catch((err: Error) => {
          throw new AssertionError(`${err.message}; conditions: ${conditionsLine(last)}`);
        });
        await waitReady(ctx, cpRef(MANAGED_NS, MANAGED_NAME()), 60_000, (o) => o.status?.adminApplicationCredential?.id !== startId);
        await sleep(5000);
        await ctx.ops.settle();
        check(mints(ctx) - startMints === 1, `expected exactly 1 re-mint, saw ${mints(ctx) - startMints}`);
      },
    },
    {
      id: 4,
      title: 'MariaDB NotReady for a minute: no child deleted or replaced, Ready again',
      needs: [1],
      async run(ctx) {
        const mark = Date.now();
        const startMints = mints(ctx);
        const uids = async () => new Map((await childrenOf(ctx, MANAGED_NS, managedUid)).map((c) => [`${c.kind}/${c.metadata.name}`, c.metadata.uid as string]));
        const before = await uids();
        const db = `MariaDB/${managed.spec.infrastructure.database.clusterRef.name}`;
        ctx.ops.world.down.add(db);
        try {
          await waitUntil('ControlPlane not Ready while MariaDB is down', async () => condition(await ctx.kube.get(cpRef(MANAGED_NS, MANAGED_NAME())), 'Ready')?.status === 'False', 60_000, ctx);
          await sleep(Math.max(0, 60_000 - (Date.now() - mark)));
        } finally {
          ctx.ops.world.down.delete(db);
        }
        await waitReady(ctx, cpRef(MANAGED_NS, MANAGED_NAME()), 120_000);
        const after = await uids();
        const changed = [...before].filter(([k, uid]) => after.get(k) !== uid).map(([k]) => k);
        check(changed.length === 0, `children deleted or replaced: ${changed.join(', ')}`);
        const deletions = ctx.rec.since(mark, (e) => e.namespace === MANAGED_NS && e.terminating && e.kind !== 'ControlPlane');
        check(deletions.length === 0, `deletions during the outage: ${deletions.map((e) => `${e.kind}/${e.name}`).join(', ')}`);
        check(mints(ctx) === startMints, `${mints(ctx) - startMints} mint(s) during the outage`);
      },
    },
    {
      id: 5,
      title: 'second ControlPlane in the namespace: parked (Ready=False/DuplicateControlPlane), the first untouched',
      needs: [1],
      async run(ctx) {
        const mark = Date.now();
        const startMints = mints(ctx);
        const twinName = `${MANAGED_NAME()}-twin`;
        const firstBefore = (await ctx.kube.get(cpRef(MANAGED_NS, MANAGED_NAME())))!;
        const twin = await ctx.kube.create({ apiVersion: GVK.ControlPlane.apiVersion, kind: 'ControlPlane', metadata: { name: twinName, namespace: MANAGED_NS }, spec: managed.spec });
        await waitUntil('twin parked', async () => condition(await ctx.kube.get(cpRef(MANAGED_NS, twinName)), 'Ready')?.reason === 'DuplicateControlPlane', 60_000, ctx);
        await sleep(5000);
        const twinChildren = await childrenOf(ctx, MANAGED_NS, twin.metadata.uid);
        check(twinChildren.length === 0, `the parked ControlPlane has children: ${twinChildren.map((c) => `${c.kind}/${c.metadata.name}`).join(', ')}`);
        const firstAfter = (await ctx.kube.get(cpRef(MANAGED_NS, MANAGED_NAME())))!;
        check(condition(firstAfter, 'Ready')?.status === 'True', `the first ControlPlane left Ready: ${conditionsLine(firstAfter)}`);
        check(firstAfter.metadata.generation === firstBefore.metadata.generation, 'the first ControlPlane spec changed');
        const touched = ctx.rec.since(mark, (e) => e.namespace === MANAGED_NS && e.kind !== 'ControlPlane' && e.kind !== 'Secret' && e.kind !== 'CredentialRotation' && (e.type !== 'MODIFIED' || e.terminating));
        check(touched.length === 0, `children of the first created/deleted: ${touched.map((e) => `${e.type} ${e.kind}/${e.name}`).join(', ')}`);
        await ctx.kube.delete(cpRef(MANAGED_NS, twinName));
        await waitUntil('twin gone', async () => !(await ctx.kube.get(cpRef(MANAGED_NS, twinName))), 60_000, ctx);
        check(mints(ctx) === startMints, `${mints(ctx) - startMints} mint(s)`);
        const first = (await ctx.kube.get(cpRef(MANAGED_NS, MANAGED_NAME())))!;
        check(condition(first, 'Ready')?.status === 'True', `the first ControlPlane left Ready after the twin went: ${conditionsLine(first)}`);
      },
    },
    {
      id: 6,
      title: 'SecretAggregate: target published; a source change reaches the target',
      needs: [1],
      async run(ctx) {
        const ns = MANAGED_NS;
        const names = childNames(MANAGED_NAME());
        await userSecret(ctx, ns, 'e2e-messaging', { transport_url: 'rabbit://e2e-a', unused: 'x' });
        const sa = {
          apiVersion: GVK.SecretAggregate.apiVersion,
          kind: 'SecretAggregate',
          metadata: { name: 'e2e-credentials', namespace: ns },
          spec: {
            sources: [{ secretRef: { name: names.dbCredentials } }, { secretRef: { name: 'e2e-messaging' }, keys: ['transport_url'] }, { secretRef: { name: names.adminAppCredential }, keys: ['clouds.yaml'] }],
            target: { name: 'e2e-all-credentials' },
          },
        };
        await ctx.kube.create(sa);
        const expected = async () => {
          const db = (await ctx.kube.get({ apiVersion: 'v1', kind: 'Secret', namespace: ns, name: names.dbCredentials }))?.data ?? {};
          const msg = (await ctx.kube.get({ apiVersion: 'v1', kind: 'Secret', namespace: ns, name: 'e2e-messaging' }))?.data ?? {};
          const ac = (await ctx.kube.get({ apiVersion: 'v1', kind: 'Secret', namespace: ns, name: names.adminAppCredential }))?.data ?? {};
          return JSON.stringify(sortKeys({ ...db, transport_url: msg.transport_url, 'clouds.yaml': ac['clouds.yaml'] }));
        };
        const target = async () => ctx.kube.get({ apiVersion: 'v1', kind: 'Secret', namespace: ns, name: 'e2e-all-credentials' });
        const saRef: Ref = { apiVersion: GVK.SecretAggregate.apiVersion, kind: 'SecretAggregate', namespace: ns, name: 'e2e-credentials' };
        await waitUntil('target published with the merged keys', async () => {
          const t = await target();
          return condition(await ctx.kube.get(saRef), 'Ready')?.status === 'True' && t && JSON.stringify(sortKeys(t.data)) === (await expected());
        }, 60_000, ctx);
        await userSecret(ctx, ns, 'e2e-messaging', { transport_url: 'rabbit://e2e-b', unused: 'x' });
        await waitUntil('the source change reaches the target', async () => {
          const t = await target();
          return t && unb64(t.data?.transport_url ?? '') === 'rabbit://e2e-b' && JSON.stringify(sortKeys(t.data)) === (await expected());
        }, 60_000, ctx);
        const t = (await target())!;
        check((t.metadata.ownerReferences ?? []).some((r: Obj) => r.kind === 'SecretAggregate' && r.controller), 'the target is not owned by the SecretAggregate');
        check(t.data.unused === undefined, 'an unselected key reached the target');
      },
    },
    {
      id: 10,
      title: 'idle converged ControlPlane for 60 s: a handful of hook calls, zero child updates, no PushSecret or ExternalSecret touched',
      needs: [1],
      async run(ctx) {
        await waitReady(ctx, cpRef(MANAGED_NS, MANAGED_NAME()), 60_000);
        await sleep(10_000); // let the last answers of the previous scenarios land
        const mark = ctx.mc.mark();
        const capturesBefore = new Set(captureFiles(ctx.h.captureDir));
        const eventsFrom = Date.now();
        await sleep(60_000);
        const calls = captureFiles(ctx.h.captureDir).filter((f) => !capturesBefore.has(f));
        const byHook = new Map<string, number>();
        for (const f of calls) {
          const hook = f.replace(/^[^-]+-\d+-/, '').replace(/\.json$/, '');
          byHook.set(hook, (byHook.get(hook) ?? 0) + 1);
        }
        const updates = mcVerbs(ctx, mark, 'Updating');
        const creates = mcVerbs(ctx, mark, 'Creating');
        const deletes = mcVerbs(ctx, mark, 'Deleting child');
        const writes = ctx.rec.since(eventsFrom, (e) => e.namespace === MANAGED_NS && e.type !== 'MODIFIED');
        // Any change of a PushSecret or ExternalSecret (metadata or ESO's status) makes ESO push or refresh again.
        const esoObjects = ctx.rec.since(eventsFrom, (e) => e.namespace === MANAGED_NS && (e.kind === 'PushSecret' || e.kind === 'ExternalSecret'));
        const summary = `${calls.length} hook calls (${[...byHook].map(([k, v]) => `${k} ${v}`).join(', ')}); Metacontroller: ${updates.length} Updating, ${creates.length} Creating, ${deletes.length} Deleting child; PushSecret/ExternalSecret updates: ${esoObjects.length}`;
        console.log(`    ${summary}`);
        const updated = [...new Set(updates.map(childLabel))].sort();
        if (updated.length > 0) console.log(`    updated children: ${updated.join(', ')}`);
        const problems: string[] = [];
        if (calls.length > 12) problems.push(`${calls.length} hook calls in 60 s (more than a handful)`);
        if (updates.length + creates.length + deletes.length > 0) problems.push(`${updates.length + creates.length + deletes.length} child writes in Metacontroller's log`);
        if (writes.length > 0) problems.push(`objects created/deleted: ${writes.map((e) => `${e.kind}/${e.name}`).join(', ')}`);
        if (esoObjects.length > 0) problems.push(`PushSecret/ExternalSecret updated while idle: ${[...new Set(esoObjects.map((e) => `${e.kind}/${e.name}`))].join(', ')}`);
        if (problems.length === 0) return;
        const onlyIssue22 = creates.length === 0 && deletes.length === 0 && writes.length === 0 && updated.every((c) => /^(ExternalSecret|PushSecret)\//.test(c));
        if (onlyIssue22 && ctx.allowIssue22) {
          throw new Skip(`ISSUE 22 (hook omits API-server defaults in ExternalSecret/PushSecret list items, so Metacontroller re-applies them on every sync): ${problems.join('; ')}`);
        }
        throw new AssertionError(`${problems.join('; ')}${onlyIssue22 ? ' — only ExternalSecret/PushSecret updated: issue 22 (set C5C3_E2E_ALLOW_ISSUE_22=1 to skip this scenario loudly)' : ''}`);
      },
    },
    {
      id: 8,
      title: 'deletion: K-ORC objects gone before Keystone and MariaDB, every credential revoked, parent gone',
      needs: [1],
      async run(ctx) {
        const mark = Date.now();
        const ns = MANAGED_NS;
        await ctx.kube.delete(cpRef(ns, MANAGED_NAME()));
        await waitUntil('ControlPlane and every child gone', async () => !(await ctx.kube.get(cpRef(ns, MANAGED_NAME()))) && (await childrenOf(ctx, ns, managedUid)).length === 0, 180_000, ctx);
        await sleep(1000);
        const events = ctx.rec.since(mark, (e) => e.namespace === ns);
        const korcGone = events.filter((e) => e.type === 'DELETED' && korcKinds.some((k) => k.kind === e.kind));
        const infra = events.filter((e) => e.terminating && ['Keystone', 'MariaDB', 'Memcached'].includes(e.kind));
        check(korcGone.length >= 5, `expected the 5 K-ORC objects deleted, saw ${korcGone.map((e) => `${e.kind}/${e.name}`).join(', ')}`);
        check(infra.length > 0, 'Keystone/MariaDB deletion not observed');
        const lastKorc = Math.max(...korcGone.map((e) => e.rv));
        const firstInfra = Math.min(...infra.map((e) => e.rv));
        check(lastKorc < firstInfra, `Keystone or infrastructure deletion (rv ${firstInfra}) began before the last K-ORC object was gone (rv ${lastKorc})`);
        const left = liveCredentialsOf(ctx, MANAGED_NAME());
        check(left.length === 0, `${left.length} application credential(s) of ${MANAGED_NAME()} not revoked`);
      },
    },
    {
      id: 7,
      title: 'brownfield ControlPlane (host/servers, passwordSecretRef, own namespace): Ready',
      async run(ctx) {
        const startMints = mints(ctx);
        await createControlPlane(ctx, BROWNFIELD);
        const cp = await waitReady(ctx, cpRef(BROWNFIELD.metadata.namespace, BROWNFIELD.metadata.name), 180_000, (o) => !!o.status?.adminApplicationCredential?.id);
        check(mints(ctx) - startMints === 1, `expected exactly 1 mint, saw ${mints(ctx) - startMints}`);
        const children = await childrenOf(ctx, BROWNFIELD.metadata.namespace, cp.metadata.uid);
        const kinds = new Set(children.map((c) => c.kind));
        check(!kinds.has('MariaDB') && !kinds.has('Memcached'), 'a brownfield ControlPlane owns a MariaDB/Memcached');
      },
    },
    {
      id: 9,
      title: 'deletion with Keystone unreachable: held at FinalizingORC, nothing detached, released or revoked; finished with every credential revoked once Keystone answers',
      needs: [7],
      async run(ctx) {
        const ns = BROWNFIELD.metadata.namespace;
        const name = BROWNFIELD.metadata.name;
        const cp = (await ctx.kube.get(cpRef(ns, name)))!;
        const live = liveCredentialsOf(ctx, name).map(([id]) => id);
        const mark = Date.now();
        const keystone = `Keystone/${childNames(name).keystone}`;
        ctx.ops.world.down.add(keystone);
        try {
          await waitUntil('Keystone reported not Ready', async () => condition(await ctx.kube.get({ apiVersion: GVK.Keystone.apiVersion, kind: 'Keystone', namespace: ns, name: childNames(name).keystone }), 'Ready')?.status === 'False', 30_000, ctx);
          await ctx.kube.delete(cpRef(ns, name));
          // The stand-in K-ORC, like the real one (scenario 20), releases nothing without Keystone.
          let held: Obj | undefined;
          await waitUntil('the teardown held at FinalizingORC, naming Keystone', async () => {
            held = await ctx.kube.get(cpRef(ns, name));
            return /is not Ready, and K-ORC releases none of its objects/.test(condition(held, 'KORCReady')?.message ?? '');
          }, 60_000, ctx);
          await ctx.ops.settle();
          await ctx.ops.settle();
          const kept = (await childrenOf(ctx, ns, cp.metadata.uid)).map((c) => `${c.kind}/${c.metadata.name}`);
          check(!!(await ctx.kube.get(cpRef(ns, name))), 'the ControlPlane was released while Keystone was unreachable');
          check(kept.includes(`ApplicationCredential/${childNames(name).adminAppCredential}`) && kept.includes(keystone), `children gone while Keystone was unreachable: ${kept.join(', ')}`);
          check(liveCredentialsOf(ctx, name).length === live.length, 'a credential was revoked although Keystone was unreachable');
          const detached = ctx.rec.since(mark, (e) => e.namespace === ns && e.detach);
          check(detached.length === 0, `detached although detaching frees nothing without Keystone: ${[...new Set(detached.map((e) => `${e.kind}/${e.name}`))].join(', ')}`);
          console.log(`    Keystone down: held at FinalizingORC, ${kept.length} children kept, nothing detached or revoked`);
        } finally {
          // The outage switch is by Kind/name (the sim's model): clear it for later scenarios.
          ctx.ops.world.down.delete(keystone);
        }
        await waitUntil('ControlPlane released and every child gone once Keystone answers', async () => !(await ctx.kube.get(cpRef(ns, name))) && (await childrenOf(ctx, ns, cp.metadata.uid)).length === 0, 180_000, ctx);
        const korcLeft = (await Promise.all(korcKinds.map((k) => ctx.kube.list(k.apiVersion, k.kind, ns)))).flat();
        check(korcLeft.length === 0, `K-ORC objects left: ${korcLeft.map((o) => `${o.kind}/${o.metadata.name}`).join(', ')}`);
        const revoked = live.filter((id) => ctx.ops.world.openstack.revoked.includes(id));
        check(revoked.length === live.length, `not revoked: ${live.filter((id) => !revoked.includes(id)).join(', ')}`);
        console.log(`    Keystone back: teardown finished, ${revoked.length} credential(s) revoked`);
      },
    },
    {
      id: 12,
      title: "real Metacontroller requests (captured, sanitised) replay to the service's recorded responses",
      needs: [1],
      async run(ctx) {
        // The last call of each hook, and the last converged ControlPlane sync: what a golden file
        // of hooks/ would hold. Each must replay (CLOCK = its clock, no seed) to its recorded answer.
        const dir = ctx.h.captureDir;
        const calls = captureFiles(dir).map((f) => ({ f, call: JSON.parse(readFileSync(join(dir, f), 'utf8')) as CapturedCall }));
        const situation = (c: CapturedCall) => {
          const res = c.response as Obj;
          if (c.hook.endsWith('/customize')) return 'related-objects';
          if (c.hook === '/controlplane/finalize') return res.finalized ? 'finalized' : 'finalizing';
          const ready = condition(res, 'Ready');
          return ready ? `${ready.status === 'True' ? 'ready' : 'not-ready'}-${ready.reason.replace(/([a-z0-9])([A-Z])/g, '$1-$2').toLowerCase()}` : 'no-ready';
        };
        const picked = new Map<string, { f: string; call: CapturedCall }>();
        for (const c of calls) {
          const key = `${c.call.hook}|${situation(c.call)}`;
          if (!picked.has(key)) picked.set(key, c);
        }
        check(picked.size >= 6, `only ${picked.size} distinct captured situations`);
        const out = join(ctx.h.paths.run, 'golden');
        const mismatched: string[] = [];
        let replayed = 0;
        for (const [key, { f, call }] of picked) {
          const [hook, what] = key.split('|') as [string, string];
          const response = await replayCaptured(call);
          replayed++;
          if (JSON.stringify(response) !== JSON.stringify(call.response)) {
            mismatched.push(`${f} (${key})`);
            continue;
          }
          const target = join(out, 'hooks', hook.slice(1).replace('/', '-'));
          mkdirSync(target, { recursive: true });
          writeFileSync(join(target, `metacontroller-4.17.2-${what}.json`), `${JSON.stringify(call, null, 2)}\n`);
        }
        console.log(`    ${replayed} situations replayed; golden candidates in ${out}`);
        check(mismatched.length === 0, `replays differ from the recorded responses: ${mismatched.join(', ')}`);
      },
    },
    {
      id: 11,
      title: 'takeover from the reference Go operator: after the cutover steps, zero deletions and zero mints',
      async run(ctx) {
        const ns = 'takeover';
        const name = 'controlplane-takeover';
        const spec = structuredClone(parse(readFileSync(join(shared, 'examples', 'controlplane-full-managed.yaml'), 'utf8')).spec);
        const created = await createControlPlane(ctx, { metadata: { name, namespace: ns }, spec });
        const uid = created.metadata.uid as string;
        await waitReady(ctx, cpRef(ns, name), 120_000, (o) => !!o.status?.adminApplicationCredential?.id);
        const startMints = mints(ctx);
        const { before, mark, mcMark } = await cutover(ctx, ns, name, uid);
        const problems: string[] = [];
        try {
          await waitReady(ctx, cpRef(ns, name), 90_000);
        } catch (err) {
          problems.push((err as Error).message);
        }
        await sleep(15_000);
        const after = new Map((await childrenOf(ctx, ns, uid)).map((c) => [`${c.kind}/${c.metadata.name}`, c.metadata.uid as string]));
        const replaced = [...before].filter(([k, u]) => after.get(k) !== u).map(([k]) => k);
        const deletions = ctx.rec.since(mark, (e) => e.namespace === ns && e.terminating && e.kind !== 'ControlPlane');
        const newMints = mints(ctx) - startMints;
        if (replaced.length > 0) problems.push(`children deleted or replaced: ${replaced.join(', ')}`);
        if (deletions.length > 0) problems.push(`deletions: ${[...new Set(deletions.map((e) => `${e.kind}/${e.name}`))].join(', ')}`);
        if (newMints > 0) problems.push(`${newMints} mint(s) after the cutover`);
        const errors = applyErrors(ctx, mcMark);
        if (errors.length > 0) problems.push(`Metacontroller apply errors: ${errors.slice(0, 3).join('; ')}`);
        const cp = await ctx.kube.get(cpRef(ns, name));
        console.log(`    after the cutover: ${conditionsLine(cp)}`);
        if (problems.length === 0) return;
        const onlyCredential = errors.length === 0 && replaced.every((k) => k.startsWith('ApplicationCredential/')) && deletions.every((e) => e.kind === 'ApplicationCredential');
        if (onlyCredential && ctx.allowAdoptPending) {
          throw new Skip(`PENDING ADOPTION (branch adopt: an AC without this service's bookkeeping annotations is re-minted instead of adopted): ${problems.join('; ')}`);
        }
        throw new AssertionError(`${problems.join('; ')}${onlyCredential ? ' — only the ApplicationCredential: the pending adoption work (branch adopt); C5C3_E2E_ALLOW_ADOPT_PENDING=1 skips this scenario loudly' : ''}`);
      },
    },
    {
      id: 15,
      title: 'scheduled rotation: the API server accepts the expiresAt the hook sets (AC and status)',
      async run(ctx) {
        const ns = 'scheduled';
        const name = 'keystone';
        const spec = structuredClone(BROWNFIELD.spec) as Obj;
        spec.korc.adminCredential.applicationCredential = { rotation: { mode: 'Scheduled' } };
        await ensureNamespace(ctx, ns);
        const cr = { apiVersion: GVK.CredentialRotation.apiVersion, kind: 'CredentialRotation', metadata: { name: 'admin-schedule', namespace: ns }, spec: { target: 'adminApplicationCredential', intervalDays: 30 } };
        const created = await ctx.kube.create(cr);
        check(created.spec.preRotationDays === 7 && created.spec.gracePeriodDays === 1, `CRD defaults not applied: ${JSON.stringify(created.spec)}`);
        // The takeover ControlPlane (scenario 11) is still running: share the one simulated admin password.
        await createControlPlane(ctx, { metadata: { name, namespace: ns }, spec }, ctx.ops.world.openstack.adminPassword);
        const cp = await waitReady(ctx, cpRef(ns, name), 180_000, (o) => !!o.status?.adminApplicationCredential?.expiresAt);
        const status = cp.status.adminApplicationCredential;
        const ac = await ctx.kube.get({ apiVersion: GVK.ApplicationCredential.apiVersion, kind: 'ApplicationCredential', namespace: ns, name: childNames(name).adminAppCredential });
        check(!!ac, 'no admin ApplicationCredential in the API server');
        check(ac!.spec.resource.expiresAt === status.expiresAt, `spec.resource.expiresAt ${ac!.spec.resource.expiresAt} is not status.expiresAt ${status.expiresAt}`);
        const lifetime = Date.parse(ac!.spec.resource.expiresAt) - Date.parse(ac!.metadata.creationTimestamp);
        check(Math.abs(lifetime - 30 * 86_400_000) < 120_000, `expiresAt is not creation + 30 days (${lifetime} ms)`);
        check(Date.parse(status.rotationEligibleAt) === Date.parse(status.expiresAt) - 7 * 86_400_000, `rotationEligibleAt ${status.rotationEligibleAt}`);
        console.log(`    AC ${ac!.metadata.name} spec.resource.expiresAt ${ac!.spec.resource.expiresAt} accepted; rotationEligibleAt ${status.rotationEligibleAt}`);
      },
    },
    ...upgradeScenarios(),
    ...realOpenStackScenarios(shared),
    ...realServicesScenarios(),
    ...realScheduledScenarios(shared),
    ...fleetScenarios(shared),
  ];
}

// ------------------------------------------------------------------------------------------------
// The real OpenStack side (issue 31): in REAL_OPENSTACK_NS the K-ORC controller manager and a real
// Keystone (per Keystone CR) do what the stand-ins model elsewhere; the checks ask Keystone itself.
const REAL_NAME = 'keystone';
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
 * Keystone's last answer while its Keystone CR still exists: `read` is polled until the CR is
 * gone (errors: Keystone stopping with it), then `done` must hold.
 */
async function lastAnswerBeforeKeystoneGoes<T>(ctx: Ctx, ksRef: Ref, what: string, read: () => Promise<T>, done: () => Promise<boolean>, timeoutMs: number): Promise<T | undefined> {
  let last: T | undefined;
  await waitUntil(what, async () => {
    if (await ctx.kube.get(ksRef)) {
      try {
        last = await read();
      } catch {
        // Keystone stopping with its CR.
      }
      return undefined;
    }
    return done();
  }, timeoutMs, ctx, 250);
  return last;
}

/** The admin's application credentials, the catalog services and the endpoints Keystone holds (ids). */
async function identityIn(keystone: KeystoneApi): Promise<{ acs: string[]; services: string[]; endpoints: string[] }> {
  return { acs: (await keystone.applicationCredentials()).map((a) => a.id), services: (await keystone.services()).map((s) => s.id), endpoints: (await keystone.endpoints()).map((e) => e.id) };
}

async function realKeystone(ctx: Ctx): Promise<KeystoneApi> {
  const ks = childNames(REAL_NAME).keystone;
  const url = ctx.keystones.urlOf(REAL_OPENSTACK_NS, ks);
  const password = ctx.keystones.adminPasswordOf(REAL_OPENSTACK_NS, ks);
  if (!url || !password) throw new AssertionError(`Keystone ${REAL_OPENSTACK_NS}/${ks} does not serve`);
  return new KeystoneApi(url, password);
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
async function korcCredential(ctx: Ctx, ns: string): Promise<{ id: string; secret: string } | undefined> {
  const doc = (await ctx.kube.get({ apiVersion: 'v1', kind: 'Secret', namespace: ns, name: 'k-orc-clouds-yaml' }))?.data?.['clouds.yaml'];
  if (!doc) return undefined;
  const auth = (Object.values((parse(unb64(doc)) as Obj)?.clouds ?? {})[0] as Obj | undefined)?.auth;
  return auth?.application_credential_id ? { id: auth.application_credential_id, secret: auth.application_credential_secret } : undefined;
}

function realOpenStackScenarios(shared: string): Scenario[] {
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
        const endpoint = await ctx.kube.get({ apiVersion: GVK.Endpoint.apiVersion, kind: 'Endpoint', namespace: ns, name: childNames(REAL_NAME).identityEndpoint });
        const services = await keystone.services();
        const endpoints = await keystone.endpoints();
        check(services.some((s) => s.id === service?.status?.id && s.type === 'identity'), `Keystone has no identity service ${service?.status?.id}`);
        const ep = endpoints.find((e) => e.id === endpoint?.status?.id);
        check(ep?.url === endpoint?.spec?.resource?.url && ep?.interface === 'public', `Keystone's endpoint ${endpoint?.status?.id}: ${JSON.stringify(ep)}`);
        console.log(`    Keystone: 1 application credential ${ac.id} (restricted), ${services.filter((s) => s.type === 'identity').length} identity service(s), endpoint ${ep?.url}`);
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
          endpoint: (await ctx.kube.get({ apiVersion: GVK.Endpoint.apiVersion, kind: 'Endpoint', namespace: ns, name: names.identityEndpoint }))?.status?.id as string,
        };
        await ctx.kube.delete(ref());
        // Poll Keystone while the Keystone CR lives: the last answer before it goes must lack all three.
        const ksRef: Ref = { apiVersion: GVK.Keystone.apiVersion, kind: 'Keystone', namespace: ns, name: names.keystone };
        const last = await lastAnswerBeforeKeystoneGoes(ctx, ksRef, 'the ControlPlane and its Keystone CR gone', () => identityIn(keystone), async () => !(await ctx.kube.get(ref())), 300_000);
        check(!!last, 'Keystone never answered during the teardown');
        const left = [last!.acs.includes(ids.ac) && `application credential ${ids.ac}`, last!.services.includes(ids.service) && `service ${ids.service}`, last!.endpoints.includes(ids.endpoint) && `endpoint ${ids.endpoint}`].filter(Boolean);
        check(left.length === 0, `still in Keystone when its CR went: ${left.join(', ')}`);
        console.log(`    Keystone's last answer before its CR went: credential, service and endpoint gone (${last!.acs.length} credentials, ${last!.services.length} services left)`);
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
        const url = ctx.keystones.urlOf(ns2, names.keystone);
        const password = ctx.keystones.adminPasswordOf(ns2, names.keystone);
        check(!!url && !!password, `Keystone ${ns2}/${names.keystone} does not serve`);
        const acs = await new KeystoneApi(url!, password!).applicationCredentials();
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
          endpoint: (await ctx.kube.get({ apiVersion: GVK.Endpoint.apiVersion, kind: 'Endpoint', namespace: ns, name: names.identityEndpoint }))?.status?.id as string,
        };
        check((await keystone.applicationCredentials()).some((a) => a.id === ids.ac && (a.access_rules ?? []).length === IDENTITY_RULES.length), `Keystone has no credential ${ids.ac} with ${IDENTITY_RULES.length} access rules`);
        await ctx.kube.delete(ref());
        // The import authenticates with the password cloud, which K-ORC keeps (its finalizer on the
        // Secret) while the import lives: it goes with the ControlPlane, while Keystone answers.
        await ctx.kube.delete({ apiVersion: GVK.Service.apiVersion, kind: 'Service', namespace: ns, name: 'identity' });
        const ksRef: Ref = { apiVersion: GVK.Keystone.apiVersion, kind: 'Keystone', namespace: ns, name: names.keystone };
        const last = await lastAnswerBeforeKeystoneGoes(ctx, ksRef, 'the ControlPlane released and every child gone (not held at FinalizingORC)', () => identityIn(keystone),
          async () => !(await ctx.kube.get(ref())) && (await childrenOf(ctx, ns, created.metadata.uid)).length === 0, 300_000);
        check(!!last, 'Keystone never answered during the teardown');
        check(!last!.acs.includes(ids.ac) && !last!.endpoints.includes(ids.endpoint), `still in Keystone when its CR went: ${JSON.stringify(last)}`);
        check(last!.services.includes(ids.service), `the identity service ${ids.service} was deleted from Keystone, not detached`);
        console.log(`    Keystone's last answer before its CR went: credential ${ids.ac} revoked, endpoint gone, identity service ${ids.service} kept (detached)`);
      },
    },
  ];
}

// ------------------------------------------------------------------------------------------------
// Release upgrades (README "Release upgrades"): a brownfield ControlPlane of its own at 2025.1 with
// a one-minute rollout deadline, upgraded to 2025.2 (every phase, Complete), then to 2026.1 while
// the stand-in Keystone operator never gets Ready with that image (World.keystoneImagesNeverReady):
// rolled back, 2025.2 held, Ready=False/RolledBack. Nothing deleted or minted on the way.
const UPGRADE = {
  metadata: { name: 'keystone', namespace: 'tenant-upgrade' },
  spec: { ...structuredClone(BROWNFIELD.spec), openStackRelease: '2025.1', rolloutDeadline: '1m' },
};

/** Patches the release and waits for `until`; the phases are every updatePhase the watch saw. */
async function rollout(ctx: Ctx, ref: Ref, release: string, until: (cp: Obj) => boolean, timeoutMs: number): Promise<{ cp: Obj; phases: string[] }> {
  const mark = Date.now();
  const seen = () => {
    const all = ctx.rec.since(mark, (e) => e.kind === 'ControlPlane' && e.namespace === ref.namespace && e.name === ref.name && e.updatePhase !== undefined).map((e) => e.updatePhase!);
    const from = all.findIndex((p) => p !== 'Idle'); // the events before the rollout began say Idle
    return from < 0 ? [] : all.slice(from).filter((p, i, a) => p !== a[i - 1]);
  };
  await ctx.kube.mergePatch(ref, { spec: { openStackRelease: release } });
  let last: Obj | undefined;
  try {
    const cp = await waitUntil(
      `rollout to ${release}`,
      async () => {
        last = await ctx.kube.get(ref);
        return seen().some((p) => p !== 'Idle') && until(last!) ? last : undefined;
      },
      timeoutMs,
      ctx,
      200,
    );
    // The watch may deliver the last events a moment after the GET saw them.
    await sleep(1000);
    return { cp, phases: seen() };
  } catch (err) {
    const phases = seen();
    throw new AssertionError(`${(err as Error).message}; phases seen: ${phases.join(' → ')}; conditions: ${conditionsLine(last)}`);
  }
}

async function keystoneImage(ctx: Ctx): Promise<string> {
  const k = await ctx.kube.get({ apiVersion: GVK.Keystone.apiVersion, kind: 'Keystone', namespace: UPGRADE.metadata.namespace, name: childNames(UPGRADE.metadata.name).keystone });
  return `${k?.spec?.image?.repository}:${k?.spec?.image?.tag}`;
}

function upgradeScenarios(): Scenario[] {
  const ns = UPGRADE.metadata.namespace;
  const deletions = (ctx: Ctx, mark: number) => ctx.rec.since(mark, (e) => e.namespace === ns && e.terminating && e.kind !== 'ControlPlane');
  return [
    {
      id: 13,
      title: 'release upgrade 2025.1 → 2025.2: Validating … Verifying → Complete → Idle, no deletion, no mint',
      async run(ctx) {
        await createControlPlane(ctx, UPGRADE, ctx.ops.world.openstack.adminPassword); // one simulated OpenStack: share its admin password
        await waitReady(ctx, cpRef(ns, UPGRADE.metadata.name), 180_000, (o) => !!o.status?.adminApplicationCredential?.id);
        check((await keystoneImage(ctx)) === 'ghcr.io/c5c3/keystone:2025.1', 'Keystone does not run 2025.1 after the install');
        const startMints = mints(ctx);
        const mark = Date.now();
        const { cp, phases } = await rollout(ctx, cpRef(ns, UPGRADE.metadata.name), '2025.2', (o) => o.status?.updatePhase === 'Idle' && o.status?.lastUpdate?.result === 'Complete' && condition(o, 'Ready')?.status === 'True', 180_000);
        console.log(`    phases: ${phases.join(' → ')}`);
        const want = ['Validating', 'UpdatingInfra', 'UpdatingKeystone', 'UpdatingServices', 'Verifying', 'Complete', 'Idle'];
        check(JSON.stringify(phases) === JSON.stringify(want), `phases ${phases.join(' → ')}, not ${want.join(' → ')}`);
        check(cp.status.services?.[0]?.release === '2025.2', `services[keystone].release is ${cp.status.services?.[0]?.release}`);
        check((await keystoneImage(ctx)) === 'ghcr.io/c5c3/keystone:2025.2', `Keystone runs ${await keystoneImage(ctx)}`);
        check(mints(ctx) === startMints, `${mints(ctx) - startMints} mint(s) during the upgrade`);
        const gone = deletions(ctx, mark);
        check(gone.length === 0, `deleted during the upgrade: ${[...new Set(gone.map((e) => `${e.kind}/${e.name}`))].join(', ')}`);
      },
    },
    {
      id: 14,
      title: 'failing upgrade 2025.2 → 2026.1 (Keystone never Ready with it): rolled back at the 1m deadline, 2025.2 held, RolledBack; then deleted',
      needs: [13],
      async run(ctx) {
        const image = 'ghcr.io/c5c3/keystone:2026.1';
        ctx.ops.world.keystoneImagesNeverReady.add(image);
        const startMints = mints(ctx);
        const mark = Date.now();
        try {
          const { cp, phases } = await rollout(ctx, cpRef(ns, UPGRADE.metadata.name), '2026.1', (o) => o.status?.updatePhase === 'Idle' && condition(o, 'Ready')?.reason === 'RolledBack' && condition(o, 'KeystoneReady')?.status === 'True', 240_000);
          console.log(`    phases: ${phases.join(' → ')}; Ready: ${condition(cp, 'Ready')?.message}`);
          for (const p of ['UpdatingKeystone', 'RollingBack']) check(phases.includes(p), `never ${p}: ${phases.join(' → ')}`);
          check(!phases.includes('Complete'), 'reported Complete');
          check(cp.status.lastUpdate?.result === 'RolledBack' && cp.status.lastUpdate?.reason === 'UpdateDeadlineExceeded', `lastUpdate ${JSON.stringify(cp.status.lastUpdate)}`);
          check(cp.status.services?.[0]?.release === '2025.2', `services[keystone].release is ${cp.status.services?.[0]?.release}`);
          check((await keystoneImage(ctx)) === 'ghcr.io/c5c3/keystone:2025.2', `Keystone runs ${await keystoneImage(ctx)}`);
          check(mints(ctx) === startMints, `${mints(ctx) - startMints} mint(s) during the rollout`);
          const gone = deletions(ctx, mark);
          check(gone.length === 0, `deleted during the rollout: ${[...new Set(gone.map((e) => `${e.kind}/${e.name}`))].join(', ')}`);
        } finally {
          ctx.ops.world.keystoneImagesNeverReady.delete(image);
        }
        const cp = (await ctx.kube.get(cpRef(ns, UPGRADE.metadata.name)))!;
        await ctx.kube.delete(cpRef(ns, UPGRADE.metadata.name));
        await waitUntil('ControlPlane deleted and every child gone', async () => !(await ctx.kube.get(cpRef(ns, UPGRADE.metadata.name))) && (await childrenOf(ctx, ns, cp.metadata.uid)).length === 0, 180_000, ctx);
      },
    },
  ];
}

const sortKeys = (o: Obj | undefined) => o && Object.fromEntries(Object.keys(o).sort().map((k) => [k, o[k]]));

// ------------------------------------------------------------------------------------------------
// Services beside Keystone against the real Keystone and K-ORC (issue 32): Placement, Glance with
// one S3 backend and a managed bus (the ControlPlane of hooks/' services run) (stand-in operators for those three and the infrastructure; the
// service users, role assignments and catalog rows are K-ORC's, in Keystone's database).
const SERVICES_SPEC: Obj = HOOKS_SERVICES.spec;
const SERVICES = [
  { name: 'placement', type: 'placement', kind: 'Placement' },
  { name: 'glance', type: 'image', kind: 'Glance' },
] as const;

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

function realServicesScenarios(): Scenario[] {
  const ns = REAL_SERVICES_NS;
  const ref = cpRef(ns, REAL_NAME);
  const names = childNames(REAL_NAME);
  const keystoneOf = (ctx: Ctx) => {
    const url = ctx.keystones.urlOf(ns, names.keystone);
    const password = ctx.keystones.adminPasswordOf(ns, names.keystone);
    if (!url || !password) throw new AssertionError(`Keystone ${ns}/${names.keystone} does not serve`);
    return new KeystoneApi(url, password);
  };
  return [
    {
      id: 21,
      title: 'real Keystone and K-ORC: Placement, Glance (one S3 backend) and a managed bus converge; service users, roles and catalog rows in Keystone; release upgrade through UpdatingServices; deletion removes them from Keystone',
      async run(ctx) {
        await ensureNamespace(ctx, ns);
        for (const s of SERVICES) await ctx.bao.put(serviceRemoteKeys(ns, REAL_NAME, s.name).db, { username: s.name, password: secretValue() });
        await userSecret(ctx, ns, 'glance-s3-credentials', { accessKey: 'e2e', secretKey: secretValue() });
        await createControlPlane(ctx, { metadata: { name: REAL_NAME, namespace: ns }, spec: structuredClone(SERVICES_SPEC) });
        const cp = await waitReady(ctx, ref, 420_000, (o) => condition(o, 'ServicesReady')?.status === 'True');
        check(JSON.stringify(cp.status.services?.map((s: Obj) => `${s.name}:${s.ready}:${s.release}`)) === JSON.stringify(['keystone:true:2025.2', 'placement:true:2025.2', 'glance:true:2025.2']), `status.services ${JSON.stringify(cp.status.services)}`);
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
          for (const e of [n.publicEndpoint, n.internalEndpoint]) {
            const obj = await ctx.kube.get({ apiVersion: GVK.Endpoint.apiVersion, kind: 'Endpoint', namespace: ns, name: e });
            want.push(`${obj?.spec?.resource?.interface} ${obj?.spec?.resource?.url}`);
          }
          const got = endpoints.filter((e) => e.service_id === row!.id).map((e) => `${e.interface} ${e.url}`).sort();
          check(JSON.stringify(got) === JSON.stringify(want.sort()), `${s.type} endpoints in Keystone: ${got.join(', ')}; expected ${want.join(', ')}`);
          lines.push(`user ${s.name} (service@service, password accepted), ${s.type} ${got.join(' + ')}`);
        }
        console.log(`    Keystone: ${lines.join('; ')}`);

        // A service user's password rotated (CredentialRotation target serviceUserPassword): OpenBao
        // and Keystone hold the new one, Keystone refuses the old one, only the old Secret is deleted.
        {
          const n = serviceChildNames(REAL_NAME, 'placement');
          const next = passwordSecretName(n.password, 2);
          const passwordOf = async (name: string) => {
            const raw = (await ctx.kube.get({ apiVersion: 'v1', kind: 'Secret', namespace: ns, name }))?.data?.[SERVICE_PASSWORD_KEY];
            return raw === undefined ? undefined : unb64(raw);
          };
          const old = (await passwordOf(n.password))!;
          const startMints = mints(ctx);
          const mark = Date.now();
          const crRef: Ref = { apiVersion: GVK.CredentialRotation.apiVersion, kind: 'CredentialRotation', namespace: ns, name: 'rotate-placement-password' };
          await ctx.kube.create({ apiVersion: crRef.apiVersion, kind: crRef.kind, metadata: { name: crRef.name, namespace: ns }, spec: { target: 'serviceUserPassword', targetServiceUser: n.user, reMint: true } });
          await waitUntil('CredentialRotation RotationComplete=True', async () => condition(await ctx.kube.get(crRef), 'RotationComplete')?.status === 'True', 180_000, ctx);
          await waitReady(ctx, ref, 180_000, (o) => condition(o, 'PlacementReady')?.status === 'True');
          await waitUntil(`Secret ${n.password} released`, async () => !(await ctx.kube.get({ apiVersion: 'v1', kind: 'Secret', namespace: ns, name: n.password })), 120_000, ctx);
          const fresh = await passwordOf(next);
          check(fresh !== undefined && fresh !== old, `no new password in Secret ${next}`);
          const placement = await ctx.kube.get({ apiVersion: GVK.Placement.apiVersion, kind: 'Placement', namespace: ns, name: n.cr });
          check(placement?.spec?.serviceUser?.secretRef?.name === next, `Placement authenticates with ${placement?.spec?.serviceUser?.secretRef?.name}`);
          check(await keystone.acceptsPassword('placement', fresh!, 'service'), 'Keystone does not accept the new placement password');
          check(!(await keystone.acceptsPassword('placement', old, 'service')), 'Keystone still accepts the old placement password');
          const backup = await ctx.bao.get(serviceRemoteKeys(ns, REAL_NAME, 'placement').password);
          check(backup?.[SERVICE_PASSWORD_KEY] === fresh, 'OpenBao does not hold the new placement password');
          check(mints(ctx) === startMints, 'a mint during the password rotation');
          const gone = [...new Set(ctx.rec.since(mark, (e) => e.namespace === ns && e.terminating).map((e) => `${e.kind}/${e.name}`))];
          check(JSON.stringify(gone) === JSON.stringify([`Secret/${n.password}`]), `deleted during the password rotation: ${gone.join(', ')}`);
          console.log(`    password rotation: Secret ${next} in OpenBao and Keystone (accepted), the old password refused, Secret ${n.password} released, nothing else deleted, ${Math.round((Date.now() - mark) / 1000)} s`);
        }

        // Day 2: the release moves Keystone first, then the services.
        const startMints = mints(ctx);
        const mark = Date.now();
        const { phases } = await rollout(ctx, ref, '2026.1', (o) => o.status?.updatePhase === 'Idle' && o.status?.lastUpdate?.result === 'Complete' && condition(o, 'Ready')?.status === 'True', 420_000);
        console.log(`    phases: ${phases.join(' → ')}`);
        for (const p of ['UpdatingKeystone', 'UpdatingServices', 'Complete']) check(phases.includes(p), `never ${p}: ${phases.join(' → ')}`);
        check(phases.indexOf('UpdatingKeystone') < phases.indexOf('UpdatingServices'), `services before Keystone: ${phases.join(' → ')}`);
        for (const s of SERVICES) {
          const o = await ctx.kube.get({ apiVersion: GVK[s.kind].apiVersion, kind: s.kind, namespace: ns, name: serviceChildNames(REAL_NAME, s.name).cr });
          check(o?.spec?.image?.tag === '2026.1' && o?.spec?.openStackRelease === '2026.1', `${s.kind} at ${o?.spec?.image?.tag}/${o?.spec?.openStackRelease}`);
        }
        check(mints(ctx) === startMints, 'a mint during the upgrade');
        const gone = ctx.rec.since(mark, (e) => e.namespace === ns && e.terminating && e.kind !== 'ControlPlane');
        check(gone.length === 0, `deleted during the upgrade: ${[...new Set(gone.map((e) => `${e.kind}/${e.name}`))].join(', ')}`);
        const after = await servicesIn(keystone);
        check(after.users.length === 2 && after.services.length === 2 && after.endpoints.length === 4, `in Keystone after the upgrade: ${JSON.stringify(after)}`);

        // Deletion: the services' users, catalog rows and endpoints leave Keystone before its CR goes.
        const uid = cp.metadata.uid as string;
        await ctx.kube.delete(ref);
        const ksRef: Ref = { apiVersion: GVK.Keystone.apiVersion, kind: 'Keystone', namespace: ns, name: names.keystone };
        const answer = await lastAnswerBeforeKeystoneGoes(ctx, ksRef, 'the ControlPlane and every child gone', async () => ({ ...(await servicesIn(keystone)), projects: (await keystone.projects()).map((p) => p.name as string) }),
          async () => !(await ctx.kube.get(ref)) && (await childrenOf(ctx, ns, uid)).length === 0, 420_000);
        const last: ServicesInKeystone | undefined = answer;
        const projects = answer?.projects ?? [];
        check(!!last, 'Keystone never answered during the teardown');
        check(last!.users.length + last!.services.length + last!.endpoints.length === 0, `still in Keystone when its CR went: ${JSON.stringify(last)}`);
        console.log(`    Keystone's last answer before its CR went: no service user, catalog service or endpoint of Placement or Glance; the service project ${projects.includes('service') ? 'kept (detached)' : 'gone'}`);
      },
    },
  ];
}

// ------------------------------------------------------------------------------------------------
// Scheduled rotation against the real Keystone and K-ORC (issue 31). A day cannot pass in a test:
// the scenario moves the hooks' clock with the service's replay setting CLOCK (README "Replaying a
// hook call": a fixed instant, never for a cluster), restarting the service past the rotation
// point, and back to the wall clock afterwards. Keystone, K-ORC and ESO keep real time; the
// expiries the hook sets are in the future for Keystone either way.

/** Keystone's expires_at (UTC, no zone, microseconds) in ms since the epoch. */
const keystoneTime = (t: string | null | undefined) => (t ? Date.parse(/[zZ]|[+-]\d\d:\d\d$/.test(t) ? t : `${t}Z`) : NaN);

function realScheduledScenarios(shared: string): Scenario[] {
  const ns = REAL_SCHEDULED_NS;
  const ref = cpRef(ns, REAL_NAME);
  const names = childNames(REAL_NAME);
  return [
    {
      id: 23,
      title: 'real Keystone and K-ORC: scheduled rotation: Keystone holds the expiresAt the hook set; past the rotation point the replacement is minted and published before the old credential is revoked, never zero valid credentials',
      async run(ctx) {
        await ensureNamespace(ctx, ns);
        const example = parse(readFileSync(join(shared, 'examples', 'controlplane-full-managed.yaml'), 'utf8')) as Obj;
        const spec = structuredClone(example.spec) as Obj;
        spec.korc = { ...(spec.korc ?? {}), adminCredential: { ...(spec.korc?.adminCredential ?? {}), applicationCredential: { ...(spec.korc?.adminCredential?.applicationCredential ?? {}), rotation: { mode: 'Scheduled' } } } };
        await ctx.kube.create({ apiVersion: GVK.CredentialRotation.apiVersion, kind: 'CredentialRotation', metadata: { name: 'admin-schedule', namespace: ns }, spec: { target: 'adminApplicationCredential', intervalDays: 1, preRotationDays: 0, gracePeriodDays: 0 } });
        const created = await createControlPlane(ctx, { metadata: { name: REAL_NAME, namespace: ns }, spec });
        const cp = await waitReady(ctx, ref, 300_000, (o) => !!o.status?.adminApplicationCredential?.expiresAt && !!o.status?.adminApplicationCredential?.id);
        const first = cp.status.adminApplicationCredential;
        const url = ctx.keystones.urlOf(ns, names.keystone);
        const password = ctx.keystones.adminPasswordOf(ns, names.keystone);
        check(!!url && !!password, `Keystone ${ns}/${names.keystone} does not serve`);
        const keystone = new KeystoneApi(url!, password!);
        const expiresIn = async (id: string) => keystoneTime((await keystone.applicationCredentials()).find((a) => a.id === id)?.expires_at);
        const firstExpiry = await expiresIn(first.id);
        check(Math.abs(firstExpiry - Date.parse(first.expiresAt)) < 1000, `Keystone's expires_at for ${first.id} is ${new Date(firstExpiry).toISOString()}, the hook set ${first.expiresAt}`);
        console.log(`    Keystone: credential ${first.id} expires_at ${new Date(firstExpiry).toISOString()} as set; rotation point ${first.rotationEligibleAt}`);

        // Past the rotation point: the hooks' clock moves; Keystone is polled all along.
        const clock = new Date(Date.parse(first.rotationEligibleAt) + 60_000).toISOString();
        const seen: { ids: string[]; korc: string | undefined }[] = [];
        let polling = true;
        const poller = (async () => {
          while (polling) {
            try {
              const ids = (await keystone.applicationCredentials()).map((a) => a.id as string);
              seen.push({ ids, korc: (await korcCredential(ctx, ns))?.id });
            } catch (err) {
              seen.push({ ids: [], korc: `error: ${(err as Error).message}` });
            }
            await sleep(250);
          }
        })();
        let next: Obj | undefined;
        try {
          await ctx.h.restartService({ CLOCK: clock });
          next = await waitUntil('a replacement published and the old credential gone from Keystone', async () => {
            const now = (await ctx.kube.get(ref))?.status?.adminApplicationCredential;
            if (!now?.id || now.id === first.id) return undefined;
            const cred = await korcCredential(ctx, ns);
            const ids = (await keystone.applicationCredentials()).map((a) => a.id as string);
            return cred?.id === now.id && !ids.includes(first.id) ? now : undefined;
          }, 300_000, ctx);
        } finally {
          polling = false;
          await poller;
          await ctx.h.restartService();
        }
        const empty = seen.filter((s) => s.ids.length === 0);
        check(empty.length === 0, `Keystone held no admin credential in ${empty.length} of ${seen.length} polls`);
        const unusable = seen.filter((s) => !s.korc || !s.ids.includes(s.korc));
        check(unusable.length === 0, `k-orc-clouds-yaml named a credential Keystone did not hold in ${unusable.length} of ${seen.length} polls: ${JSON.stringify(unusable.slice(0, 3))}`);
        // Make before break, exactly (etcd revision order): the replacement had its id in Keystone
        // before the old credential's object began terminating (K-ORC revokes only then).
        const acEvents = ctx.rec.events.filter((e) => e.kind === 'ApplicationCredential' && e.namespace === ns);
        const minted = acEvents.find((e) => e.orcId === next!.id);
        const revoking = acEvents.find((e) => e.orcId === first.id && e.terminating);
        check(!!minted && !!revoking && minted.rv < revoking.rv, `the replacement ${next!.id} was not minted before ${first.id} began to be revoked (revisions ${minted?.rv} and ${revoking?.rv})`);
        const cred = await korcCredential(ctx, ns);
        check(!!cred && (await keystone.acceptsApplicationCredential(cred.id, cred.secret)), 'Keystone does not accept the replacement in k-orc-clouds-yaml');
        const nextExpiry = await expiresIn(next!.id);
        check(Math.abs(nextExpiry - Date.parse(next!.expiresAt)) < 1000 && Math.abs(Date.parse(next!.expiresAt) - (Date.parse(clock) + 86_400_000)) < 120_000, `the replacement expires at ${new Date(nextExpiry).toISOString()} in Keystone, ${next!.expiresAt} by the hook (clock ${clock} + 1 day)`);
        console.log(`    clock moved to ${clock}: ${next!.id} minted beside ${first.id}, published, then ${first.id} revoked; ${seen.length} polls, never fewer than 1 credential, k-orc-clouds-yaml always a live one; Keystone expires_at ${new Date(nextExpiry).toISOString()} as set`);
        await ctx.kube.delete(ref);
        await waitUntil('ControlPlane deleted and every child gone', async () => !(await ctx.kube.get(ref)) && (await childrenOf(ctx, ns, created.metadata.uid)).length === 0, 300_000, ctx);
      },
    },
    {
      id: 24,
      title: 'real Keystone and K-ORC: takeover from the reference operator: the credential Keystone holds is the same before and after the cutover, nothing deleted or replaced',
      async run(ctx) {
        const tns = REAL_TAKEOVER_NS;
        const tref = cpRef(tns, REAL_NAME);
        const example = parse(readFileSync(join(shared, 'examples', 'controlplane-full-managed.yaml'), 'utf8')) as Obj;
        const created = await createControlPlane(ctx, { metadata: { name: REAL_NAME, namespace: tns }, spec: structuredClone(example.spec) });
        const uid = created.metadata.uid as string;
        const cp = await waitReady(ctx, tref, 300_000, (o) => !!o.status?.adminApplicationCredential?.id);
        const url = ctx.keystones.urlOf(tns, names.keystone);
        const password = ctx.keystones.adminPasswordOf(tns, names.keystone);
        check(!!url && !!password, `Keystone ${tns}/${names.keystone} does not serve`);
        const keystone = new KeystoneApi(url!, password!);
        const held = async () => (await keystone.applicationCredentials()).map((a) => a.id as string).sort();
        const beforeIds = await held();
        check(beforeIds.length === 1 && beforeIds[0] === cp.status.adminApplicationCredential.id, `Keystone holds ${JSON.stringify(beforeIds)} before the cutover, status says ${cp.status.adminApplicationCredential.id}`);
        const { before, mark, mcMark } = await cutover(ctx, tns, REAL_NAME, uid);
        await waitReady(ctx, tref, 120_000);
        // Long enough for a re-mint to show: K-ORC mints within seconds (scenario 16).
        await sleep(15_000);
        const after = new Map((await childrenOf(ctx, tns, uid)).map((c) => [`${c.kind}/${c.metadata.name}`, c.metadata.uid as string]));
        const replaced = [...before].filter(([k, u]) => after.get(k) !== u).map(([k]) => k);
        check(replaced.length === 0, `children deleted or replaced: ${replaced.join(', ')}`);
        const deletions = ctx.rec.since(mark, (e) => e.namespace === tns && e.terminating && e.kind !== 'ControlPlane');
        check(deletions.length === 0, `deletions: ${[...new Set(deletions.map((e) => `${e.kind}/${e.name}`))].join(', ')}`);
        const errors = applyErrors(ctx, mcMark);
        check(errors.length === 0, `Metacontroller apply errors: ${errors.slice(0, 3).join('; ')}`);
        const afterIds = await held();
        check(JSON.stringify(afterIds) === JSON.stringify(beforeIds), `Keystone holds ${JSON.stringify(afterIds)} after the cutover, ${JSON.stringify(beforeIds)} before`);
        const cred = await korcCredential(ctx, tns);
        check(cred?.id === beforeIds[0] && (await keystone.acceptsApplicationCredential(cred!.id, cred!.secret)), 'k-orc-clouds-yaml does not hold the same credential, accepted by Keystone');
        console.log(`    Keystone: credential ${beforeIds[0]} before and after the cutover, the only one, accepted; ${before.size} children kept`);
        await ctx.kube.delete(tref);
        await waitUntil('ControlPlane deleted and every child gone', async () => !(await ctx.kube.get(tref)) && (await childrenOf(ctx, tns, uid)).length === 0, 300_000, ctx);
      },
    },
  ];
}

// ------------------------------------------------------------------------------------------------
// A fleet on the real API server (issue 34 item 5): FLEET_SIZE ControlPlanes, one per namespace,
// created at once and deleted at once, with the stand-in Keystone and K-ORC (a real Keystone per
// ControlPlane would be the heavier part of the run). It asserts on objects and counts; the figures
// it prints (the service's CPU, hook latency, idle CPU, memo hit rates) decide nothing.
const FLEET_SIZE = 30;
const FLEET_NAME = 'controlplane-keystone';
const fleetNamespaces = () => Array.from({ length: FLEET_SIZE }, (_, i) => `fleet-${String(i + 1).padStart(2, '0')}`);
/**
 * The memos of values a converged ControlPlane's sync finds again (sized for
 * FLEET_MEMO_CONTROLPLANES): the clouds.yaml rendered and parsed, the Secret values its answer is
 * redacted against. Every resync of the fleet looks them up, whatever the order.
 */
const RESYNC_CONTENT_MEMOS = [MEMO.cloudsYaml, MEMO.secretValues];
/**
 * The memos that also hit over a fleet's lifecycle: those above, and the children's parsed
 * last-applied annotations (read again at each finalize step). The memos of a whole request (body,
 * request reading, stage results) keep a body only when it comes again within the bodies their
 * bound holds (json-body.ts): a fleet this size resyncing in turn is past it, so their hits are
 * printed, and only their lookups asserted.
 */
const LIFECYCLE_HIT_MEMOS = [MEMO.lastApplied, ...RESYNC_CONTENT_MEMOS];

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

function fleetScenarios(shared: string): Scenario[] {
  return [
    {
      id: 25,
      title: `fleet of ${FLEET_SIZE} ControlPlanes (one per namespace) created at once: all Ready, one credential each; deleted at once: every one gone, every credential revoked, nothing else lost; the memo hit counters move`,
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
  const mcUrl = ctx.h.metacontrollerMetrics;
  // The service's CPU from /proc; where there is none, its own process_cpu_seconds_total (says so).
  const cpuSource = procCpuSeconds(pid!) !== undefined ? '/proc' : 'process_cpu_seconds_total';
  const cpu = async () => procCpuSeconds(pid!) ?? total(await scrape(svcUrl), 'process_cpu_seconds_total');
  const listCps = async () => (await ctx.kube.list(GVK.ControlPlane.apiVersion, 'ControlPlane')).filter((o) => inFleet.has(o.metadata.namespace));
  const readyWithCredential = (o: Obj) => condition(o, 'Ready')?.status === 'True' && condition(o, 'Ready')?.reason === 'AllReady' && !!o.status?.adminApplicationCredential?.id;
  const snapshot = async () => ({ at: Date.now(), cpu: await cpu(), svc: await scrape(svcUrl), mc: mcUrl ? await scrape(mcUrl) : [] });

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
  // The counters: a converged fleet's resyncs find their values in the content memos. Waited for
  // (not timed) beyond the window on a machine too busy to resync in it.
  const hits = (samples: Sample[], memo: string, result = 'hit') => total(samples, 'c5c3_hooks_memo_lookups_total', { memo, result });
  const lookups = (samples: Sample[], memo: string) => hits(samples, memo) + hits(samples, memo, 'miss');
  let idleEnd = s2.svc;
  await waitUntil(
    `the memo hit counters of ${RESYNC_CONTENT_MEMOS.join(', ')} move while the fleet is converged`,
    async () => {
      idleEnd = await scrape(svcUrl);
      return RESYNC_CONTENT_MEMOS.every((m) => hits(idleEnd, m) > hits(s2a.svc, m));
    },
    (resync + 120) * 1000,
    ctx,
    1000,
  ).catch((err: Error) => {
    throw new AssertionError(`${err.message}: ${RESYNC_CONTENT_MEMOS.map((m) => `${m} ${hits(s2a.svc, m)} → ${hits(idleEnd, m)} hits`).join(', ')}`);
  });
  const stillReady = (await listCps()).filter(readyWithCredential).length;
  check(stillReady === FLEET_SIZE, `${FLEET_SIZE - stillReady} ControlPlane(s) left Ready while the fleet was idle`);

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
  // Every memo is looked up by the fleet's calls; the content memos also hit.
  const unused = Object.values(MEMO).filter((m) => lookups(s3.svc, m) <= lookups(s0.svc, m));
  check(unused.length === 0, `memo lookup counters did not move: ${unused.join(', ')}`);
  const noHits = LIFECYCLE_HIT_MEMOS.filter((m) => hits(s3.svc, m) <= hits(s0.svc, m));
  check(noHits.length === 0, `memo hit counters did not move over the fleet's lifecycle: ${noHits.join(', ')}`);
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
    const svc = histogramDelta(s0.svc, s3.svc, 'c5c3_hooks_request_duration_seconds', { hook: `controlplane/${hook}` });
    const mc = histogramDelta(s0.mc, s3.mc, `metacontroller_${hook}_request_duration_histogram_seconds`, { controller_name: 'c5c3-controlplane' });
    console.log(`    controlplane/${hook} latency, create → gone: as Metacontroller sees it ${mcUrl ? latencyLine(mc) : 'NOT MEASURED (no metrics address)'}; in the service ${latencyLine(svc)}`);
  }
  const rates = Object.values(MEMO).map((m) => {
    const h = hits(s3.svc, m) - hits(s0.svc, m);
    const n = h + hits(s3.svc, m, 'miss') - hits(s0.svc, m, 'miss');
    return n === 0 ? `${m} not looked up` : `${m} ${((100 * h) / n).toFixed(0)} % of ${n}`;
  });
  console.log(`    memo hits, create → gone: ${rates.join(', ')}; while idle: ${Object.values(MEMO).map((m) => `${m} ${hits(idleEnd, m) - hits(s2a.svc, m)} of ${lookups(idleEnd, m) - lookups(s2a.svc, m)}`).join(', ')}`);
  console.log(`    a converged sync request is about ${(bodyChars / 1024).toFixed(0)} KiB here (the controller, the parent, its children and related objects as the API server serves them): the body memo keeps a body seen again within ${BODY_MEMO.maxKeyBytes / 1024} KiB of other bodies, about ${Math.floor(BODY_MEMO.maxKeyBytes / bodyChars)} ControlPlanes resyncing in turn`);
}
