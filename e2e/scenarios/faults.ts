// Faults with the real components (issue 41 item 2): each scenario stops, restarts, kills or empties
// one of them, or edits and deletes children by hand, while a ControlPlane lives or changes, and
// asserts on counts and objects, never on durations: what was minted (the stand-in OpenStack's
// record, or Keystone itself), what was deleted and updated (the API server's watch, e2e/recorder.ts),
// and that the work finishes once the component is back.
//
// In `openstack-real-faults` (real Keystone and K-ORC, Placement): the kube-apiserver restarted
// during an admin password rotation, Keystone stopped during a service-password rotation, the
// service killed during the teardown. In `faults` (stand-in OpenStack, Placement and Glance):
// children edited and deleted by hand, ESO stopped during a rotation, OpenBao restarted empty. In
// `faults-scheduled` (stand-ins): the service killed during a scheduled rotation. Metacontroller
// restarted with a fleet converged is a step of the fleet scenario (fleet.ts), which has the fleet.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import type { Obj } from '../../src/sim/cluster.js';
import { GVK } from '../../src/k8s/kinds.js';
import { SERVICE_PASSWORD_KEY, childNames, remoteKeys, serviceChildNames, serviceRemoteKeys } from '../../src/controlplane/names.js';
import { passwordSecretName } from '../../src/controlplane/services/password-rotation.js';
import { placement } from '../../src/api/services/index.js';
import { pushedPaths } from '../../src/controlplane/openbao-backups.js';
import { SERVICES as HOOKS_SERVICES } from '../../src/cli/hook-payloads.js';
import type { Ref } from '../kube.js';
import type { KeystoneApi } from '../keystone.js';
import type { Event } from '../recorder.js';
import type { Ctx, Scenario } from './support.js';
import {
  AssertionError, b64, check, childrenOf, condition, conditionsLine, cpRef, createControlPlane, ensureNamespace, forceRefresh, korcKinds, liveCredentialsOf, mints,
  secretValue, sleep, unb64, userSecret, waitReady, waitUntil, REAL_FAULTS_NS,
} from './support.js';
import { REAL_NAME, korcCredential, answerAsKeystoneGoes } from './real-keystone.js';
import { keystoneApiOf } from './support.js';
import { BROWNFIELD } from './managed.js';

export const FAULTS_NS = 'faults';
const SCHEDULED_NS = 'faults-scheduled';
const NAME = 'keystone';
const names = childNames(NAME);
const secretRef = (namespace: string, name: string): Ref => ({ apiVersion: 'v1', kind: 'Secret', namespace, name });
const esRef = (namespace: string, name: string): Ref => ({ apiVersion: GVK.ExternalSecret.apiVersion, kind: 'ExternalSecret', namespace, name });
const psRef = (namespace: string, name: string): Ref => ({ apiVersion: GVK.PushSecret.apiVersion, kind: 'PushSecret', namespace, name });

/** The full managed example with Placement (and, for the stand-in world, Glance with one S3 store). */
function servicesSpec(shared: string, glance: boolean): Obj {
  const spec = structuredClone((parse(readFileSync(join(shared, 'examples', 'controlplane-full-managed.yaml'), 'utf8')) as Obj).spec);
  spec.services = { ...spec.services, placement: { replicas: 2 }, ...(glance ? { glance: structuredClone(HOOKS_SERVICES.spec.services.glance) } : {}) };
  return spec;
}

async function createWithServices(ctx: Ctx, ns: string, spec: Obj, adminPassword?: string): Promise<Obj> {
  await ensureNamespace(ctx, ns);
  for (const svc of Object.keys(spec.services).filter((s) => s !== 'keystone')) await ctx.bao.put(serviceRemoteKeys(ns, NAME, svc).db, { username: svc, password: secretValue() });
  if (spec.services.glance) await userSecret(ctx, ns, 'glance-s3-credentials', { 'access-key-id': 'e2e', 'secret-access-key': secretValue() });
  return createControlPlane(ctx, { metadata: { name: NAME, namespace: ns }, spec }, adminPassword);
}

/** Metacontroller's `Sync` log lines since `from` for ControlPlanes of `namespaces` (every parent sync it starts). */
function syncsSince(ctx: Ctx, from: number, namespaces: ReadonlySet<string>): Map<string, number> {
  const out = new Map<string, number>();
  for (const l of ctx.mc.json(from)) {
    if (l.msg !== 'Sync' || l.logger !== 'composite.c5c3-controlplane' || !namespaces.has(l.object?.namespace)) continue;
    out.set(l.object.namespace, (out.get(l.object.namespace) ?? 0) + 1);
  }
  return out;
}

/** Waits until Metacontroller started `n` more syncs of the ControlPlane in `ns` (its resync is 20 s in the suite): the hooks answered the state as it is, at least n−1 times completely. */
async function syncedAgain(ctx: Ctx, ns: string, n: number, what: string): Promise<void> {
  const from = ctx.mc.mark();
  await waitUntil(`${what}: ${n} syncs of ControlPlane ${ns}/${NAME}`, async () => (syncsSince(ctx, from, new Set([ns])).get(ns) ?? 0) >= n, (n + 2) * Math.max(ctx.h.resyncSeconds, 10) * 1000 + 60_000, ctx);
}

const deletionsSince = (ctx: Ctx, mark: number, ns: string, except: (e: Event) => boolean = () => false) =>
  [...new Set(ctx.rec.since(mark, (e) => e.namespace === ns && e.terminating && e.kind !== 'ControlPlane' && e.kind !== 'CredentialRotation' && !except(e)).map((e) => `${e.kind}/${e.name}`))];

/** The data of a Secret now (undefined when absent). */
const dataOf = async (ctx: Ctx, ns: string, name: string) => (await ctx.kube.get(secretRef(ns, name)))?.data as Record<string, string> | undefined;

/** The admin API of the faults' real Keystone. */
const keystoneOf = (ctx: Ctx, ns: string) => keystoneApiOf(ctx, ns, REAL_NAME);

/**
 * The ids of the admin's application credentials in a real Keystone, logging in again (with the
 * password the instance was bootstrapped with last) when the token stops working: a password
 * rotation revokes the admin's tokens.
 */
function adminCredentialIds(ctx: Ctx, ns: string): () => Promise<string[]> {
  let api: KeystoneApi | undefined;
  return async () => {
    for (let attempt = 0; ; attempt++) {
      api ??= keystoneOf(ctx, ns);
      try {
        return (await api.applicationCredentials()).map((a) => a.id as string).sort();
      } catch (err) {
        api = undefined;
        if (attempt > 0) throw err;
      }
    }
  };
}

/** Polls `read` every 250 ms until stopped: every answer (errors as `undefined`). */
function poll<T>(read: () => Promise<T>): { stop(): Promise<(T | undefined)[]> } {
  const seen: (T | undefined)[] = [];
  let polling = true;
  const loop = (async () => {
    while (polling) {
      seen.push(await read().catch(() => undefined));
      await sleep(250);
    }
  })();
  return {
    stop: async () => {
      polling = false;
      await loop;
      return seen;
    },
  };
}

/** Waits for the first watch event since `mark` that `match` picks. */
const eventSeen = (ctx: Ctx, what: string, mark: number, match: (e: Event) => boolean, timeoutMs: number) =>
  waitUntil(what, async () => ctx.rec.since(mark, match)[0], timeoutMs, ctx, 100);

/** Metacontroller's error lines since `from` (a failed hook call among them). */
const mcErrors = (ctx: Ctx, from: number) => ctx.mc.json(from).filter((l) => l.level === 'error');

/**
 * The hooks service killed (SIGKILL) and, once Metacontroller has seen a call fail, started again
 * as it ran (`env`): the crash a teardown or a rotation must survive.
 */
async function crashService(ctx: Ctx, env: NodeJS.ProcessEnv = {}): Promise<void> {
  const from = ctx.mc.mark();
  await ctx.h.killService();
  try {
    await waitUntil('Metacontroller saw a hook call fail', async () => mcErrors(ctx, from).length > 0, 120_000, ctx, 250);
  } finally {
    await ctx.h.startService(env);
  }
}

export function faultScenarios(shared: string): Scenario[] {
  const real = REAL_FAULTS_NS;
  const realRef = cpRef(real, REAL_NAME);
  const faultsRef = cpRef(FAULTS_NS, NAME);
  let realUid = '';
  let faultsUid = '';
  return [
    // --- real Keystone and K-ORC -----------------------------------------------------------------
    {
      id: 32,
      title: 'faults, real Keystone and K-ORC: a ControlPlane with Placement converges (the next three act on it)',
      async run(ctx) {
        const created = await createWithServices(ctx, real, servicesSpec(shared, false));
        realUid = created.metadata.uid;
        await waitReady(ctx, realRef, 420_000, (o) => !!o.status?.adminApplicationCredential?.id && condition(o, 'PlacementReady')?.status === 'True');
        const acs = await keystoneOf(ctx, real).applicationCredentials();
        check(acs.length === 1, `Keystone holds ${acs.length} admin application credentials`);
      },
    },
    {
      id: 33,
      title: 'faults, real Keystone and K-ORC: the kube-apiserver restarted during an admin password rotation: exactly one new credential, the old one revoked',
      needs: [32],
      async run(ctx) {
        const held = adminCredentialIds(ctx, real);
        const startId: string = (await ctx.kube.get(realRef))!.status.adminApplicationCredential.id;
        const before = await held();
        check(JSON.stringify(before) === JSON.stringify([startId]), `Keystone holds ${JSON.stringify(before)} before the rotation, expected ${startId}`);
        const mark = Date.now();
        const seen = poll(held);
        let ids: (string[] | undefined)[] = [];
        try {
          await ctx.bao.put(remoteKeys(real, REAL_NAME).adminPassword, { password: secretValue() });
          await forceRefresh(ctx, real, names.adminPassword);
          // The re-mint has begun: the old credential's object is being deleted (K-ORC revokes it).
          await eventSeen(ctx, 'the old ApplicationCredential Terminating', mark, (e) => e.namespace === real && e.kind === 'ApplicationCredential' && e.orcId === startId && e.terminating, 180_000);
          await ctx.h.restartKubeApiserver();
          console.log('    kube-apiserver restarted while the old credential was being revoked');
          await waitReady(ctx, realRef, 300_000, (o) => !!o.status?.adminApplicationCredential?.id && o.status.adminApplicationCredential.id !== startId);
          await waitUntil('the new credential in k-orc-clouds-yaml, the old one gone from Keystone', async () => {
            const now: string = (await ctx.kube.get(realRef))!.status.adminApplicationCredential.id;
            return (await korcCredential(ctx, real))?.id === now && !(await held()).includes(startId);
          }, 180_000, ctx);
        } finally {
          ids = await seen.stop();
        }
        const now: string = (await ctx.kube.get(realRef))!.status.adminApplicationCredential.id;
        const answered = ids.filter((s) => s !== undefined).length;
        const everSeen = [...new Set([...before, ...ids.flatMap((s) => s ?? [])])].sort();
        check(JSON.stringify(everSeen) === JSON.stringify([now, startId].sort()), `Keystone held ${JSON.stringify(everSeen)} during the rotation; expected exactly the old ${startId} and one new ${now}`);
        const atEnd = await held();
        check(JSON.stringify(atEnd) === JSON.stringify([now]), `Keystone holds ${JSON.stringify(atEnd)} at the end, expected only ${now}`);
        const keystone = keystoneOf(ctx, real);
        const created = ctx.rec.since(mark, (e) => e.namespace === real && e.kind === 'ApplicationCredential' && e.type === 'ADDED');
        check(created.length === 1, `${created.length} ApplicationCredential objects created (expected 1)`);
        const cred = await korcCredential(ctx, real);
        check(!!cred && cred.id === now && (await keystone.acceptsApplicationCredential(cred.id, cred.secret)), 'Keystone does not accept the credential in k-orc-clouds-yaml');
        const gone = deletionsSince(ctx, mark, real, (e) => e.kind === 'ApplicationCredential' && e.orcId === startId);
        check(gone.length === 0, `deleted besides the old credential: ${gone.join(', ')}`);
        console.log(`    Keystone: ${startId} revoked, ${now} the one new credential (${answered} of ${ids.length} polls answered: the others while Keystone was bootstrapped with the new password); the suite's watches resumed or listed again`);
      },
    },
    {
      id: 34,
      title: "faults, real Keystone and K-ORC: Keystone stopped during Placement's password rotation: held (the old password Secret kept), finished once Keystone is back",
      needs: [32],
      async run(ctx) {
        const n = serviceChildNames(REAL_NAME, 'placement');
        const next = passwordSecretName(n.password, 2);
        const passwordOf = async (name: string) => {
          const raw = (await dataOf(ctx, real, name))?.[SERVICE_PASSWORD_KEY];
          return raw === undefined ? undefined : unb64(raw);
        };
        const old = (await passwordOf(n.password))!;
        const startMints = (await keystoneOf(ctx, real).applicationCredentials()).map((a) => a.id).sort();
        const mark = Date.now();
        const crRef: Ref = { apiVersion: GVK.CredentialRotation.apiVersion, kind: 'CredentialRotation', namespace: real, name: 'rotate-placement-password' };
        await ctx.kube.create({ apiVersion: crRef.apiVersion, kind: crRef.kind, metadata: { name: crRef.name, namespace: real }, spec: { target: 'serviceUserPassword', targetServiceUser: n.user, reMint: true } });
        // The rotation has begun: the next password Secret exists. Keystone goes down now.
        await eventSeen(ctx, `Secret ${next} created`, mark, (e) => e.namespace === real && e.kind === 'Secret' && e.name === next && e.type === 'ADDED', 120_000);
        await ctx.keystones.down(real, names.keystone);
        try {
          await waitUntil('KeystoneReady=False', async () => condition(await ctx.kube.get(realRef), 'KeystoneReady')?.status === 'False', 60_000, ctx);
          await syncedAgain(ctx, real, 3, 'held while Keystone is down');
          const cp = (await ctx.kube.get(realRef))!;
          check(!!(await ctx.kube.get(secretRef(real, n.password))), `Secret ${n.password} released while Keystone was down`);
          const cr = await ctx.kube.get({ apiVersion: placement.kind.apiVersion, kind: placement.kind.kind, namespace: real, name: n.cr });
          const named: string | undefined = cr?.spec?.serviceUser?.secretRef?.name;
          check(!!named && !!(await ctx.kube.get(secretRef(real, named))), `Placement names Secret ${named}, which does not exist`);
          const gone = deletionsSince(ctx, mark, real);
          check(gone.length === 0, `deleted while Keystone was down: ${gone.join(', ')}`);
          console.log(`    Keystone down: held (${conditionsLine(cp)}); Placement names ${named}; ${n.password} kept`);
        } finally {
          ctx.keystones.up(real, names.keystone);
        }
        await waitUntil('CredentialRotation RotationComplete=True', async () => condition(await ctx.kube.get(crRef), 'RotationComplete')?.status === 'True', 300_000, ctx);
        await waitReady(ctx, realRef, 300_000, (o) => condition(o, 'PlacementReady')?.status === 'True');
        await waitUntil(`Secret ${n.password} released`, async () => !(await ctx.kube.get(secretRef(real, n.password))), 120_000, ctx);
        const keystone = keystoneOf(ctx, real);
        const fresh = await passwordOf(next);
        check(fresh !== undefined && fresh !== old, `no new password in Secret ${next}`);
        check(await keystone.acceptsPassword('placement', fresh!, 'service'), 'Keystone does not accept the new placement password');
        check(!(await keystone.acceptsPassword('placement', old, 'service')), 'Keystone still accepts the old placement password');
        check((await ctx.bao.get(serviceRemoteKeys(real, REAL_NAME, 'placement').password))?.[SERVICE_PASSWORD_KEY] === fresh, 'OpenBao does not hold the new placement password');
        const acs = (await keystone.applicationCredentials()).map((a) => a.id).sort();
        check(JSON.stringify(acs) === JSON.stringify(startMints), `the admin credentials changed: ${JSON.stringify(startMints)} → ${JSON.stringify(acs)}`);
        const gone = deletionsSince(ctx, mark, real);
        check(JSON.stringify(gone) === JSON.stringify([`Secret/${n.password}`]), `deleted during the rotation: ${gone.join(', ')}`);
        console.log(`    Keystone back: ${next} applied, accepted, the old password refused, in OpenBao; only ${n.password} released`);
      },
    },
    {
      id: 35,
      title: 'faults, real Keystone and K-ORC: the service killed (SIGKILL) during the teardown: finished once it is back, credential, service user and catalog gone from Keystone before its CR, nothing lost',
      needs: [32],
      async run(ctx) {
        const keystone = keystoneOf(ctx, real);
        const acId: string = (await ctx.kube.get(realRef))!.status.adminApplicationCredential.id;
        const mark = Date.now();
        const from = ctx.mc.mark();
        await ctx.kube.delete(realRef);
        // Mid-teardown: the first K-ORC group (endpoints, services, role assignments) is going.
        await eventSeen(ctx, 'the first K-ORC object deleted', mark, (e) => e.namespace === real && e.type === 'DELETED' && korcKinds.some((k) => k.kind === e.kind), 180_000);
        await crashService(ctx);
        console.log(`    service killed mid-teardown and started again (${mcErrors(ctx, from).length} failed call(s) in Metacontroller's log)`);
        const ksRef: Ref = { apiVersion: GVK.Keystone.apiVersion, kind: 'Keystone', namespace: real, name: names.keystone };
        const last = await answerAsKeystoneGoes(ctx, ksRef, 'the ControlPlane and every child gone',
          async () => ({ acs: (await keystone.applicationCredentials()).map((a) => a.id as string), users: (await keystone.users()).filter((u) => u.name === 'placement').length, services: (await keystone.services()).filter((s) => s.type === 'placement').length }),
          async () => !(await ctx.kube.get(realRef)) && (await childrenOf(ctx, real, realUid)).length === 0, 300_000);
        check(!!last, 'Keystone never answered during the teardown');
        check(!last!.acs.includes(acId) && last!.users === 0 && last!.services === 0, `still in Keystone when its CR went: ${JSON.stringify(last)}`);
        const events = ctx.rec.since(mark, (e) => e.namespace === real);
        const korcGone = events.filter((e) => e.type === 'DELETED' && korcKinds.some((k) => k.kind === e.kind));
        const infra = events.filter((e) => e.terminating && ['Keystone', 'MariaDB', 'Memcached'].includes(e.kind));
        check(korcGone.length > 0 && infra.length > 0 && Math.max(...korcGone.map((e) => e.rv)) < Math.min(...infra.map((e) => e.rv)), 'Keystone or its infrastructure began to go before the last K-ORC object was gone');
        console.log(`    teardown finished: credential ${acId}, the placement user and catalog entry gone from Keystone before its CR; ${korcGone.length} K-ORC objects deleted first`);
      },
    },

    // --- the stand-in world ------------------------------------------------------------------------
    {
      id: 36,
      title: 'faults, stand-ins: a ControlPlane with Placement and Glance converges (the next three act on it)',
      async run(ctx) {
        const created = await createWithServices(ctx, FAULTS_NS, servicesSpec(shared, true), ctx.ops.world.openstack.adminPassword);
        faultsUid = created.metadata.uid;
        await waitReady(ctx, faultsRef, 300_000, (o) => !!o.status?.adminApplicationCredential?.id && condition(o, 'ServicesReady')?.status === 'True');
      },
    },
    {
      id: 37,
      title: 'faults: child Secrets edited by hand are repaired, deleted children recreated (Metacontroller issue 1177), without a re-mint',
      needs: [36],
      async run(ctx) {
        const ns = FAULTS_NS;
        const startMints = mints(ctx);
        const ac = await ctx.kube.get({ apiVersion: GVK.ApplicationCredential.apiVersion, kind: 'ApplicationCredential', namespace: ns, name: names.adminAppCredential });
        const mark = Date.now();
        const before = { cloud: (await dataOf(ctx, ns, names.adminPasswordCloud))!, app: (await dataOf(ctx, ns, names.adminAppCredential))! };
        const same = (a: Record<string, string> | undefined, b: Record<string, string>) => JSON.stringify(a) === JSON.stringify(b);
        const edit = async (name: string, data: Record<string, string>) => {
          const live = (await ctx.kube.get(secretRef(ns, name)))!;
          await ctx.kube.replace({ ...live, data: { ...live.data, ...data } });
        };
        // Edited by hand (as `kubectl edit` would): Metacontroller's three-way merge puts back what the hooks answer.
        await edit(names.adminPasswordCloud, { 'clouds.yaml': b64('clouds: {edited: {by: hand}}\n') });
        await waitUntil(`Secret ${names.adminPasswordCloud} repaired`, async () => same(await dataOf(ctx, ns, names.adminPasswordCloud), before.cloud), 60_000, ctx);
        await edit(names.adminAppCredential, { value: b64('edited-by-hand'), 'clouds.yaml': b64('not: a clouds.yaml\n') });
        await waitUntil(`Secret ${names.adminAppCredential} repaired (its value and clouds.yaml)`, async () => same(await dataOf(ctx, ns, names.adminAppCredential), before.app), 60_000, ctx);
        // Deleted by hand, one after the other: recreated, the app-credential Secret with the secret
        // the credential was minted with (proven by the materialised clouds.yaml; deleted together
        // with the clouds.yaml ExternalSecret, nothing would prove it and the credential is re-minted).
        const uids = new Map<string, string>();
        for (const group of [
          [secretRef(ns, names.adminAppCredential)],
          [psRef(ns, names.adminAppCredentialBackup), esRef(ns, 'k-orc-clouds-yaml'), psRef(ns, serviceChildNames(NAME, 'placement').passwordBackup)],
        ]) {
          for (const r of group) {
            uids.set(`${r.kind}/${r.name}`, (await ctx.kube.get(r))!.metadata.uid);
            await ctx.kube.delete(r);
          }
          await waitUntil(`${group.map((r) => `${r.kind}/${r.name}`).join(', ')} recreated`, async () => {
            for (const r of group) {
              const o = await ctx.kube.get(r);
              if (!o || o.metadata.uid === uids.get(`${r.kind}/${r.name}`)) return false;
            }
            return true;
          }, 120_000, ctx);
        }
        await waitUntil(`the recreated Secret ${names.adminAppCredential} holds the minted secret and its clouds.yaml`, async () => same(await dataOf(ctx, ns, names.adminAppCredential), before.app), 60_000, ctx);
        await waitReady(ctx, faultsRef, 180_000, (o) => condition(o, 'AdminCredentialReady')?.status === 'True');
        const acNow = await ctx.kube.get({ apiVersion: GVK.ApplicationCredential.apiVersion, kind: 'ApplicationCredential', namespace: ns, name: names.adminAppCredential });
        check(acNow?.metadata.uid === ac?.metadata.uid && acNow?.status?.id === ac?.status?.id, 'the ApplicationCredential was replaced');
        check(mints(ctx) === startMints, `${mints(ctx) - startMints} mint(s)`);
        // Only what was deleted by hand, and what goes with it (ESO's Secret with its ExternalSecret).
        const expected = new Set([...uids.keys(), 'Secret/k-orc-clouds-yaml']);
        const gone = deletionsSince(ctx, mark, ns).filter((k) => !expected.has(k));
        check(gone.length === 0, `deleted besides what was deleted by hand: ${gone.join(', ')}`);
        for (const r of [psRef(ns, names.adminAppCredentialBackup), psRef(ns, serviceChildNames(NAME, 'placement').passwordBackup)]) {
          const ps = await ctx.kube.get(r);
          check(condition(ps, 'Ready')?.reason === 'Synced', `the recreated PushSecret ${r.name} has not pushed: ${JSON.stringify(ps?.status?.conditions)}`);
        }
        console.log(`    repaired: ${names.adminPasswordCloud}, ${names.adminAppCredential}; recreated: ${[...uids.keys()].join(', ')}; credential ${ac?.status?.id} kept, no mint`);
      },
    },
    {
      id: 38,
      title: 'faults: ESO stopped during a CredentialRotation re-mint: the hooks hold at a fixed point (no child updated), nothing lost; once ESO is back the round trip completes: one new credential, the old one revoked',
      needs: [36],
      async run(ctx) {
        const ns = FAULTS_NS;
        const startId: string = (await ctx.kube.get(faultsRef))!.status.adminApplicationCredential.id;
        const startMints = mints(ctx);
        const mark = Date.now();
        const crRef: Ref = { apiVersion: GVK.CredentialRotation.apiVersion, kind: 'CredentialRotation', namespace: ns, name: 'rotate-admin' };
        await ctx.kube.create({ apiVersion: crRef.apiVersion, kind: crRef.kind, metadata: { name: crRef.name, namespace: ns }, spec: { target: 'adminApplicationCredential', reMint: true } });
        await eventSeen(ctx, 'the re-mint begun (the old ApplicationCredential Terminating)', mark, (e) => e.namespace === ns && e.kind === 'ApplicationCredential' && e.orcId === startId && e.terminating, 120_000);
        await ctx.h.stopEso();
        let newId: string | undefined;
        try {
          // The new credential is minted (K-ORC needs no ESO for it), and its trip to OpenBao waits.
          await waitUntil('the new credential minted, waiting for its push', async () => {
            const cp = await ctx.kube.get(faultsRef);
            newId = cp?.status?.adminApplicationCredential?.id;
            return newId !== startId && condition(cp, 'AdminCredentialReady')?.status === 'False';
          }, 180_000, ctx);
          // ESO could stay away for minutes: the hooks hold at a fixed point, resync after resync
          // (no child updated: nothing to wait for but ESO, and no rule acts on the time but
          // CloudsYamlSyncStuck, a reason after 15 minutes). Three resyncs show it.
          await syncedAgain(ctx, ns, 2, 'settled while ESO is down');
          const settled = Date.now();
          await syncedAgain(ctx, ns, 3, 'held while ESO is down');
          const updated = ctx.rec.updates(settled, (e) => e.namespace === ns && e.owner === faultsUid);
          check(updated.length === 0, `children updated while ESO was down (no fixed point): ${[...new Set(updated.map((e) => `${e.kind}/${e.name}`))].join(', ')}`);
          const cp = (await ctx.kube.get(faultsRef))!;
          console.log(`    ESO down: held at ${condition(cp, 'AdminCredentialReady')?.reason} (${condition(cp, 'AdminCredentialReady')?.message}), no child updated over 3 resyncs`);
        } finally {
          await ctx.h.startEso();
        }
        await waitUntil('the new credential materialised in k-orc-clouds-yaml, RotationComplete', async () => {
          const id: string | undefined = (await ctx.kube.get(faultsRef))?.status?.adminApplicationCredential?.id;
          const doc = (await dataOf(ctx, ns, 'k-orc-clouds-yaml'))?.['clouds.yaml'];
          const auth = doc ? (Object.values((parse(unb64(doc)) as Obj)?.clouds ?? {})[0] as Obj | undefined)?.auth : undefined;
          return auth?.application_credential_id === id && id !== startId && condition(await ctx.kube.get(crRef), 'RotationComplete')?.status === 'True';
        }, 240_000, ctx);
        await waitReady(ctx, faultsRef, 120_000);
        await ctx.ops.settle();
        check(mints(ctx) - startMints === 1, `expected exactly 1 mint, saw ${mints(ctx) - startMints}`);
        check(ctx.ops.world.openstack.revoked.includes(startId), `the old credential ${startId} was not revoked`);
        check(liveCredentialsOf(ctx, NAME).filter(([id]) => id === startId).length === 0, 'the old credential is still live');
        const gone = deletionsSince(ctx, mark, ns, (e) => e.kind === 'ApplicationCredential');
        check(gone.length === 0, `deleted besides the old credential: ${gone.join(', ')}`);
        console.log(`    ESO back: ${(await ctx.kube.get(faultsRef))!.status.adminApplicationCredential.id} materialised, ${startId} revoked, one mint`);
      },
    },
    {
      id: 39,
      title: 'faults, stand-ins: the service killed (SIGKILL) during a scheduled rotation, twice: no double mint, the old credential revoked after the new one is published, never none live',
      async run(ctx) {
        const ns = SCHEDULED_NS;
        const ref = cpRef(ns, NAME);
        const spec = structuredClone(BROWNFIELD.spec) as Obj;
        spec.korc.adminCredential.applicationCredential = { rotation: { mode: 'Scheduled' } };
        await ensureNamespace(ctx, ns);
        await ctx.kube.create({ apiVersion: GVK.CredentialRotation.apiVersion, kind: 'CredentialRotation', metadata: { name: 'admin-schedule', namespace: ns }, spec: { target: 'adminApplicationCredential', intervalDays: 1, preRotationDays: 0, gracePeriodDays: 0 } });
        const created = await createControlPlane(ctx, { metadata: { name: NAME, namespace: ns }, spec }, ctx.ops.world.openstack.adminPassword);
        const first = (await waitReady(ctx, ref, 180_000, (o) => !!o.status?.adminApplicationCredential?.expiresAt && !!o.status.adminApplicationCredential.id)).status.adminApplicationCredential;
        const startMints = mints(ctx);
        const mark = Date.now();
        const clock = new Date(Date.parse(first.rotationEligibleAt) + 60_000).toISOString();
        // The stand-in OpenStack is shared: a credential of this ControlPlane is one K-ORC reported for an AC of its namespace.
        const ours = () => new Set([first.id as string, ...ctx.rec.events.filter((e) => e.namespace === ns && e.kind === 'ApplicationCredential' && e.orcId).map((e) => e.orcId!)]);
        const seen = poll(async () => {
          const mine = ours();
          return [...ctx.ops.world.openstack.applicationCredentials.keys()].filter((id) => mine.has(id));
        });
        let polls: (string[] | undefined)[] = [];
        try {
          await ctx.h.restartService({ CLOCK: clock });
          await eventSeen(ctx, 'the replacement ApplicationCredential created', mark, (e) => e.namespace === ns && e.kind === 'ApplicationCredential' && e.type === 'ADDED' && e.name === names.adminAppCredentialB, 120_000);
          await crashService(ctx, { CLOCK: clock });
          await waitUntil('the replacement published', async () => {
            const id = (await ctx.kube.get(ref))?.status?.adminApplicationCredential?.id;
            return id !== undefined && id !== first.id;
          }, 180_000, ctx);
          await crashService(ctx, { CLOCK: clock });
          await waitUntil('the old credential revoked', async () => ctx.ops.world.openstack.revoked.includes(first.id), 180_000, ctx);
          await waitReady(ctx, ref, 120_000);
        } finally {
          polls = await seen.stop();
          await ctx.h.restartService();
        }
        await ctx.ops.settle();
        const next: string = (await ctx.kube.get(ref))!.status.adminApplicationCredential.id;
        check(mints(ctx) - startMints === 1, `expected exactly 1 mint, saw ${mints(ctx) - startMints}`);
        check(ctx.ops.world.openstack.revoked.includes(first.id) && !ctx.ops.world.openstack.applicationCredentials.has(first.id), `${first.id} not revoked`);
        const empty = polls.filter((p) => p !== undefined && p.length === 0);
        check(empty.length === 0, `no live credential of the ControlPlane in ${empty.length} of ${polls.length} polls`);
        const acEvents = ctx.rec.events.filter((e) => e.kind === 'ApplicationCredential' && e.namespace === ns);
        const minted = acEvents.find((e) => e.orcId === next);
        const revoking = acEvents.find((e) => e.orcId === first.id && e.terminating);
        check(!!minted && !!revoking && minted.rv < revoking.rv, `the replacement ${next} was not minted before ${first.id} began to be revoked`);
        const gone = deletionsSince(ctx, mark, ns, (e) => e.kind === 'ApplicationCredential' && e.orcId === first.id);
        check(gone.length === 0, `deleted besides the old credential: ${gone.join(', ')}`);
        console.log(`    CLOCK ${clock}: killed after the replacement was created and after it was published; ${next} minted once, ${first.id} revoked after; ${polls.length} polls, never none live`);
        await ctx.kube.delete(ref);
        await waitUntil('ControlPlane deleted and every child gone', async () => !(await ctx.kube.get(ref)) && (await childrenOf(ctx, ns, created.metadata.uid)).length === 0, 180_000, ctx);
      },
    },
    {
      id: 40,
      title: 'faults: OpenBao restarted empty: nothing deleted or minted; every backup (admin credential, service passwords) pushed again by itself; the paths only a person can restore named in Ready; Ready again once they are',
      needs: [36],
      async run(ctx) {
        const ns = FAULTS_NS;
        const keys = remoteKeys(ns, NAME);
        const services = ['placement', 'glance'];
        const startMints = mints(ctx);
        const cp0 = (await ctx.kube.get(faultsRef))!;
        const startId: string = cp0.status.adminApplicationCredential.id;
        const children0 = new Map((await childrenOf(ctx, ns, faultsUid)).map((c) => [`${c.kind}/${c.metadata.name}`, c.metadata.uid as string]));
        const externalSecrets = (await childrenOf(ctx, ns, faultsUid, [GVK.ExternalSecret])).map((o) => o.metadata.name as string).sort();
        const retained = new Map<string, Record<string, string> | undefined>();
        for (const es of externalSecrets) retained.set(es, await dataOf(ctx, ns, es));
        const backups = new Map<string, string>([[keys.adminAppCredential, names.adminAppCredential], ...services.map((s) => [serviceRemoteKeys(ns, NAME, s).password, serviceChildNames(NAME, s).password] as [string, string])]);
        const byHand = [keys.db, keys.adminPassword, ...services.map((s) => serviceRemoteKeys(ns, NAME, s).db)].sort();
        const mark = Date.now();

        await ctx.h.restartOpenBaoEmpty();
        check((await ctx.bao.get(keys.adminAppCredential)) === undefined && (await ctx.bao.get(keys.db)) === undefined, 'OpenBao did not come back empty');
        // ESO notices at each ExternalSecret's hourly refresh; the suite asks for those refreshes now
        // (a new annotation, as an operator would). Nothing else: no push is asked for, nothing written to OpenBao.
        for (const es of externalSecrets) await forceRefresh(ctx, ns, es);
        const inOpenBao = async (path: string, secret: string) => {
          const data = await dataOf(ctx, ns, secret);
          const stored = await ctx.bao.get(path);
          return !!data && !!stored && JSON.stringify(Object.fromEntries(Object.entries(data).map(([k, v]) => [k, unb64(v)]).sort())) === JSON.stringify(Object.fromEntries(Object.entries(stored).sort()));
        };
        let last: Obj | undefined;
        await waitUntil('every backup in OpenBao again, the admin credential read back, the rest named in Ready', async () => {
          for (const [path, secret] of backups) if (!(await inOpenBao(path, secret))) return false;
          last = await ctx.kube.get(faultsRef);
          const message: string = condition(last, 'Ready')?.message ?? '';
          const clouds = await ctx.kube.get(esRef(ns, 'k-orc-clouds-yaml'));
          return condition(clouds, 'Ready')?.status === 'True' && byHand.every((p) => message.includes(p));
        }, 240_000, ctx).catch((err: Error) => {
          throw new AssertionError(`${err.message}; Ready: ${condition(last, 'Ready')?.message}`);
        });
        const named = condition(last, 'Ready')!;
        check(named.status === 'False' && /to be restored by a person/.test(named.message), `Ready: ${named.status} ${named.message}`);
        for (const [path] of backups) check(!/to be restored by a person, who put them there: [^;]*/.exec(named.message)![0].includes(path), `the backup ${path} is named as a person's to restore`);
        check(mints(ctx) === startMints, `${mints(ctx) - startMints} mint(s) after OpenBao lost everything`);
        check((await ctx.kube.get(faultsRef))!.status.adminApplicationCredential.id === startId, 'the admin credential changed');
        const gone = deletionsSince(ctx, mark, ns);
        check(gone.length === 0, `deleted after OpenBao lost everything: ${gone.join(', ')}`);
        for (const [es, data] of retained) check(JSON.stringify(await dataOf(ctx, ns, es)) === JSON.stringify(data), `Secret ${es} changed (ESO keeps what it made: deletionPolicy Retain)`);
        for (const path of byHand) check((await ctx.bao.get(path)) === undefined, `${path} was written to OpenBao by someone`);
        console.log(`    OpenBao empty: ${backups.size} backups pushed again, k-orc-clouds-yaml read back; named for a person: ${byHand.join(', ')}; no mint, no deletion`);

        // The person restores what they had put there (the values the Secrets ESO made still hold) and asks for the refresh.
        await restoreByHand(ctx, ns);
        await waitReady(ctx, faultsRef, 180_000, (o) => !(condition(o, 'Ready')?.message ?? '').includes('OpenBao'));
        check(mints(ctx) === startMints, `${mints(ctx) - startMints} mint(s) once restored`);
        const after = new Map((await childrenOf(ctx, ns, faultsUid)).map((c) => [`${c.kind}/${c.metadata.name}`, c.metadata.uid as string]));
        const replaced = [...children0].filter(([k, uid]) => after.get(k) !== uid).map(([k]) => k);
        check(replaced.length === 0 && deletionsSince(ctx, mark, ns).length === 0, `children deleted or replaced: ${replaced.join(', ')}`);
        // What every other ControlPlane of the suite put into OpenBao is gone as well: restored the same way.
        for (const other of await ctx.kube.list(GVK.ControlPlane.apiVersion, 'ControlPlane')) if (other.metadata.namespace !== ns) await restoreByHand(ctx, other.metadata.namespace, false);
        console.log('    restored by a person: Ready again, the same credential, nothing deleted or replaced');
      },
    },
  ];
}

/**
 * What a person does after OpenBao lost what they put there: writes it back (the values the
 * Secrets ESO made from it still hold, deletionPolicy Retain) and asks ESO to read now.
 */
async function restoreByHand(ctx: Ctx, ns: string, refresh = true): Promise<void> {
  // Not the backups: those are the PushSecrets' (ESO refuses to push over a key it did not write).
  const backups = new Set((await ctx.kube.list(GVK.PushSecret.apiVersion, 'PushSecret', ns)).flatMap(pushedPaths));
  for (const es of await ctx.kube.list(GVK.ExternalSecret.apiVersion, 'ExternalSecret', ns)) {
    const data = await dataOf(ctx, ns, es.spec?.target?.name ?? es.metadata.name);
    const byKey = new Map<string, Record<string, string>>();
    for (const d of es.spec?.data ?? []) {
      const value = data?.[d.secretKey];
      if (value === undefined || backups.has(d.remoteRef.key) || ((await ctx.bao.get(d.remoteRef.key)) !== undefined && !byKey.has(d.remoteRef.key))) continue;
      byKey.set(d.remoteRef.key, { ...(byKey.get(d.remoteRef.key) ?? {}), [d.remoteRef.property]: unb64(value) });
    }
    for (const [key, values] of byKey) await ctx.bao.put(key, values);
    if (refresh && byKey.size > 0) await forceRefresh(ctx, ns, es.metadata.name);
  }
}

/** The fleet scenario's step (fleet.ts): Metacontroller restarted with every ControlPlane converged. */
export async function metacontrollerRestarted(ctx: Ctx, fleet: ReadonlySet<string>): Promise<string> {
  const cps = await ctx.kube.list(GVK.ControlPlane.apiVersion, 'ControlPlane');
  const namespaces = new Set(cps.map((o) => o.metadata.namespace as string));
  const uids = new Set(cps.map((o) => o.metadata.uid as string));
  const notReady = cps.filter((o) => condition(o, 'Ready')?.status !== 'True').map((o) => `${o.metadata.namespace}: ${conditionsLine(o)}`);
  const startMints = mints(ctx);
  const mark = Date.now();
  await ctx.h.stopMetacontroller();
  const from = ctx.mc.mark();
  await ctx.h.startMetacontroller();
  // mc#78: a fresh Metacontroller queues every parent at once. Each ControlPlane synced twice
  // since (its syncs are serialised: the first answer was applied before the second began).
  let counts = new Map<string, number>();
  await waitUntil(`every ControlPlane (${namespaces.size}) synced twice after Metacontroller's restart`, async () => {
    counts = syncsSince(ctx, from, namespaces);
    return [...namespaces].every((ns) => (counts.get(ns) ?? 0) >= 2);
  }, 300_000, ctx, 1000).catch((err: Error) => {
    throw new AssertionError(`${err.message}: ${[...namespaces].filter((ns) => (counts.get(ns) ?? 0) < 2).join(', ')} not yet`);
  });
  await ctx.ops.settle();
  const deleted = ctx.rec.since(mark, (e) => namespaces.has(e.namespace) && e.terminating);
  const updated = ctx.rec.updates(mark, (e) => !!e.owner && uids.has(e.owner));
  const created = ctx.rec.since(mark, (e) => !!e.owner && uids.has(e.owner) && e.type === 'ADDED');
  check(mints(ctx) === startMints, `${mints(ctx) - startMints} mint(s) after Metacontroller's restart`);
  check(deleted.length === 0, `deleted after Metacontroller's restart: ${[...new Set(deleted.map((e) => `${e.namespace}/${e.kind}/${e.name}`))].join(', ')}`);
  check(created.length === 0, `created after Metacontroller's restart: ${[...new Set(created.map((e) => `${e.namespace}/${e.kind}/${e.name}`))].join(', ')}`);
  check(updated.length === 0, `children updated after Metacontroller's restart: ${[...new Set(updated.map((e) => `${e.namespace}/${e.kind}/${e.name}`))].slice(0, 10).join(', ')}`);
  const syncs = [...counts.values()].reduce((a, b) => a + b, 0);
  return `Metacontroller restarted with ${cps.length} ControlPlanes converged (${[...fleet].length} of the fleet${notReady.length > 0 ? `; not Ready before: ${notReady.join('; ')}` : ''}): ${syncs} syncs, 0 mints, 0 deletions, 0 children created or updated`;
}
