// Real Keystones for the e2e suite: one Keystone (the `keystone` package from PyPI, 2025.2 line,
// in a cached venv) per Keystone CR in the namespaces given, served by gunicorn on 127.0.0.1, on the
// real MariaDB its CR names (mariadb.ts: the database `spec.database.database`, the user named as
// the CR, seed 001's managed mode, with the password of spec.database.secretRef; the connection URL
// handed over as OS_DATABASE__CONNECTION, as the operator's derived `<name>-db-connection` Secret
// is) — on SQLite for a brownfield CR (spec.database.host: no server of the user's runs here) —
// bootstrapped with the admin password of the Secret the CR names — what the Keystone
// operator does (seed 001, reconcileBootstrap: `keystone-manage bootstrap` with the admin, internal
// and public URL and the region), again whenever that password changes (bootstrap updates the
// admin user's password). The catalog URL is the in-cluster one our clouds.yaml names,
// `http://{name}.{ns}.svc:5000/v3`; the suite's forward proxy (forward-proxy.ts: HTTP_PROXY of the
// processes that call Keystone) sends `{name}.{ns}.svc:5000` to the instance's port.
import { execFile } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { Obj } from '../src/sim/cluster.js';
import { refOf } from '../src/sim/cluster.js';
import type { Kube } from './kube.js';
import type { Route } from './forward-proxy.js';
import type { SpawnedProcess } from './harness.js';
import type { MariaDBs } from './mariadb.js';

const run = promisify(execFile);

/** The shim gunicorn loads: Keystone parses sys.argv with oslo.config, so gunicorn's own arguments must not reach it. */
const WSGI_SHIM = [
  'import sys',
  'sys.argv = sys.argv[:1]',
  'from keystone.server.wsgi import initialize_public_application',
  'application = initialize_public_application()',
  '',
].join('\n');

export interface ProcessStarter {
  /** Starts a long-running process with its output in the run's log `name`; resolves its handle. */
  start(name: string, command: string, args: string[], env: NodeJS.ProcessEnv): SpawnedProcess;
  freePort(): Promise<number>;
}

interface Instance {
  ns: string;
  name: string;
  dir: string;
  port: number;
  password: string;
  region: string;
  /** Where its database is: the MariaDB account it connects with, or SQLite in its directory (brownfield). */
  db: InstanceDb;
  proc?: SpawnedProcess;
  /** Stopped on purpose (a scenario's outage); not restarted until started again. */
  down: boolean;
  /** A scenario's misconfiguration on purpose: oslo.config settings as OS_<GROUP>__<OPTION> (misconfigure). */
  extraEnv?: Record<string, string>;
}

type InstanceDb = { kind: 'mariadb'; cluster: string; database: string; user: string; connection: string } | { kind: 'sqlite'; connection: string };

export const keystoneHost = (ns: string, name: string) => `${name}.${ns}.svc`;

/** The oslo.db URL of a MariaDB account, as seed 001's reconcileDBConnectionSecret builds it: userinfo percent-encoded, `?charset=utf8`. */
export const mysqlUrl = (user: string, password: string, hostPort: string, database: string) =>
  `mysql+pymysql://${encodeURIComponent(user)}:${encodeURIComponent(password)}@${hostPort}/${encodeURIComponent(database)}?charset=utf8`;

export class Keystones {
  private readonly instances = new Map<string, Instance>();
  /** Service-user passwords checked against Keystone (serviceUsers). */
  private readonly checked = new Map<string, { password: string; ok: boolean; at: number }>();

  constructor(
    private readonly venv: string,
    private readonly dir: string,
    private readonly procs: ProcessStarter,
    private readonly note: (text: string) => void,
    private readonly databases: MariaDBs,
  ) {}

  /** The forward proxy's route: `{name}.{ns}.svc:5000` to the instance serving that Keystone CR. */
  readonly route: Route = (host, port) => {
    const inst = [...this.instances.values()].find((i) => keystoneHost(i.ns, i.name) === host && port === '5000');
    return inst && !inst.down && inst.proc ? inst.port : undefined;
  };

  async stop(): Promise<void> {
    for (const i of this.instances.values()) await i.proc?.stop();
  }

  /** The local URL of the Keystone serving the CR `ns/name`, when it serves. */
  urlOf(ns: string, name: string): string | undefined {
    const i = this.instances.get(`${ns}/${name}`);
    return i?.proc && !i.down ? `http://127.0.0.1:${i.port}/v3` : undefined;
  }

  /**
   * The admin's API of the Keystone serving CR `ns/name` (undefined when none serves): a failed
   * connection is retried while that instance is still meant to serve (a crashed process is
   * started again), never once it was stopped (its CR gone, a scenario's outage).
   */
  api(ns: string, name: string): KeystoneApi | undefined {
    const url = this.urlOf(ns, name);
    const password = this.adminPasswordOf(ns, name);
    return url && password ? new KeystoneApi(url, password, () => this.urlOf(ns, name) === url) : undefined;
  }

  /** The admin password the instance was last bootstrapped with. */
  adminPasswordOf(ns: string, name: string): string | undefined {
    return this.instances.get(`${ns}/${name}`)?.password;
  }

  /**
   * The application credentials in the instance's database, read from its data (also after the
   * instance stopped with its CR, and its MariaDB with the ControlPlane): `{id, name}` each.
   * Garbage collection removes a released ControlPlane's Keystone and MariaDB in either order, so
   * what a MariaDB-backed database held is also kept when its server stops (databaseStopping).
   */
  async credentialsOnDisk(ns: string, name: string): Promise<{ id: string; name: string }[]> {
    const key = `${ns}/${name}`;
    const inst = this.instances.get(key);
    if (inst?.db.kind === 'mariadb') {
      try {
        return await this.applicationCredentials(ns, inst.db);
      } catch (err) {
        const kept = this.credentialsAtDeletion.get(key);
        if (kept) return await kept;
        throw err;
      }
    }
    const atDeletion = this.credentialsAtDeletion.get(key);
    if (atDeletion) return await atDeletion;
    if (this.onMariaDB.has(key)) throw new Error(`Keystone ${key} kept its data on MariaDB and nothing was read from it before it went`);
    const file = join(this.dir, `${ns}-${name}`, 'keystone.db');
    const { stdout } = await run('python3', ['-c', 'import json,sqlite3,sys; c=sqlite3.connect(sys.argv[1]); print(json.dumps([{"id": r[0], "name": r[1]} for r in c.execute("select id, name from application_credential")]))', file]);
    return JSON.parse(stdout) as { id: string; name: string }[];
  }

  /**
   * `read` runs once, when the suite sees Keystone CR `ns/name` gone or its MariaDB going, before
   * that instance stops: what its API answers then, without racing the stop (a poll of the API
   * while the CR lives can miss the last change before it goes).
   */
  beforeGone(ns: string, name: string, read: () => Promise<void>): void {
    this.lastReads.set(`${ns}/${name}`, read);
  }

  private readonly lastReads = new Map<string, () => Promise<void>>();

  private async runLastRead(key: string): Promise<void> {
    const read = this.lastReads.get(key);
    if (!read) return;
    this.lastReads.delete(key);
    try {
      await read();
    } catch (err) {
      this.note(`keystone ${key}: the read registered for its going failed: ${(err as Error).message}`);
    }
  }

  /** The application credentials a MariaDB-backed instance's database held when its CR or its server went (before the drop). */
  // The read itself, set in the same turn the instance leaves `instances`: a caller never finds neither.
  private readonly credentialsAtDeletion = new Map<string, Promise<{ id: string; name: string }[]>>();
  /** The instances ever bootstrapped on MariaDB: their credentials are never looked for in SQLite. */
  private readonly onMariaDB = new Set<string>();

  /**
   * MariaDB `ns/cluster` is about to stop (its CR gone): what each instance on it holds is kept
   * for credentialsOnDisk, read while the server still answers.
   */
  async databaseStopping(ns: string, cluster: string): Promise<void> {
    for (const [key, inst] of this.instances) {
      if (inst.ns !== ns || inst.db.kind !== 'mariadb' || inst.db.cluster !== cluster) continue;
      await this.runLastRead(key);
      const read = this.applicationCredentials(ns, inst.db);
      this.credentialsAtDeletion.set(key, read);
      try {
        await read;
      } catch (err) {
        this.note(`keystone ${key}: its database could not be read before MariaDB ${cluster} stopped: ${(err as Error).message}`);
      }
    }
  }

  private async applicationCredentials(ns: string, db: InstanceDb & { kind: 'mariadb' }): Promise<{ id: string; name: string }[]> {
    const rows = await this.databases.rows(ns, db.cluster, db.database, 'SELECT id, name FROM application_credential');
    return rows.map(([id, n]) => ({ id: id ?? '', name: n ?? '' }));
  }

  /**
   * The database of Keystone CR `k`: in managed mode (spec.database.clusterRef) the account on the
   * real MariaDB, made as the operator has mariadb-operator make it; brownfield: SQLite. A string
   * says what it waits for.
   */
  private async databaseOf(k: Obj, secrets: Obj[], dir: string): Promise<InstanceDb | string> {
    const ns: string = k.metadata.namespace;
    const db = k.spec?.database ?? {};
    if (!db.clusterRef?.name) return { kind: 'sqlite', connection: `sqlite:///${join(dir, 'keystone.db')}?timeout=30` };
    const ref = db.secretRef ?? {};
    const b64 = secrets.find((s) => s.metadata.namespace === ns && s.metadata.name === ref.name)?.data?.[ref.key ?? 'password'];
    if (!b64) return `waiting for the database credentials Secret ${ref.name}`;
    const password = Buffer.from(b64, 'base64').toString('utf8');
    const database: string = db.database ?? 'keystone';
    const user: string = k.metadata.name;
    const at = await this.databases.account(ns, db.clusterRef.name, database, user, password);
    if (at === undefined) return `waiting for MariaDB ${db.clusterRef.name}`;
    return { kind: 'mariadb', cluster: db.clusterRef.name, database, user, connection: mysqlUrl(user, password, at, database) };
  }

  /**
   * What the stand-in service operators (Placement, Glance) need of Keystone in these namespaces:
   * for each service CR whose namespace has a serving Keystone, whether its service user
   * authenticates there with the password its Secret holds, scoped to its project. Returns
   * username → password for those Keystone accepts. A pair once accepted is not asked again, a
   * refused one at most every 5 s (each password check costs Keystone a hash).
   */
  async serviceUsers(services: readonly Obj[], secrets: Obj[]): Promise<Map<string, string>> {
    const accepted = new Map<string, string>();
    // Each CR's service user, and Neutron's notifier account for Nova (spec.nova.serviceUser).
    for (const [o, user] of services.flatMap((o) => [o.spec?.serviceUser, o.spec?.nova?.serviceUser].filter((u) => u !== undefined).map((u) => [o, u] as const))) {
      const ns: string = o.metadata.namespace;
      const instance = [...this.instances.values()].find((i) => i.ns === ns && i.proc && !i.down);
      const secret = secrets.find((x) => x.metadata.namespace === ns && x.metadata.name === user.secretRef?.name);
      const value = secret?.data?.[user.secretRef?.key ?? 'password'];
      if (!instance || !user.username || value === undefined) continue;
      const password = Buffer.from(value, 'base64').toString('utf8');
      const key = `${ns}/${instance.name}/${user.username}/${user.projectName ?? 'service'}`;
      const seen = this.checked.get(key);
      let ok = seen?.password === password && seen.ok;
      if (!ok && !(seen?.password === password && Date.now() - seen.at < 5000)) {
        ok = await new KeystoneApi(`http://127.0.0.1:${instance.port}/v3`, instance.password).acceptsPassword(user.username, password, user.projectName ?? 'service').catch(() => false);
        this.checked.set(key, { password, ok, at: Date.now() });
        this.note(`service user ${user.username} in ${ns}/${instance.name}: ${ok ? 'authenticates' : 'refused'}`);
      }
      if (ok) accepted.set(user.username, password);
    }
    return accepted;
  }

  /** A scenario's outage: the instance stops answering (and is not restarted) until `up`. */
  async down(ns: string, name: string): Promise<void> {
    const i = this.instances.get(`${ns}/${name}`);
    if (!i) return;
    i.down = true;
    await i.proc?.stop();
    i.proc = undefined;
  }

  /**
   * A scenario's misconfiguration on purpose (`env`: oslo.config settings, OS_<GROUP>__<OPTION>;
   * undefined takes it back): the instance restarts with it on the next pass, as a pod rolled
   * with a changed config would; its CR stays Ready while it serves.
   */
  async misconfigure(ns: string, name: string, env: Record<string, string> | undefined): Promise<void> {
    const i = this.instances.get(`${ns}/${name}`);
    if (!i) throw new Error(`no Keystone ${ns}/${name} serves`);
    i.extraEnv = env;
    await i.proc?.stop();
    i.proc = undefined;
    this.note(`keystone ${ns}/${name}: restarted ${env ? `misconfigured on purpose (${Object.keys(env).join(', ')})` : 'with its own configuration again'}`);
  }

  up(ns: string, name: string): void {
    const i = this.instances.get(`${ns}/${name}`);
    if (i) i.down = false;
  }

  /**
   * One pass over the Keystone CRs, as the Keystone operator: bootstrap and serve the new ones,
   * re-bootstrap on a password change, stop those gone, and write each CR's status: Ready at its
   * generation while its Keystone serves, else NotReady with the reason.
   */
  async reconcile(kube: Kube, keystones: Obj[], secrets: Obj[]): Promise<void> {
    const notServing = new Map<string, string>();
    const seen = new Set<string>();
    for (const k of keystones) {
      const ns: string = k.metadata.namespace;
      const name: string = k.metadata.name;
      const key = `${ns}/${name}`;
      seen.add(key);
      if (k.metadata.deletionTimestamp) continue;
      const ref = k.spec?.bootstrap?.adminPasswordSecretRef ?? {};
      const secret = secrets.find((s) => s.metadata.namespace === ns && s.metadata.name === ref.name);
      const b64 = secret?.data?.[ref.key ?? 'password'];
      if (!b64) {
        notServing.set(key, `waiting for Secret ${ref.name}`);
        await this.writeStatus(kube, k, notServing.get(key));
        continue;
      }
      const password = Buffer.from(b64, 'base64').toString('utf8');
      const region: string = k.spec?.bootstrap?.region ?? 'RegionOne';
      let inst = this.instances.get(key);
      const dir = inst?.dir ?? join(this.dir, `${ns}-${name}`);
      let db: InstanceDb | string;
      try {
        db = await this.databaseOf(k, secrets, dir);
      } catch (err) {
        db = `the database account: ${(err as Error).message}`;
      }
      if (typeof db === 'string') {
        this.note(`keystone ${key}: ${db}`);
        await this.writeStatus(kube, k, db);
        continue;
      }
      try {
        if (!inst) {
          inst = { ns, name, dir, port: await this.procs.freePort(), password, region, db, down: false };
          await this.bootstrap(inst, true);
          this.instances.set(key, inst);
          if (db.kind === 'mariadb') this.onMariaDB.add(key);
          this.note(`keystone ${key}: bootstrapped (${db.kind === 'mariadb' ? `database ${db.database} as ${db.user} on MariaDB ${db.cluster}` : `sqlite in ${inst.dir}`})`);
        } else if (inst.db.connection !== db.connection) {
          // A new database password (or server): the operator rolls its pods with the new connection Secret.
          inst.db = db;
          await inst.proc?.stop();
          inst.proc = undefined;
          this.note(`keystone ${key}: restarted with the new database connection`);
        }
        if (inst.password !== password) {
          // Until bootstrap succeeds the old password holds (SQLite refuses a write while the
          // API writes: "database is locked"); the next pass retries.
          await this.bootstrap({ ...inst, password }, false);
          inst.password = password;
          this.note(`keystone ${key}: bootstrap set the new admin password`);
        }
        if (!inst.down && (!inst.proc || inst.proc.exited())) await this.serve(inst);
      } catch (err) {
        this.note(`keystone ${key}: ${(err as Error).message}`);
      }
      const serving = !!inst && !inst.down && !!inst.proc && (await this.serving(inst));
      await this.writeStatus(kube, k, serving ? undefined : inst?.down ? 'its pods are down' : 'bootstrap or API not ready');
    }
    for (const [key, inst] of this.instances) {
      if (seen.has(key)) continue;
      await this.runLastRead(key);
      const db = inst.db;
      // What its database holds, read before it leaves the map (credentialsOnDisk finds one or the other).
      const read = db.kind === 'mariadb' && this.databases.serves(inst.ns, db.cluster) ? this.applicationCredentials(inst.ns, db) : undefined;
      if (read) this.credentialsAtDeletion.set(key, read);
      // Out of the map before it stops: a call failing while it stops is then not retried (api()).
      this.instances.delete(key);
      await inst.proc?.stop();
      this.note(`keystone ${key}: stopped (its Keystone CR is gone)`);
      if (db.kind === 'mariadb') {
        // The operator's finalizer deletes the Database, User and Grant; what the database held then is kept for credentialsOnDisk.
        try {
          // The server may have gone first (garbage collection's order): then what it held was kept
          // as it stopped, and the account went with it, as mariadb-operator's SqlFinalizer
          // (pkg/controller/sql/finalizer.go Finalize) releases a User or Database whose MariaDB is gone or going.
          if (!read) {
            this.note(`keystone ${key}: MariaDB ${db.cluster} went before it; its account went with the server`);
            continue;
          }
          await read;
          await this.databases.drop(inst.ns, db.cluster, db.database, db.user);
        } catch (err) {
          this.note(`keystone ${key}: the database account could not be dropped: ${(err as Error).message}`);
        }
      }
    }
  }

  /** The CR's status as the Keystone operator writes it (Ready, observedGeneration); only on change. */
  private async writeStatus(kube: Kube, k: Obj, notReady: string | undefined): Promise<void> {
    const ready = notReady === undefined;
    const old = ((k.status?.conditions ?? []) as Obj[]).find((c) => c.type === 'Ready');
    const reason = ready ? 'Ready' : 'NotReady';
    const message = ready ? 'Keystone is ready' : notReady;
    if (old?.status === (ready ? 'True' : 'False') && old.reason === reason && old.message === message && k.status?.observedGeneration === k.metadata.generation) return;
    const condition = { type: 'Ready', status: ready ? 'True' : 'False', reason, message, lastTransitionTime: old?.status === (ready ? 'True' : 'False') ? old.lastTransitionTime : new Date().toISOString() };
    try {
      await kube.patchStatus(refOf(k), { ...(k.status ?? {}), observedGeneration: k.metadata.generation, conditions: [condition] });
    } catch (err) {
      this.note(`status of Keystone ${k.metadata.namespace}/${k.metadata.name}: ${(err as Error).message}`);
    }
  }

  private conf(inst: Instance): string {
    return join(inst.dir, 'keystone.conf');
  }

  private async bootstrap(inst: Instance, fresh: boolean): Promise<void> {
    const manage = join(this.venv, 'bin', 'keystone-manage');
    const conf = ['--config-file', this.conf(inst)];
    if (fresh) {
      mkdirSync(inst.dir, { recursive: true });
      writeFileSync(
        this.conf(inst),
        [
          '[DEFAULT]',
          `log_file = ${join(inst.dir, 'keystone.log')}`,
          // [database] connection comes from the environment (OS_DATABASE__CONNECTION, dbEnv), as
          // the operator hands it over: never in a file. SQLite (brownfield) takes one writer at a
          // time: a writer waits up to 30 s for the lock (bootstrap beside the API) instead of
          // failing with "database is locked".
          '[fernet_tokens]',
          `key_repository = ${join(inst.dir, 'fernet-keys')}`,
          '[credential]',
          `key_repository = ${join(inst.dir, 'credential-keys')}`,
          '[cache]',
          'enabled = false',
          // bcrypt at Keystone's default 12 rounds costs ~0.22 s of a core per password hashed or
          // checked (every password token, every user Tempest's dynamic credentials create); 4 is
          // the least bcrypt takes (keystone/conf/identity.py) and the hash stays bcrypt. A test
          // knob only: the product never sets it, and nothing here depends on how slow a hash is.
          '[identity]',
          'password_hash_rounds = 4',
          '',
        ].join('\n'),
      );
      writeFileSync(join(inst.dir, 'c5c3_e2e_wsgi.py'), WSGI_SHIM);
      const owner = ['--keystone-user', String(process.getuid?.() ?? 0), '--keystone-group', String(process.getgid?.() ?? 0)];
      await run(manage, [...conf, 'db_sync'], { env: this.dbEnv(inst) });
      // Write-ahead logging: readers (an open read transaction of the API's pool) never block the
      // one writer, so a DELETE does not fail with "database is locked" (persistent in the file).
      if (inst.db.kind === 'sqlite') await run('python3', ['-c', 'import sqlite3,sys; sqlite3.connect(sys.argv[1]).execute("pragma journal_mode=wal")', join(inst.dir, 'keystone.db')]);
      await run(manage, [...conf, 'fernet_setup', ...owner], { env: this.dbEnv(inst) });
      await run(manage, [...conf, 'credential_setup', ...owner], { env: this.dbEnv(inst) });
    }
    const url = `http://${keystoneHost(inst.ns, inst.name)}:5000/v3`;
    // The password goes through the environment, as the operator's Job passes it, never argv.
    await run(manage, [...conf, 'bootstrap', '--bootstrap-admin-url', url, '--bootstrap-internal-url', url, '--bootstrap-public-url', url, '--bootstrap-region-id', inst.region], {
      env: { ...this.dbEnv(inst), OS_BOOTSTRAP_PASSWORD: inst.password },
    });
  }

  /** The environment of every Keystone process: the database connection as oslo.config reads it from the environment. */
  private dbEnv(inst: Instance): NodeJS.ProcessEnv {
    return { ...process.env, OS_DATABASE__CONNECTION: inst.db.connection };
  }

  private async serve(inst: Instance): Promise<void> {
    inst.proc = this.procs.start(`keystone-${inst.ns}-${inst.name}`, join(this.venv, 'bin', 'gunicorn'), ['--chdir', inst.dir, '--bind', `127.0.0.1:${inst.port}`, ...GUNICORN_SERVING, 'c5c3_e2e_wsgi:application'], {
      OS_KEYSTONE_CONFIG_FILES: this.conf(inst),
      OS_DATABASE__CONNECTION: inst.db.connection,
      HOME: inst.dir,
      ...inst.extraEnv,
    });
  }

  private async serving(inst: Instance): Promise<boolean> {
    try {
      return (await fetch(`http://127.0.0.1:${inst.port}/v3`, { signal: AbortSignal.timeout(5000) })).ok;
    } catch {
      return false;
    }
  }
}

/**
 * How gunicorn serves every real OpenStack process here (Keystone, openstack-apis.ts): one worker
 * of 4 threads (the gthread worker), and
 * - `--timeout 300`: a worker is not killed for a request that takes 30 s on a busy machine (the
 *   default; a killed worker resets the connections it holds);
 * - `--no-control-socket`: its path under a run's directory is longer than a Unix socket's
 *   ("Control server error: AF_UNIX path too long");
 * - `--keep-alive 120`: an idle connection stays open longer than any client here keeps one. The
 *   gthread worker closes a connection idle for `keepalive` seconds (default 2; gunicorn
 *   workers/gthread.py murder_keepalived) and says nothing of it in its answers, while Node's
 *   fetch (undici) reuses an idle socket for up to 4 s (undici Client keepAliveTimeout) and Go's
 *   default HTTP transport for up to 90 s (net/http DefaultTransport IdleConnTimeout). A request
 *   sent on a socket the server closed meanwhile fails with "other side closed" (UND_ERR_SOCKET;
 *   nodejs/undici#3141): CI saw it on scenario 26's GET /v3/users.
 */
export const GUNICORN_SERVING = ['--workers', '1', '--threads', '4', '--timeout', '300', '--keep-alive', '120', '--no-control-socket'] as const;

/** How long a call to a real Keystone retries when its connection fails (the process restarting). */
const RECONNECT_MS = 60_000;

/**
 * `fetch`, retried while the connection fails (refused, reset: the gunicorn worker or the whole
 * instance restarting after a crash, which the Keystone stand-in operator starts again within a
 * tick) and `serving` says the instance is still meant to serve, for up to RECONNECT_MS; not once
 * it was stopped on purpose (its CR gone, a scenario's outage): that failure is the answer. An
 * HTTP answer, whatever its status, is returned at once. Each retry is printed, so a run that
 * needed one says so.
 */
export async function fetchReconnecting(url: string, init: RequestInit, serving: () => boolean): Promise<Response> {
  const until = Date.now() + RECONNECT_MS;
  for (let attempt = 1; ; attempt++) {
    try {
      return await fetch(url, init);
    } catch (err) {
      const cause = (err as { cause?: { code?: string; message?: string } }).cause;
      const why = `${(err as Error).message}${cause ? ` (${cause.code ?? cause.message})` : ''}`;
      if (!(err instanceof TypeError) || !serving() || Date.now() > until) throw new Error(`${init.method ?? 'GET'} ${url}: ${why}`, { cause: err });
      console.log(`    !!!!! ${init.method ?? 'GET'} ${url}: ${why}; retrying (attempt ${attempt + 1})`);
      await new Promise((res) => setTimeout(res, Math.min(1000 * attempt, 5000)));
    }
  }
}

/** Keystone's own API with the admin user's password (project admin in Default). */
export class KeystoneApi {
  private token: string | undefined;
  constructor(
    readonly url: string,
    private readonly password: string,
    /** Whether the instance is still meant to serve: a failed connection is retried while it is (fetchReconnecting; Keystones.api). */
    private readonly serving: () => boolean = () => false,
  ) {}

  private send(url: string, init: RequestInit = {}): Promise<Response> {
    return fetchReconnecting(url, init, this.serving);
  }

  /** A token of the admin user (project admin in Default): its id and body. */
  private async issue(): Promise<{ id: string; token: Obj }> {
    const res = await this.send(`${this.url}/auth/tokens`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        auth: {
          identity: { methods: ['password'], password: { user: { name: 'admin', domain: { id: 'default' }, password: this.password } } },
          scope: { project: { name: 'admin', domain: { id: 'default' } } },
        },
      }),
    });
    if (res.status !== 201) throw new Error(`Keystone login as admin: HTTP ${res.status}`);
    return { id: res.headers.get('x-subject-token')!, token: ((await res.json()) as Obj).token };
  }

  private async login(): Promise<string> {
    return (await this.issue()).id;
  }

  /** The service types in the catalog of a new token (what a client finds its endpoints in). */
  async catalogTypes(): Promise<string[]> {
    return (((await this.issue()).token.catalog ?? []) as Obj[]).map((c) => c.type as string);
  }

  async get(path: string): Promise<Obj> {
    this.token ??= await this.login();
    const res = await this.send(`${this.url}${path}`, { headers: { 'x-auth-token': this.token } });
    if (!res.ok) throw new Error(`Keystone GET ${path}: HTTP ${res.status}`);
    return (await res.json()) as Obj;
  }

  async adminUserId(): Promise<string> {
    const users = (await this.get('/users?name=admin&domain_id=default')).users as Obj[];
    return users[0]!.id;
  }

  /** The admin user's application credentials. */
  async applicationCredentials(): Promise<Obj[]> {
    return (await this.get(`/users/${await this.adminUserId()}/application_credentials`)).application_credentials as Obj[];
  }

  /** Authenticates with an application credential: whether Keystone accepts it. */
  async acceptsApplicationCredential(id: string, secret: string): Promise<boolean> {
    const res = await this.send(`${this.url}/auth/tokens`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ auth: { identity: { methods: ['application_credential'], application_credential: { id, secret } } } }),
    });
    return res.status === 201;
  }

  async services(): Promise<Obj[]> {
    return (await this.get('/services')).services as Obj[];
  }

  async users(): Promise<Obj[]> {
    return (await this.get('/users')).users as Obj[];
  }

  async projects(): Promise<Obj[]> {
    return (await this.get('/projects')).projects as Obj[];
  }

  /** `role@project` for each of the user's role assignments, by name. */
  async roleAssignmentsOf(userId: string): Promise<string[]> {
    const all = (await this.get(`/role_assignments?user.id=${encodeURIComponent(userId)}&include_names=true`)).role_assignments as Obj[];
    return all.map((a) => `${a.role?.name}@${a.scope?.project?.name ?? 'system'}`);
  }

  /** Authenticates as a user of domain Default with a password, scoped to a project: whether Keystone accepts it. */
  async acceptsPassword(user: string, password: string, project: string): Promise<boolean> {
    const res = await this.send(`${this.url}/auth/tokens`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        auth: {
          identity: { methods: ['password'], password: { user: { name: user, domain: { id: 'default' }, password } } },
          scope: { project: { name: project, domain: { id: 'default' } } },
        },
      }),
    });
    return res.status === 201;
  }

  async regions(): Promise<Obj[]> {
    return (await this.get('/regions')).regions as Obj[];
  }

  async endpoints(): Promise<Obj[]> {
    return (await this.get('/endpoints')).endpoints as Obj[];
  }
}
