// The service operators of the real-Keystone namespaces, with the real APIs: for each service CR
// (openstack-api-descriptors.ts: Placement, Glance, Cinder) the real OpenStack API from its PyPI
// venv, served by gunicorn on 127.0.0.1 and reached at its in-cluster Service URL
// `http://{cr}.{ns}.svc:{port}` through the suite's forward proxy — the URL the hooks register in
// the catalog. Configured only from the CR and the Secrets it names: the service user and the
// password Secret, keystoneEndpoint, region, the DB credential Secret (in managed mode the account
// on the real MariaDB the CR's clusterRef names, made as the operator has mariadb-operator make it:
// mariadb.ts; a brownfield database host runs nothing here, so SQLite), Glance's GlanceBackends (file stores), Cinder's messaging Secret (the
// transport URL as the hooks built it, its `{name}.{ns}.svc:5672` host the RabbitMQ node the suite
// runs for that RabbitmqCluster: rabbitmq.ts; a bus elsewhere runs nothing here, so oslo.messaging's
// fake:// driver), and the service's other processes beside the API (the descriptor's workers:
// Cinder's scheduler and a volume service per CinderBackend). What the upstream operators do, as
// far as one process per CR goes (C5C3/cobaltcore @ da0515f0, operators/{placement,glance}/
// internal/controller; the cinder operator's files as openstack-api-descriptors.ts cites them):
// - the config is rendered from the spec; the password and the DB URL reach the process only by
//   environment (keystoneauth.PasswordEnvVar, database.ConnectionEnvVarForSection);
// - the pods roll when what they are started from changes: the config (content-hashed ConfigMap),
//   the image, the Secret the password's env var names, the SHA-256 of the DB URL, of the
//   service-user password and (Cinder) of the transport URL (reconcile_deployment.go
//   db-connection-hash / authtoken-hash / transport-url-hash annotations) — so a new
//   `serviceUser.secretRef`, or a new password in the same Secret, restarts the API with it. The
//   new process starts beside the old one and takes the Service only once it answers its probe (a
//   rolling update); one that does not come up is stopped and the old one keeps serving, the CR
//   not Ready;
// - the database is synced before the first start and again for a new image (the db-sync Job);
// - the CR's conditions: SecretsReady (the password and DB credential Secrets: reason
//   WaitingForDBCredentials as database.ReconcileConnectionSecret; Cinder's transport URL:
//   WaitingForMessagingCredentials as messaging.ReconcileTransportURLSecret; a URL that is not
//   rabbit://, upstream a reconcile error, here InvalidTransportURL), BackendsReady (Glance),
//   DatabaseReady, DeploymentReady, <Kind>APIReady (the health probe, through the in-cluster
//   Service URL as reconcile_healthcheck.go does), and Ready over them at the CR's generation;
// - a CinderBackend: CredentialsReady (none needed) and Ready once its Cinder exists;
// - a GlanceBackend: CredentialsReady (its S3 credentials Secret holds `access-key-id` and
//   `secret-access-key`), ConfigProjected (the serving Glance's config has its store), Ready.
// The venvs hold one release (2025.2): a CR asking for another image is served by the same code,
// and its Ready message says so.
import { createHash } from 'node:crypto';
import { execFile } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import type { Obj } from '../src/sim/cluster.js';
import { refOf } from '../src/sim/cluster.js';
import { condition } from '../src/sim/operators.js';
import type { Kube } from './kube.js';
import { GUNICORN_SERVING, mysqlUrl, type ProcessStarter } from './keystone.js';
import type { MariaDBs } from './mariadb.js';
import type { RabbitMQs } from './rabbitmq.js';
import type { OVNCentrals } from './ovn.js';
import { UNRECORDED, type ForwardProxy, type Route } from './forward-proxy.js';
import { FAKE_TRANSPORT_URL, KEYSTONE_PASSWORD_ENV, type ApiDescriptor, type Worker } from './openstack-api-descriptors.js';

const run = promisify(execFile);
const sha = (s: string) => createHash('sha256').update(s).digest('hex');
/** How long a new API process gets to answer its probe before the rollout counts as failed. */
const START_TIMEOUT_MS = 180_000;
/** A failed rollout is tried again after this long (as a crash-looping pod is restarted). */
const RETRY_AFTER_MS = 30_000;

interface Proc {
  port: number;
  handle: { stop(): Promise<void>; exited(): boolean };
}

interface Instance {
  ns: string;
  name: string;
  dir: string;
  d: ApiDescriptor;
  /** The process serving the Service now, and the template (hash) it was started from. */
  serving?: Proc & { template: string; image: string; passwordSha: string; startedAt: number };
  /** The image the database was last synced for. */
  syncedImage?: string;
  /** A rollout in flight (its template), or the last one that failed (and why). */
  rolling?: string;
  failed?: { template: string; message: string; at: number };
  starts: number;
  /** The MariaDB accounts made for it (managed mode: one per database block and schema), dropped when its CR goes. */
  accounts: { cluster: string; database: string; user: string }[];
  /** The processes beside the API (descriptor.workers), by name, started from the serving template. */
  workers: Map<string, { handle: Proc['handle']; template: string; worker: Worker; exitedAt?: number }>;
}

/** What one CR resolves to in a pass. */
interface Resolved {
  missing?: { reason: string; message: string };
  backends?: { ok: boolean; reason: string; message: string; names: string[]; defaultName: string };
  files?: Record<string, string>;
  env?: NodeJS.ProcessEnv;
  template?: string;
  passwordSha?: string;
  db?: string;
  /** (Neutron) the OVN connections the programs get (while the databases do not answer: `waiting`). */
  ovn?: { nb: string; sb: string };
  /** The bus the messaging Secret names (scheme, host and path: never its credentials). */
  bus?: string;
  /** The URL the processes get: the transport URL with the suite's RabbitMQ node for its host; none, fake://. */
  transport?: string;
  /** What the rollout waits for besides the Secrets (the broker to answer). */
  waiting?: string;
  workers?: Worker[];
}

/** The transport URL's variable (messaging.TransportURLEnvVarName) and the key of the messaging Secret it is read from. */
const TRANSPORT_URL_ENV = 'OS_DEFAULT__TRANSPORT_URL';
const TRANSPORT_URL_KEY = 'transport_url';
/** The module gunicorn loads for a WSGI entry that parses sys.argv: it sets the arguments uWSGI's --pyargv would. */
const ARGV_SHIM = 'c5c3_wsgi_argv';

export class OpenStackApis {
  private readonly instances = new Map<string, Instance>();
  private readonly versions = new Map<string, string>();

  constructor(
    private readonly descriptors: readonly ApiDescriptor[],
    private readonly venvOf: (d: ApiDescriptor) => string,
    private readonly dir: string,
    private readonly procs: ProcessStarter,
    private readonly proxy: ForwardProxy,
    private readonly note: (text: string) => void,
    private readonly databases: MariaDBs,
    private readonly brokers: RabbitMQs,
    private readonly ovns: OVNCentrals,
  ) {}

  /** The kinds this runner reconciles (the model's stand-ins leave them alone in its namespaces). */
  get kinds(): Set<string> {
    return new Set(this.descriptors.flatMap((d) => [d.kind, ...(d.parts ? [d.parts.kind] : [])]));
  }

  /** Each program and the version its venv holds (read from the venv, checked against the descriptor's). */
  async checkVersions(expected: (d: ApiDescriptor) => string): Promise<string[]> {
    const out: string[] = [];
    for (const d of this.descriptors) {
      const { stdout } = await run(join(this.venvOf(d), 'bin', 'python'), ['-c', 'import importlib.metadata,sys; print(importlib.metadata.version(sys.argv[1]))', d.package]);
      const version = stdout.trim();
      if (version !== expected(d)) throw new Error(`the ${d.program} venv holds ${d.package} ${version}, expected ${expected(d)}`);
      this.versions.set(d.kind, version);
      out.push(`${d.program} ${version}`);
    }
    return out;
  }

  /** The forward proxy's route: `{cr}.{ns}.svc:{port}` to the process serving that CR. */
  readonly route: Route = (host, port) => {
    const inst = [...this.instances.values()].find((i) => `${i.name}.${i.ns}.svc` === host && String(i.d.servicePort) === port);
    return inst?.serving && !inst.serving.handle.exited() ? inst.serving.port : undefined;
  };

  /** When the API of CR `ns/name` was last (re)started and the SHA-256 of the password it got. */
  servingOf(ns: string, name: string): { startedAt: number; passwordSha: string; starts: number } | undefined {
    const i = this.instances.get(`${ns}/${name}`);
    return i?.serving ? { startedAt: i.serving.startedAt, passwordSha: i.serving.passwordSha, starts: i.starts } : undefined;
  }

  async stop(): Promise<void> {
    for (const i of this.instances.values()) {
      for (const w of i.workers.values()) await w.handle.stop();
      await i.serving?.handle.stop();
    }
  }

  /** The compute hosts the suite runs in namespace `ns` (descriptor.computeHosts of each live CR there). */
  computeHosts(ns: string, listed: readonly Obj[]): string[] {
    return this.descriptors.flatMap((d) => (d.computeHosts ? listed.filter((o) => o.kind === d.kind && o.metadata.namespace === ns && !o.metadata.deletionTimestamp).flatMap((o) => d.computeHosts!(o)) : []));
  }

  /** Whether every process beside the API of CR `ns/name` runs from the template its API serves (a rollout finished with them). */
  workersCurrent(ns: string, name: string): boolean {
    const i = this.instances.get(`${ns}/${name}`);
    return !!i?.serving && i.workers.size > 0 && [...i.workers.values()].every((w) => w.template === i.serving!.template && !w.handle.exited());
  }

  /** The processes of CR `ns/name` beside its API (name → running), for the scenarios' messages. */
  workersOf(ns: string, name: string): Record<string, boolean> {
    const i = this.instances.get(`${ns}/${name}`);
    return Object.fromEntries([...(i?.workers ?? new Map())].map(([n, w]) => [n, !w.handle.exited()]));
  }

  /**
   * One pass over the service CRs and their parts in `listed` (the real-Keystone namespaces): roll
   * out what changed (in the background: a pass never waits for a process to come up), stop the
   * APIs whose CR is gone, write every status that moved.
   */
  async reconcile(kube: Kube, listed: Obj[]): Promise<void> {
    const seen = new Set<string>();
    const secrets = listed.filter((o) => o.kind === 'Secret');
    const centrals = listed.filter((o) => o.kind === 'OVNCentral');
    for (const d of this.descriptors) {
      for (const cr of listed.filter((o) => o.kind === d.kind)) {
        const key = `${cr.metadata.namespace}/${cr.metadata.name}`;
        seen.add(key);
        let inst = this.instances.get(key);
        if (!inst) {
          inst = { ns: cr.metadata.namespace, name: cr.metadata.name, dir: join(this.dir, `${d.program}-${cr.metadata.namespace}-${cr.metadata.name}`), d, starts: 0, workers: new Map(), accounts: [] };
          this.instances.set(key, inst);
        }
        const parts = d.parts ? listed.filter((o) => o.kind === d.parts!.kind && o.metadata.namespace === inst!.ns && d.parts!.parentOf(o) === inst!.name && !o.metadata.deletionTimestamp) : [];
        const r = this.resolve(inst, cr, secrets, centrals, parts, await this.accountOf(inst, cr, secrets));
        const backingOff = !!inst.failed && inst.failed.template === r.template && Date.now() - inst.failed.at < RETRY_AFTER_MS;
        if (r.template && r.template !== inst.serving?.template && inst.rolling === undefined && !backingOff && !cr.metadata.deletionTimestamp) {
          const i = inst;
          i.rolling = r.template;
          void this.rollOut(i, cr, r).finally(() => {
            if (i.rolling === r.template) i.rolling = undefined;
          });
        } else if (inst.rolling === undefined && r.template && inst.serving?.template === r.template) {
          await this.restartExited(inst, r);
        }
        await this.writeStatus(kube, cr, await this.conditions(inst, cr, r));
        for (const p of parts) await this.writeStatus(kube, p, this.partConditions(inst, p, r, secrets));
      }
      // Parts whose CR does not exist (the GlanceBackend controller's WaitingForParent).
      const parents = new Set(listed.filter((o) => o.kind === d.kind).map((o) => `${o.metadata.namespace}/${o.metadata.name}`));
      for (const p of listed.filter((o) => d.parts && o.kind === d.parts.kind && !parents.has(`${o.metadata.namespace}/${d.parts.parentOf(o)}`))) {
        const message = `parent ${d.kind} ${d.parts!.parentOf(p)} does not exist`;
        await this.writeStatus(kube, p, [['CredentialsReady', false, 'WaitingForParent', message], ['Ready', false, 'WaitingForParent', `CredentialsReady: ${message}`]]);
      }
    }
    for (const [key, inst] of this.instances) {
      if (seen.has(key)) continue;
      for (const w of inst.workers.values()) await w.handle.stop();
      await inst.serving?.handle.stop();
      this.instances.delete(key);
      this.note(`${inst.d.program} ${key}: stopped (its ${inst.d.kind} CR is gone)`);
      // The operator's finalizer deletes the Database, User and Grant it made.
      for (const a of inst.accounts) await this.databases.drop(inst.ns, a.cluster, a.database, a.user).catch((err: Error) => this.note(`${inst.d.program} ${key}: the database account ${a.user} on ${a.database} could not be dropped: ${err.message}`));
    }
  }

  /**
   * Managed mode (a database block's clusterRef): the CR's accounts on the real MariaDB, one per
   * block (and each further schema of it), made with the password of the block's DB credential
   * Secret, and where that server answers (`127.0.0.1:{port}`, by block field); `waiting` while it
   * does not (yet). Blocks that are brownfield or lack inputs are left out (resolve reports those).
   */
  private async accountOf(inst: Instance, cr: Obj, secrets: Obj[]): Promise<{ at: Record<string, string> } | { waiting: string }> {
    const at: Record<string, string> = {};
    if (cr.metadata.deletionTimestamp) return { at };
    for (const block of inst.d.databases) {
      const db = cr.spec?.[block.field] ?? {};
      const b64 = secrets.find((s) => s.metadata.namespace === inst.ns && s.metadata.name === db.secretRef?.name)?.data?.password;
      if (!db.clusterRef?.name || !db.database || b64 === undefined) continue;
      const password = Buffer.from(b64, 'base64').toString('utf8');
      for (const database of [db.database as string, ...(block.alsoSchemas?.(db.database) ?? [])]) {
        const account = { cluster: db.clusterRef.name as string, database, user: block.instance(inst.name) };
        try {
          const where = await this.databases.account(inst.ns, account.cluster, account.database, account.user, password);
          if (where === undefined) return { waiting: `MariaDB ${account.cluster} does not serve yet` };
          if (!inst.accounts.some((a) => a.database === database && a.user === account.user)) inst.accounts.push(account);
          at[block.field] = where;
        } catch (err) {
          return { waiting: `the account ${account.user} on MariaDB ${account.cluster}: ${(err as Error).message}` };
        }
      }
    }
    return { at };
  }

  /** The CR's inputs: Secrets, parts, the config files, the environment, the template hash. */
  private resolve(inst: Instance, cr: Obj, secrets: Obj[], centrals: Obj[], parts: Obj[], account: { at: Record<string, string> } | { waiting: string }): Resolved {
    const ns = inst.ns;
    const secretData = (name: string | undefined) => secrets.find((s) => s.metadata.namespace === ns && s.metadata.name === name)?.data as Record<string, string> | undefined;
    const value = (data: Record<string, string> | undefined, key: string) => (data?.[key] === undefined ? undefined : Buffer.from(data[key]!, 'base64').toString('utf8'));
    const out: Resolved = {};
    const user = cr.spec?.serviceUser ?? {};
    const password = value(secretData(user.secretRef?.name), user.secretRef?.key ?? 'password');
    // database.ReconcileConnectionSecret, per block: `password` from the Secret; the user is the
    // block's instance name in managed static mode (clusterRef), else the Secret's `username`.
    const blocks = inst.d.databases.map((use) => {
      const db = cr.spec?.[use.field] ?? {};
      const data = secretData(db.secretRef?.name);
      return { use, db, data, user: db.clusterRef ? use.instance(inst.name) : value(data, 'username'), password: value(data, 'password') };
    });
    const others = (inst.d.otherAccounts ?? []).map((a) => {
      const ref = a.secretRef(cr);
      return { section: a.section, ref, password: ref ? value(secretData(ref.name), ref.key ?? 'password') : undefined };
    });
    const noCredential = blocks.find((b) => b.data === undefined || b.user === undefined || b.password === undefined);
    const noOther = others.find((o) => o.ref && o.password === undefined);
    if (password === undefined) {
      out.missing = { reason: 'WaitingForServiceUserPassword', message: `Secret ${user.secretRef?.name} has no key ${user.secretRef?.key ?? 'password'}` };
    } else if (noOther) {
      out.missing = { reason: 'WaitingForServiceUserPassword', message: `Secret ${noOther.ref!.name} (the [${noOther.section}] account) has no key ${noOther.ref!.key ?? 'password'}` };
    } else if (noCredential) {
      const ref = noCredential.db.secretRef?.name;
      out.missing = { reason: 'WaitingForDBCredentials', message: noCredential.data === undefined ? `Upstream database credentials Secret ${ns}/${ref} not found` : `Upstream database credentials Secret ${ns}/${ref} missing key ${noCredential.user === undefined ? '"username"' : '"password"'}` };
    } else if ('waiting' in account) {
      out.missing = { reason: 'WaitingForDatabase', message: account.waiting };
    }
    // messaging.resolveBrownfield: the URL verbatim from spec.messaging.secretRef, scheme rabbit.
    let transportUrl: string | undefined;
    if (inst.d.messaging && !out.missing) {
      const ref = cr.spec?.messaging?.secretRef;
      const data = secretData(ref?.name);
      transportUrl = value(data, ref?.key ?? TRANSPORT_URL_KEY);
      const bus = transportUrl === undefined ? undefined : parseBus(transportUrl);
      if (!ref) out.missing = { reason: 'WaitingForMessagingCredentials', message: 'spec.messaging names no transport-URL Secret (the suite reads spec.messaging.secretRef only)' };
      else if (transportUrl === undefined) out.missing = { reason: 'WaitingForMessagingCredentials', message: data === undefined ? `brownfield transport-URL Secret ${ns}/${ref.name} not found` : `brownfield transport-URL Secret ${ns}/${ref.name} missing key "${ref.key ?? TRANSPORT_URL_KEY}"` };
      else if (bus === undefined) out.missing = { reason: 'InvalidTransportURL', message: `the transport URL in Secret ${ns}/${ref.name} key "${ref.key ?? TRANSPORT_URL_KEY}": scheme must be rabbit` };
      else {
        out.bus = bus;
        const real = this.realTransport(transportUrl);
        if (real && 'waiting' in real) out.waiting = real.waiting;
        else if (real) out.transport = real.url;
      }
    }
    const hostOf = (db: Obj) => (db.clusterRef ? `${db.clusterRef.name}.${ns}.svc:${db.port ?? 3306}` : `${db.host}:${db.port ?? 3306}`);
    out.db = blocks.map((b) => `user ${b.user ?? '?'} at ${hostOf(b.db)}/${b.db.database ?? '?'}`).join(', ');
    // (Neutron) the OVN connections of the OVNCentral the CR names, from its status.
    if (inst.d.ovn && !out.missing) {
      const ref = cr.spec?.ovn?.centralRef ?? {};
      const central = centrals.find((o) => o.metadata.namespace === (ref.namespace ?? ns) && o.metadata.name === ref.name);
      const nb = this.ovns.resolve(central?.status?.northbound?.internalDbAddress ?? '');
      const sb = this.ovns.resolve(central?.status?.southbound?.internalDbAddress ?? '');
      if (nb && sb) out.ovn = { nb, sb };
      else out.waiting ??= `OVNCentral ${ref.name}: its databases (${central?.status?.northbound?.internalDbAddress ?? 'no northbound address'}, ${central?.status?.southbound?.internalDbAddress ?? 'no southbound address'}) do not answer yet`;
    }
    let projected: { names: string[]; defaultName: string } | undefined;
    if (inst.d.parts?.projectedIntoApi) {
      const ready = parts.filter((p) => this.credentialsMissing(inst.d, p, secrets) === undefined).sort((a, b) => (a.metadata.name < b.metadata.name ? -1 : 1));
      const defaults = ready.filter((p) => inst.d.parts!.isDefault(p));
      const pending = parts.filter((p) => !ready.includes(p)).map((p) => `${p.metadata.name} (credentials not ready)`);
      const names = ready.map((p) => p.metadata.name as string);
      if (defaults.length !== 1) {
        out.backends = { ok: false, reason: 'NoDefaultBackend', message: `exactly one attached, credential-ready backend must be the default (${defaults.length} are)`, names, defaultName: '' };
      } else {
        projected = { names, defaultName: defaults[0]!.metadata.name };
        out.backends = pending.length > 0
          ? { ok: false, reason: 'WaitingForBackends', message: `Waiting for backends: ${pending.join('; ')}`, ...projected }
          : { ok: true, reason: 'AllBackendsProjected', message: 'All attached backends are projected', ...projected };
      }
    }
    if (out.missing || out.waiting || (inst.d.parts?.projectedIntoApi && !projected)) return out;
    const venv = this.venvOf(inst.d);
    out.files = inst.d.configFiles({ cr, dir: inst.dir, venv, parts: projected, ovn: out.ovn });
    // The workers' own files are part of the template too (a new backend rolls the service).
    const partNames = parts.map((p) => p.metadata.name as string).sort();
    out.workers = inst.d.workers?.({ cr, dir: inst.dir, venv, parts: projected, partNames }) ?? [];
    for (const w of out.workers) Object.assign(out.files, w.files ?? {});
    if (inst.d.wsgiArgv) {
      const [module, attr] = inst.d.wsgiApp.split(':');
      out.files[`${ARGV_SHIM}.py`] = `import sys\nsys.argv[1:] = ${JSON.stringify(inst.d.wsgiArgv(inst.dir))}\nfrom ${module} import ${attr} as application  # noqa: E402\n`;
    }
    const at = 'at' in account ? account.at : {};
    const urls = blocks.map((b, i) => {
      const where = at[b.use.field];
      return {
        section: b.use.section,
        url: where ? mysqlUrl(b.user!, b.password!, where, b.db.database ?? '') : `sqlite:///${join(inst.dir, i === 0 ? `${inst.d.program}.db` : `${inst.d.program}-${b.use.field}.db`)}?timeout=30`,
        dsn: `mysql+pymysql://${b.user}:${b.password}@${hostOf(b.db)}/${b.db.database ?? ''}`,
      };
    });
    out.db = blocks.map((b) => `user ${b.user} at ${hostOf(b.db)}/${b.db.database ?? ''}${at[b.use.field] ? ` (MariaDB ${b.db.clusterRef.name}, on ${at[b.use.field]})` : ' (SQLite: the suite runs no brownfield database)'}`).join(', ');
    out.passwordSha = sha(password!);
    out.env = {
      ...(inst.d.configDirEnv ? { [inst.d.configDirEnv]: inst.dir } : {}),
      ...(inst.d.env?.({ dir: inst.dir, venv }) ?? {}),
      ...Object.fromEntries(urls.map((u) => [`OS_${u.section.toUpperCase()}__CONNECTION`, u.url])),
      [KEYSTONE_PASSWORD_ENV]: password!,
      ...Object.fromEntries((inst.d.passwordSections ?? []).map((section) => [`OS_${section.toUpperCase()}__PASSWORD`, password!])),
      ...Object.fromEntries(others.filter((o) => o.password !== undefined).map((o) => [`OS_${o.section.toUpperCase()}__PASSWORD`, o.password!])),
      ...(inst.d.messaging ? { [TRANSPORT_URL_ENV]: out.transport ?? FAKE_TRANSPORT_URL } : {}),
      HOME: inst.dir,
      ...this.proxy.env(),
    };
    const image = `${cr.spec?.image?.repository ?? ''}:${cr.spec?.image?.tag ?? ''}`;
    // The pod template: the config, the image, the Secret the password env var names, and the digests.
    out.template = sha(JSON.stringify([out.files, image, user.secretRef?.name, urls.map((u) => sha(u.dsn)), out.passwordSha, others.map((o) => sha(o.password ?? '')), transportUrl === undefined ? '' : sha(transportUrl), sha(out.transport ?? '')]));
    return out;
  }

  private credentialsMissing(d: ApiDescriptor, part: Obj, secrets: Obj[]): string | undefined {
    const { secret, keys } = d.parts!.credentials(part);
    if (keys.length === 0) return undefined;
    const data = secrets.find((s) => s.metadata.namespace === part.metadata.namespace && s.metadata.name === secret)?.data ?? {};
    const absent = keys.filter((k) => data[k] === undefined);
    if (secret === undefined || absent.length > 0) return `Secret ${secret} lacks ${absent.join(', ')}`;
    return undefined;
  }

  /** Sync the database (new instance or image), start the API beside the serving one, switch once it answers. */
  private async rollOut(inst: Instance, cr: Obj, r: Resolved): Promise<void> {
    const key = `${inst.ns}/${inst.name}`;
    const image = `${cr.spec?.image?.repository ?? ''}:${cr.spec?.image?.tag ?? ''}`;
    const bin = (p: string) => join(this.venvOf(inst.d), 'bin', p);
    let proc: Proc | undefined;
    try {
      mkdirSync(inst.dir, { recursive: true });
      for (const [file, content] of Object.entries(r.files!)) {
        mkdirSync(dirname(join(inst.dir, file)), { recursive: true });
        writeFileSync(join(inst.dir, file), content);
      }
      const env = { ...process.env, ...r.env };
      if (inst.syncedImage !== image) {
        const path = `${join(this.venvOf(inst.d), 'bin')}:${process.env.PATH ?? ''}`;
        for (const [program, ...args] of inst.d.dbSync(inst.dir)) await run(program!.startsWith('/') ? program! : bin(program!), args, { env: { ...env, PATH: path }, timeout: 300_000 });
        // Write-ahead logging: readers never block the one writer (as Keystone's database).
        for (const use of inst.d.databases) {
          const url = String(r.env?.[`OS_${use.section.toUpperCase()}__CONNECTION`]);
          if (url.startsWith('sqlite:///')) await run('python3', ['-c', 'import sqlite3,sys; sqlite3.connect(sys.argv[1]).execute("pragma journal_mode=wal")', url.slice('sqlite:///'.length).split('?')[0]!]);
        }
        inst.syncedImage = image;
        this.note(`${inst.d.program} ${key}: database synced for ${image}`);
      }
      const port = await this.procs.freePort();
      inst.starts++;
      const app = inst.d.wsgiArgv ? ['--pythonpath', inst.dir, `${ARGV_SHIM}:application`] : [inst.d.wsgiApp];
      const serving = inst.d.apiThreads === undefined ? GUNICORN_SERVING : GUNICORN_SERVING.map((a, i, all) => (all[i - 1] === '--threads' ? String(inst.d.apiThreads) : a));
      const handle = this.procs.start(`${inst.d.program}-${inst.ns}-${inst.name}`, bin('gunicorn'), ['--bind', `127.0.0.1:${port}`, ...serving, ...app], { ...r.env, ...podIdentity(inst.d, `${inst.name}-api`) });
      proc = { port, handle };
      const until = Date.now() + START_TIMEOUT_MS;
      while (!(await this.answers(`http://127.0.0.1:${port}${inst.d.probePath}`))) {
        if (handle.exited()) throw new Error(`gunicorn exited before ${inst.d.probePath} answered (see its log)`);
        if (Date.now() > until) throw new Error(`${inst.d.probePath} did not answer within ${START_TIMEOUT_MS / 1000} s`);
        await new Promise((res) => setTimeout(res, 500));
      }
      const old = inst.serving;
      inst.serving = { ...proc, template: r.template!, image, passwordSha: r.passwordSha!, startedAt: Date.now() };
      inst.failed = undefined;
      await old?.handle.stop();
      this.note(`${inst.d.program} ${key}: ${old ? 'rolled' : 'serving'} on 127.0.0.1:${port} as ${inst.name}.${inst.ns}.svc:${inst.d.servicePort} (start ${inst.starts})`);
      // The other processes roll with it: the old ones stop first (a volume service's host identity is one process's).
      for (const [name, w] of inst.workers) {
        await w.handle.stop();
        inst.workers.delete(name);
      }
      for (const w of r.workers ?? []) this.startWorker(inst, w, r);
    } catch (err) {
      await proc?.handle.stop();
      const message = (err as Error).message.split('\n')[0]!.slice(0, 300);
      inst.failed = { template: r.template!, message, at: Date.now() };
      this.note(`${inst.d.program} ${key}: rollout failed: ${message}`);
    }
  }

  private startWorker(inst: Instance, w: Worker, r: Resolved): void {
    const env = { ...(w.noDatabase ? Object.fromEntries(Object.entries(r.env!).filter(([k]) => !k.endsWith('__CONNECTION'))) : r.env!), ...podIdentity(inst.d, `${inst.name}-${w.name}`) };
    const handle = this.procs.start(`${inst.d.program}-${inst.ns}-${inst.name}-${w.name}`, join(this.venvOf(inst.d), 'bin', w.program), w.args, env);
    inst.workers.set(w.name, { handle, template: r.template!, worker: w });
    this.note(`${inst.d.program} ${inst.ns}/${inst.name}: ${w.program} (${w.name}) started`);
  }

  /** A worker that exited is started again after RETRY_AFTER_MS, as a crash-looping pod is. */
  private async restartExited(inst: Instance, r: Resolved): Promise<void> {
    for (const [name, w] of inst.workers) {
      if (!w.handle.exited()) continue;
      w.exitedAt ??= Date.now();
      if (Date.now() - w.exitedAt < RETRY_AFTER_MS) continue;
      this.note(`${inst.d.program} ${inst.ns}/${inst.name}: ${w.worker.program} (${name}) exited; started again`);
      this.startWorker(inst, w.worker, r);
    }
  }

  /**
   * The transport URL the processes get for `url`: its one `{name}.{ns}.svc:5672` host replaced by
   * the suite's RabbitMQ node for it, or what it waits for while that node does not answer;
   * undefined for a bus the suite runs nothing for (a brownfield host, several hosts).
   */
  private realTransport(url: string): { url: string } | { waiting: string } | undefined {
    let u: URL;
    try {
      u = new URL(url);
    } catch {
      return undefined;
    }
    if (!u.hostname.endsWith('.svc') || u.host.includes(',')) return undefined;
    const port = u.port || '5672';
    const at = this.brokers.resolve(u.hostname, port);
    if (!at) return { waiting: `the broker ${u.hostname}:${port} does not answer yet` };
    return { url: url.replace(`@${u.host}`, `@${at}`) };
  }

  private async answers(url: string, viaProxy = false): Promise<boolean> {
    try {
      if (viaProxy) return (await this.proxy.get(url, { [UNRECORDED]: '1' }, 5000)).status === 200;
      return (await fetch(url, { signal: AbortSignal.timeout(5000) })).status === 200;
    } catch {
      return false;
    }
  }

  /** The CR's conditions, each [type, ok, reason, message], Ready last. */
  private async conditions(inst: Instance, cr: Obj, r: Resolved): Promise<[string, boolean, string, string][]> {
    const version = this.versions.get(inst.d.kind) ?? '?';
    const serviceUrl = `http://${inst.name}.${inst.ns}.svc:${inst.d.servicePort}`;
    const current = !!r.template && inst.serving?.template === r.template;
    const probe = !!inst.serving && (await this.answers(`${serviceUrl}${inst.d.probePath}`, true));
    const out: [string, boolean, string, string][] = [
      ['SecretsReady', !r.missing, r.missing?.reason ?? 'SecretsAvailable', r.missing?.message ?? `the service-user password and the DB credential (${r.db})${r.bus ? ` and the transport URL (${r.bus}; ${r.transport ? 'on the suite\'s RabbitMQ node for it' : r.waiting ?? `no broker runs for it here: oslo.messaging's ${FAKE_TRANSPORT_URL}`})` : ''} are read`],
    ];
    if (r.backends) out.push(['BackendsReady', r.backends.ok, r.backends.reason, r.backends.message]);
    out.push(['DatabaseReady', inst.syncedImage !== undefined, inst.syncedImage ? 'DatabaseSynced' : 'WaitingForDatabase', inst.syncedImage ? `${inst.d.program} db sync done for ${inst.syncedImage}` : 'the database is not synced yet']);
    const failed = inst.failed && inst.failed.template === r.template ? inst.failed.message : undefined;
    out.push(['DeploymentReady', current, current ? 'DeploymentReady' : failed ? 'RolloutFailed' : 'WaitingForDeployment', current ? `${inst.d.program} ${version} serves ${inst.serving!.image}` : failed ?? (inst.rolling ? 'rolling out' : r.waiting ? `waiting: ${r.waiting}` : 'waiting for the inputs above')]);
    out.push([inst.d.apiCondition, probe, probe ? 'APIHealthy' : 'APIUnhealthy', `GET ${serviceUrl}${inst.d.probePath}: ${probe ? '200' : 'no 200'}`]);
    const bad = out.find(([, ok]) => !ok);
    const releaseNote = r.template && cr.spec?.openStackRelease && cr.spec.openStackRelease !== '2025.2' ? ` (the suite's ${inst.d.program} venv is ${version}, 2025.2, for every release)` : '';
    out.push(['Ready', !bad, bad ? bad[2] : 'Ready', bad ? `${bad[0]}: ${bad[3]}` : `${inst.d.kind} is ready: ${inst.d.program} ${version} answers at ${serviceUrl}${releaseNote}`]);
    return out;
  }

  private partConditions(inst: Instance, part: Obj, r: Resolved, secrets: Obj[]): [string, boolean, string, string][] {
    const missing = this.credentialsMissing(inst.d, part, secrets);
    if (!inst.d.parts!.projectedIntoApi) {
      return [
        ['CredentialsReady', !missing, missing ? 'WaitingForCredentials' : 'CredentialsAvailable', missing ?? 'no credentials needed'],
        ['Ready', !missing, missing ? 'WaitingForCredentials' : 'Ready', missing ? `CredentialsReady: ${missing}` : `attached to ${inst.d.kind} ${inst.name}${inst.workers.size > 0 ? `; its ${inst.d.program} processes run from its config` : ''}`],
      ];
    }
    const projected = !!r.template && inst.serving?.template === r.template && (r.backends?.names ?? []).includes(part.metadata.name);
    const out: [string, boolean, string, string][] = [
      ['CredentialsReady', !missing, missing ? 'WaitingForCredentials' : 'CredentialsAvailable', missing ?? 'credentials available'],
      ['ConfigProjected', projected, projected ? 'ConfigProjected' : 'WaitingForProjection', projected ? `the serving ${inst.d.program} has its file store` : `not in the serving ${inst.d.program}'s config yet`],
    ];
    const bad = out.find(([, ok]) => !ok);
    out.push(['Ready', !bad, bad ? bad[2] : 'Ready', bad ? `${bad[0]}: ${bad[3]}` : 'backend attached']);
    return out;
  }

  /** The status as the operator writes it (conditions at the generation, observedGeneration, installedRelease once Ready); only on change. */
  private async writeStatus(kube: Kube, o: Obj, conds: [string, boolean, string, string][]): Promise<void> {
    const now = new Date();
    const generation = o.metadata.generation;
    const conditions = conds.map(([type, ok, reason, message]) => condition(o.status, type, ok, reason, message, now, generation));
    const ready = conds.at(-1)![1];
    const status: Obj = { ...(o.status ?? {}), observedGeneration: generation, conditions };
    if (ready && o.spec?.openStackRelease) status.installedRelease = o.spec.openStackRelease;
    const same = (a: Obj[], b: Obj[]) => JSON.stringify(a.map(({ lastTransitionTime: _, ...c }) => c)) === JSON.stringify(b.map(({ lastTransitionTime: _, ...c }) => c));
    if (o.status?.observedGeneration === generation && o.status?.installedRelease === status.installedRelease && same(o.status?.conditions ?? [], conditions)) return;
    try {
      await kube.patchStatus(refOf(o), status);
    } catch (err) {
      this.note(`status of ${o.kind} ${o.metadata.namespace}/${o.metadata.name}: ${(err as Error).message}`);
    }
  }
}

/**
 * The host name a process has on the bus, as its pod's would be. With `use_queue_manager`,
 * oslo.messaging names its reply and fanout queues `{hostname}:{processname}:{counter}`
 * (amqpdriver.py QManager; hostname and processname default to the machine's name and argv[0]):
 * every pod has a host name of its own, but here every process shares the machine's, and
 * nova-api's and cinder-api's gunicorn both took `reply_{machine}:gunicorn:1` — the compute's
 * replies to Nova's API went to Cinder's consumer and every RPC call from Nova's API timed out.
 */
function podIdentity(d: ApiDescriptor, pod: string): NodeJS.ProcessEnv {
  return d.messaging ? { OS_OSLO_MESSAGING_RABBIT__HOSTNAME: pod } : {};
}

/** A rabbit:// transport URL's scheme, hosts and vhost, without its credentials; undefined for another scheme or no URL. */
function parseBus(url: string): string | undefined {
  try {
    const u = new URL(url);
    return u.protocol === 'rabbit:' && u.host ? `rabbit://${u.host}${u.pathname || '/'}` : undefined;
  } catch {
    return undefined;
  }
}
