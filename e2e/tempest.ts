// Tempest in the e2e suite (issue 59): the Job controller and kubelet for the verification Jobs the
// hooks emit in REAL_OPENSTACK_NAMESPACES (there is no kubelet here), and the runner the suite's own
// Tempest sets use. A Job labelled c5c3.io/verification=tempest is run as its pod would run it:
// - the container's image must be the Tempest this suite installed (`ghcr.io/c5c3/tempest:<the
//   tempest venv's version>`, e2e/venvs.ts); any other image stays unpulled, as a kubelet leaves a
//   pod in ErrImagePull, and the Job stays active until its deadline;
// - its volumes (ConfigMaps: our tempest.conf, the user's list ConfigMaps) are written into a
//   directory of its own, and every mountPath, and the container's /tmp, named in its command and
//   args is that directory (a pod's file system view, without a mount namespace);
// - its env is resolved as the kubelet does (value, secretKeyRef, configMapKeyRef); beside it the
//   Tempest from the venv on PATH, and the cluster's DNS: a `sitecustomize` module on the pod's
//   PYTHONPATH resolves every `*.svc` name to the suite's forward proxy, which routes a request by
//   its Host header to the process serving that Service (e2e/forward-proxy.ts). Tempest's own
//   [service-clients] proxy_url is not enough: the admin clients of its dynamic credentials are
//   made without it (tempest/lib/common/dynamic_creds.py _get_admin_clients). The ConfigMap is
//   run as written.
// The status is the one kubernetes v1.33's Job controller writes (pkg/controller/job/
// job_controller.go; JobManagedBy is on, so delayTerminalCondition holds): startTime and active
// once the pod runs; at exit 0 SuccessCriteriaMet (CompletionsReached) and then Complete with
// succeeded and completionTime; otherwise FailureTarget and then Failed (BackoffLimitExceeded:
// the hooks set backoffLimit 0); past activeDeadlineSeconds the pod is killed and the Job fails
// with DeadlineExceeded. A Job deleted while it runs has its pod killed.
import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Obj } from '../src/sim/cluster.js';
import { VERIFICATION_LABEL, VERIFICATION_LABEL_VALUE } from '../src/controlplane/rollout/verification.js';
import { TEMPEST_IMAGE_REPOSITORY } from '../src/api/verification.js';
import { KubeError, type Kube } from './kube.js';

/** What `tempest run` counted (its subunit-trace "Totals"). */
export interface TempestCounts {
  ran: number;
  passed: number;
  failed: number;
  skipped: number;
}

/** The Totals block `tempest run` prints last (stestr's subunit_trace), undefined when it printed none. */
export function countsOf(output: string): TempestCounts | undefined {
  const at = output.lastIndexOf('Totals\n');
  if (at < 0) return undefined;
  const tail = output.slice(at);
  const n = (label: string) => Number(new RegExp(`${label}:? (\\d+)`).exec(tail)?.[1] ?? NaN);
  const counts = { ran: n('Ran'), passed: n(' - Passed'), failed: n(' - Failed'), skipped: n(' - Skipped') };
  return Object.values(counts).every(Number.isFinite) ? counts : undefined;
}

export const countsLine = (c: TempestCounts | undefined) => (c ? `${c.passed} passed, ${c.failed} failed, ${c.skipped} skipped` : 'no totals');

/** One pod run: what the suite reads back after it. */
export interface PodRun {
  job: string;
  namespace: string;
  exitCode?: number | null;
  counts?: TempestCounts;
  log: string;
  /** The failed tests' ids (from the log), for a scenario's message. */
  failedTests: string[];
}

interface Running {
  child?: ChildProcess;
  run: PodRun;
  /** status.startTime as written once (the API server refuses a changed one: batch validation RejectStartTimeUpdateForUnsuspendedJob). */
  startTime: string;
  deadline?: NodeJS.Timeout;
  deadlineExceeded: boolean;
  ended: boolean;
  /** A pod the suite runs itself (runPod), of no Job on the API server. */
  direct: boolean;
  done: (run: PodRun) => void;
}

const isVerificationJob = (o: Obj) => o.kind === 'Job' && o.apiVersion === 'batch/v1' && o.metadata?.labels?.[VERIFICATION_LABEL] === VERIFICATION_LABEL_VALUE;
const terminal = (j: Obj) => (j.status?.conditions ?? []).some((c: Obj) => (c.type === 'Complete' || c.type === 'Failed') && c.status === 'True');
/** The pods' DNS: a name of a Service (`*.svc`, `*.svc.cluster.local`) resolves to the forward proxy. */
const SITECUSTOMIZE = `# e2e/tempest.ts: the cluster's DNS for this pod (every Service name resolves to the suite's proxy).
import socket
_getaddrinfo = socket.getaddrinfo
def getaddrinfo(host, port, *args, **kwargs):
    if isinstance(host, str) and (host.endswith('.svc') or host.endswith('.svc.cluster.local')):
        return _getaddrinfo('@HOST@', @PORT@, *args, **kwargs)
    return _getaddrinfo(host, port, *args, **kwargs)
socket.getaddrinfo = getaddrinfo
`;

/** An instant as the API server keeps a metav1.Time: whole seconds. */
const seconds = (d: Date) => d.toISOString().replace(/\.\d{3}Z$/, 'Z');
const b64 = (s: string) => Buffer.from(s, 'base64').toString('utf8');

export class TempestJobs {
  private readonly running = new Map<string, Running>();
  /** Every pod run so far, newest last. */
  readonly runs: PodRun[] = [];

  constructor(
    private readonly venv: string,
    private readonly version: string,
    private readonly dir: string,
    private readonly proxyUrl: () => string,
    private readonly note: (text: string) => void,
  ) {}

  /** The image this suite can run. */
  get image(): string {
    return `${TEMPEST_IMAGE_REPOSITORY}:${this.version}`;
  }

  async stop(): Promise<void> {
    for (const r of this.running.values()) r.child?.kill('SIGKILL');
  }

  /** One pass over the listed objects of the real namespaces, as the Job controller and the kubelet. */
  async reconcile(kube: Kube, listed: Obj[]): Promise<void> {
    const jobs = listed.filter(isVerificationJob);
    const live = new Set<string>();
    for (const job of jobs) {
      const key = `${job.metadata.namespace}/${job.metadata.name}/${job.metadata.uid}`;
      live.add(key);
      if (job.metadata.deletionTimestamp || terminal(job)) continue;
      const r = this.running.get(key);
      if (!r) {
        const started = this.start(kube, job, key, listed);
        await this.write(kube, job, { startTime: started.startTime, active: 1, ready: 0, terminating: 0, uncountedTerminatedPods: {} });
      }
    }
    for (const [key, r] of this.running) {
      if (!r.direct && !live.has(key) && !r.ended) {
        r.ended = true;
        r.child?.kill('SIGKILL');
        this.note(`Job ${key}: deleted while its pod ran; pod killed`);
      }
    }
  }

  /**
   * Runs a Job's pod without the API server (the suite's own Tempest sets: the Job the hooks would
   * emit for this cloud, with its ConfigMap and Secret among `objects`); resolves when it exits.
   */
  runPod(job: Obj, objects: Obj[]): Promise<PodRun> {
    return new Promise((resolve) => this.start(undefined, job, `${job.metadata.namespace}/${job.metadata.name}/direct-${this.runs.length}`, objects, resolve));
  }

  private async write(kube: Kube | undefined, job: Obj, status: Obj): Promise<void> {
    if (!kube) return;
    try {
      await kube.patchStatus({ apiVersion: 'batch/v1', kind: 'Job', namespace: job.metadata.namespace, name: job.metadata.name }, status);
    } catch (err) {
      if (err instanceof KubeError && err.status === 404) return;
      this.note(`Job ${job.metadata.namespace}/${job.metadata.name}: status write failed: ${(err as Error).message}`);
    }
  }

  private start(kube: Kube | undefined, job: Obj, key: string, listed: Obj[], done: (run: PodRun) => void = () => {}): Running {
    const ns: string = job.metadata.namespace;
    const name: string = job.metadata.name;
    const podDir = join(this.dir, `${ns}-${name}`);
    const run: PodRun = { job: name, namespace: ns, log: join(podDir, 'pod.log'), failedTests: [] };
    const r: Running = { run, startTime: seconds(new Date()), deadlineExceeded: false, ended: false, direct: kube === undefined, done };
    this.running.set(key, r);
    this.runs.push(run);
    mkdirSync(podDir, { recursive: true });
    const pod = job.spec?.template?.spec ?? {};
    const container = pod.containers?.[0] ?? {};
    const deadline = job.spec?.activeDeadlineSeconds;
    if (typeof deadline === 'number') {
      r.deadline = setTimeout(() => {
        if (r.ended) return;
        r.deadlineExceeded = true;
        r.child?.kill('SIGKILL');
        if (!r.child) void this.finish(kube, job, r, null);
      }, deadline * 1000);
    }
    if (container.image !== this.image) {
      this.note(`Job ${ns}/${name}: image ${container.image} cannot be pulled here (only ${this.image}); the pod stays ErrImagePull`);
      writeFileSync(run.log, `ErrImagePull: ${container.image}\n`);
      return r;
    }
    const find = (kind: string, n: string) => listed.find((o) => o.kind === kind && o.metadata.namespace === ns && o.metadata.name === n);
    // The volumes: ConfigMaps written as files (its items, or every key).
    const paths: [string, string][] = [];
    for (const m of container.volumeMounts ?? []) {
      const vol = (pod.volumes ?? []).find((v: Obj) => v.name === m.name);
      const at = join(podDir, 'volumes', m.name);
      mkdirSync(at, { recursive: true });
      const cm = vol?.configMap ? find('ConfigMap', vol.configMap.name) : undefined;
      const data: Record<string, string> = cm?.data ?? {};
      const items: { key: string; path: string }[] = vol?.configMap?.items ?? Object.keys(data).map((k) => ({ key: k, path: k }));
      for (const it of items) if (data[it.key] !== undefined) writeFileSync(join(at, it.path), data[it.key]!);
      paths.push([m.mountPath, at]);
    }
    paths.push(['/tmp', join(podDir, 'tmp')]);
    mkdirSync(join(podDir, 'tmp'), { recursive: true });
    // One pass, longest mountPath first, and only where a path begins (a mountPath inside another
    // path, /etc/tempest in /tmp/tempest/etc/tempest.conf, is not that mount).
    paths.sort((a, b) => b[0].length - a[0].length);
    const mapped = new Map(paths);
    const escape = (p: string) => p.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    const mountAt = new RegExp(`(^|[\\s'"=:])(${paths.map(([p]) => escape(p)).join('|')})(?=/|$|[\\s'";])`, 'gm');
    const inPod = (s: string) => s.replace(mountAt, (_m, lead: string, path: string) => `${lead}${mapped.get(path)}`);
    const env: NodeJS.ProcessEnv = {};
    for (const e of container.env ?? []) {
      if (typeof e.value === 'string') env[e.name] = e.value;
      const sk = e.valueFrom?.secretKeyRef;
      const ck = e.valueFrom?.configMapKeyRef;
      if (sk) {
        const v = find('Secret', sk.name)?.data?.[sk.key];
        if (v !== undefined) env[e.name] = b64(v);
      }
      if (ck) {
        const v = find('ConfigMap', ck.name)?.data?.[ck.key];
        if (v !== undefined) env[e.name] = v;
      }
    }
    const [command, ...commandArgs] = [...(container.command ?? []), ...(container.args ?? [])].map((s: string) => inPod(s));
    const site = join(podDir, 'site');
    mkdirSync(site, { recursive: true });
    const proxy = new URL(this.proxyUrl());
    writeFileSync(join(site, 'sitecustomize.py'), SITECUSTOMIZE.replace('@HOST@', proxy.hostname).replace('@PORT@', proxy.port));
    const out = createWriteStream(run.log);
    this.note(`Job ${ns}/${name}: pod started (${container.image}): ${[command, ...commandArgs].join(' ').replace(/\n/g, '; ')}`);
    const child = spawn(command!, commandArgs, {
      cwd: podDir,
      env: {
        PATH: `${join(this.venv, 'bin')}:/usr/bin:/bin`,
        HOME: podDir,
        LANG: 'C.UTF-8',
        ...env,
        PYTHONPATH: site,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    r.child = child;
    child.stdout!.pipe(out, { end: false });
    child.stderr!.pipe(out, { end: false });
    child.on('exit', (code) => {
      out.end(() => void this.finish(kube, job, r, code));
    });
    return r;
  }

  private async finish(kube: Kube | undefined, job: Obj, r: Running, code: number | null): Promise<void> {
    if (r.ended) return;
    r.ended = true;
    if (r.deadline) clearTimeout(r.deadline);
    const text = (() => {
      try {
        return readFileSync(r.run.log, 'utf8');
      } catch {
        return '';
      }
    })();
    r.run.exitCode = code;
    r.run.counts = countsOf(text);
    r.run.failedTests = [...text.matchAll(/^\{\d+\} (.+?) \[[\d.]+s\] \.\.\. FAILED$/gm)].map((m) => m[1]!);
    const at = seconds(new Date());
    const startTime = r.startTime;
    const cond = (type: string, reason: string, message: string) => ({ type, status: 'True', reason, message, lastProbeTime: at, lastTransitionTime: at });
    const name = `${r.run.namespace}/${r.run.job}`;
    if (code === 0 && !r.deadlineExceeded) {
      const met = cond('SuccessCriteriaMet', 'CompletionsReached', 'Reached expected number of succeeded pods');
      await this.write(kube, job, { startTime, active: 0, ready: 0, terminating: 0, succeeded: 1, conditions: [met], uncountedTerminatedPods: {} });
      await this.write(kube, job, { startTime, active: 0, ready: 0, terminating: 0, succeeded: 1, completionTime: at, conditions: [met, cond('Complete', 'CompletionsReached', 'Reached expected number of succeeded pods')], uncountedTerminatedPods: {} });
      this.note(`Job ${name}: Complete (${countsLine(r.run.counts)})`);
      r.done(r.run);
      return;
    }
    const [reason, message] = r.deadlineExceeded
      ? ['DeadlineExceeded', 'Job was active longer than specified deadline']
      : ['BackoffLimitExceeded', 'Job has reached the specified backoff limit'];
    const target = cond('FailureTarget', reason, message);
    await this.write(kube, job, { startTime, active: 0, ready: 0, terminating: 0, failed: 1, conditions: [target], uncountedTerminatedPods: {} });
    await this.write(kube, job, { startTime, active: 0, ready: 0, terminating: 0, failed: 1, conditions: [target, cond('Failed', reason, message)], uncountedTerminatedPods: {} });
    this.note(`Job ${name}: Failed/${reason} (exit ${code}; ${countsLine(r.run.counts)}; failed: ${r.run.failedTests.join(', ') || 'none listed'})`);
    r.done(r.run);
  }
}
