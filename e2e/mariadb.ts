// Real MariaDB servers for the e2e suite: one mariadbd (Debian's mariadb-server, installed by
// setup.sh) per MariaDB CR in the real-OpenStack namespaces, in a data directory of its own, on
// 127.0.0.1 and a port of its own: what mariadb-operator runs as a StatefulSet behind the Service
// `{name}.{ns}.svc:3306`. One server, not the CR's Galera cluster of `spec.replicas`: one machine
// cannot be three Galera nodes, and nothing the hooks project depends on the replication. The CR's
// Ready condition stays the stand-in model's (src/sim/operators.ts: the outage scenarios drive it);
// what is real here is every account and every connection.
//
// The accounts are made as the service operators have mariadb-operator make them: a Database, a
// User and a Grant per consumer (seed 001, reconcileDatabase: Database `keystone` utf8mb4 /
// utf8mb4_general_ci, User with the password of spec.database.secretRef, Grant ALL PRIVILEGES on
// `keystone`.*), which mariadb-operator v0.38.1 turns into SQL (pkg/sql/sql.go: CreateDatabase,
// CreateUser `CREATE USER IF NOT EXISTS 'u'@'%' IDENTIFIED BY '…'`, AlterUser when the password
// changed, Grant `GRANT ALL PRIVILEGES ON `db`.* TO …`; DropUser/DropDatabase on deletion). The CRs
// themselves are skipped (the suite plays both operators): the statements are the same.
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { Obj } from '../src/sim/cluster.js';
import type { ProcessStarter } from './keystone.js';
import type { SpawnedProcess } from './harness.js';

const run = promisify(execFile);

/** Debian installs the server in /usr/sbin, which a non-root PATH may lack. */
const tool = (name: string) => [join('/usr/sbin', name), join('/usr/bin', name)].find((p) => existsSync(p)) ?? name;

/**
 * Test durability only (the suite's data lives for one run): no fsync per commit, no binary log,
 * a small buffer pool (each server holds a few OpenStack schemas). `max_connections` above the
 * services' pools (oslo.db: 5 + 10 overflow per process).
 */
const SERVER_FLAGS = [
  '--skip-name-resolve',
  '--skip-log-bin',
  '--innodb-flush-log-at-trx-commit=0',
  '--innodb-doublewrite=0',
  '--innodb-buffer-pool-size=64M',
  '--innodb-log-file-size=16M',
  '--performance-schema=OFF',
  '--max-connections=500',
  '--character-set-server=utf8mb4',
  '--collation-server=utf8mb4_general_ci',
];

/** A string literal for MariaDB's SQL (NO_BACKSLASH_ESCAPES is off by default). */
export const sqlString = (s: string) => `'${s.replace(/\\/g, '\\\\').replace(/'/g, "\\'").replace(/\0/g, '\\0')}'`;
/** An identifier (a database name). */
export const sqlIdent = (s: string) => `\`${s.replace(/`/g, '``')}\``;

interface Server {
  ns: string;
  name: string;
  dir: string;
  port: number;
  proc?: SpawnedProcess;
  /** Accounts made, `{user}/{database}` → the password they were given. */
  accounts: Map<string, string>;
}

export class MariaDBs {
  private readonly stoppedServers = new Set<string>();
  private readonly servers = new Map<string, Server>();
  private version = '';
  /** The users dropped so far, by `ns/cluster` (their consumer's CR gone). */
  private readonly droppedUsers = new Map<string, string[]>();

  constructor(
    private readonly dir: string,
    private readonly procs: ProcessStarter,
    private readonly note: (text: string) => void,
  ) {}

  /** `mariadbd --version`, checked once: a missing server fails loudly (setup.sh installs it). */
  async checkVersion(): Promise<string> {
    const { stdout } = await run(tool('mariadbd'), ['--version']).catch(() => {
      throw new Error('mariadbd not found: e2e/setup.sh installs Debian\'s mariadb-server (apt-get install mariadb-server)');
    });
    this.version = /Ver\s+(\S+)/.exec(stdout)?.[1] ?? stdout.trim();
    return this.version;
  }

  /**
   * The servers of the MariaDB CRs listed (the real namespaces'): a server for each live CR that
   * has none (or whose process exited). Runs before the consumers' pass (their accounts need it).
   */
  async startListed(mariadbs: readonly Obj[]): Promise<void> {
    for (const o of mariadbs) {
      if (o.metadata.deletionTimestamp) continue;
      const key = `${o.metadata.namespace}/${o.metadata.name}`;
      const s: Server = this.servers.get(key) ?? { ns: o.metadata.namespace, name: o.metadata.name, dir: join(this.dir, `${o.metadata.namespace}-${o.metadata.name}`), port: 0, accounts: new Map() };
      this.servers.set(key, s);
      if (s.proc && !s.proc.exited()) continue;
      try {
        await this.start(s);
      } catch (err) {
        this.note(`mariadb ${key}: ${(err as Error).message}`);
      }
    }
  }

  /**
   * The servers whose MariaDB CR is gone stop. Runs after the consumers' pass, so a consumer gone
   * in the same pass (a ControlPlane's Keystone and MariaDB) drops its account first.
   */
  async stopUnlisted(mariadbs: readonly Obj[], stopping?: (ns: string, name: string) => Promise<void>): Promise<void> {
    const listed = new Set(mariadbs.map((o) => `${o.metadata.namespace}/${o.metadata.name}`));
    for (const [key, s] of this.servers) {
      if (listed.has(key)) continue;
      // Garbage collection may remove the MariaDB CR before a consumer's: `stopping` reads what the consumers need while it still answers.
      if (stopping && this.serving(s.ns, s.name)) await stopping(s.ns, s.name);
      this.servers.delete(key);
      this.stoppedServers.add(key);
      await s.proc?.stop();
      this.note(`mariadb ${key}: stopped (its MariaDB CR is gone)`);
    }
  }

  private async start(s: Server): Promise<void> {
    const data = join(s.dir, 'data');
    if (!existsSync(join(data, 'mysql'))) {
      rmSync(s.dir, { recursive: true, force: true });
      mkdirSync(s.dir, { recursive: true });
      // Root authenticates by the socket's peer (the suite's own user): no root password to keep.
      await run(tool('mariadb-install-db'), ['--no-defaults', `--datadir=${data}`, '--auth-root-authentication-method=socket', '--skip-test-db', `--user=${process.env.USER ?? 'root'}`], { timeout: 120_000 });
      this.note(`mariadb ${s.ns}/${s.name}: data directory initialised in ${data}`);
    }
    s.port ||= await this.procs.freePort();
    const args = ['--no-defaults', `--datadir=${data}`, `--socket=${this.socket(s)}`, `--port=${s.port}`, '--bind-address=127.0.0.1', `--pid-file=${join(s.dir, 'mariadbd.pid')}`, ...SERVER_FLAGS];
    if (process.getuid?.() === 0) args.push('--user=root');
    s.proc = this.procs.start(`mariadb-${s.ns}-${s.name}`, tool('mariadbd'), args, process.env);
    const until = Date.now() + 60_000;
    while (!(await this.answers(s))) {
      if (s.proc.exited()) throw new Error('mariadbd exited before it answered (see its log)');
      if (Date.now() > until) throw new Error('mariadbd did not answer within 60 s');
      await new Promise((r) => setTimeout(r, 250));
    }
    // A restarted server keeps its accounts (they are in its data directory).
    this.note(`mariadb ${s.ns}/${s.name}: MariaDB ${this.version} serving on 127.0.0.1:${s.port} as ${s.name}.${s.ns}.svc:3306`);
  }

  private socket(s: Server): string {
    return join(s.dir, 'mariadbd.sock');
  }

  private async answers(s: Server): Promise<boolean> {
    try {
      await this.sql(s, 'SELECT 1');
      return true;
    } catch {
      return false;
    }
  }

  /** Statements as root over the server's socket, given on stdin (a password never in argv). */
  private async sql(s: Server, statements: string): Promise<string> {
    return new Promise((resolve, reject) => {
      const child = execFile(tool('mariadb'), ['--no-defaults', '-uroot', `--socket=${this.socket(s)}`, '--batch', '--skip-column-names'], { timeout: 60_000 }, (err, stdout, stderr) => {
        // The error names the statement's failure, never the statement (it may hold a password).
        if (err) reject(new Error(`mariadb: ${String(stderr).split('\n')[0] || err.message.split('\n')[0]}`));
        else resolve(String(stdout));
      });
      // A client that exits before it reads (the server not up yet) fails in the callback above; its closed stdin must not crash the suite (EPIPE).
      child.stdin?.on('error', () => undefined);
      child.stdin?.end(`${statements};\n`);
    });
  }

  /** Whether MariaDB CR `ns/name` has a running server. */
  serves(ns: string, name: string): boolean {
    return this.serving(ns, name) !== undefined;
  }

  /** The serving server of MariaDB CR `ns/name`, if it answers. */
  private serving(ns: string, name: string): Server | undefined {
    const s = this.servers.get(`${ns}/${name}`);
    return s?.proc && !s.proc.exited() ? s : undefined;
  }

  /**
   * The account `user` on database `database` of MariaDB `ns/cluster`, with `password`: the
   * Database, User and Grant made (or the password altered), as mariadb-operator does for the
   * operators' CRs. Returns `127.0.0.1:{port}` where the server answers, undefined when it does not
   * serve (yet).
   */
  async account(ns: string, cluster: string, database: string, user: string, password: string): Promise<string | undefined> {
    const s = this.serving(ns, cluster);
    if (!s) return undefined;
    const key = `${user}/${database}`;
    const had = s.accounts.get(key);
    if (had !== password) {
      const account = `${sqlString(user)}@'%'`;
      await this.sql(s, [
        `CREATE DATABASE IF NOT EXISTS ${sqlIdent(database)} CHARACTER SET = 'utf8mb4' COLLATE = 'utf8mb4_general_ci'`,
        `CREATE USER IF NOT EXISTS ${account} IDENTIFIED BY ${sqlString(password)}`,
        `ALTER USER ${account} IDENTIFIED BY ${sqlString(password)}`,
        `GRANT ALL PRIVILEGES ON ${sqlIdent(database)}.* TO ${account}`,
      ].join(';\n'));
      s.accounts.set(key, password);
      this.note(`mariadb ${ns}/${cluster}: ${had === undefined ? 'database, user and grant' : 'new password'} for ${user} on ${database}`);
    }
    return `127.0.0.1:${s.port}`;
  }

  /** The account and its database dropped (the consumer's CR gone), as mariadb-operator's DropUser and DropDatabase. */
  async drop(ns: string, cluster: string, database: string, user: string): Promise<void> {
    const s = this.serving(ns, cluster);
    if (!s) return;
    await this.sql(s, `DROP USER IF EXISTS ${sqlString(user)}@'%';\nDROP DATABASE IF EXISTS ${sqlIdent(database)}`);
    s.accounts.delete(`${user}/${database}`);
    this.droppedUsers.set(`${ns}/${cluster}`, [...(this.droppedUsers.get(`${ns}/${cluster}`) ?? []), user]);
    this.note(`mariadb ${ns}/${cluster}: dropped user ${user} and database ${database}`);
  }

  /** Whether the server of MariaDB `ns/cluster` stopped with its CR. */
  stopped(ns: string, cluster: string): boolean {
    return this.stoppedServers.has(`${ns}/${cluster}`);
  }

  /** The users dropped from MariaDB `ns/cluster` so far (also once it stopped). */
  dropped(ns: string, cluster: string): string[] {
    return this.droppedUsers.get(`${ns}/${cluster}`) ?? [];
  }

  /** The users of MariaDB `ns/cluster` (root and the system accounts left out), when it serves. */
  async users(ns: string, cluster: string): Promise<string[] | undefined> {
    const s = this.serving(ns, cluster);
    if (!s) return undefined;
    const out = await this.sql(s, "SELECT User FROM mysql.user WHERE User NOT IN ('root', 'mysql', 'mariadb.sys', '') ORDER BY User");
    return out.split('\n').filter((l) => l.length > 0);
  }

  /** Rows of `query` on database `database` of MariaDB `ns/cluster` (tab-separated columns); it must serve. */
  async rows(ns: string, cluster: string, database: string, query: string): Promise<string[][]> {
    const s = this.serving(ns, cluster);
    if (!s) throw new Error(`MariaDB ${ns}/${cluster} does not serve: no rows of ${database}`);
    const out = await this.sql(s, `USE ${sqlIdent(database)};\n${query}`);
    return out.split('\n').filter((l) => l.length > 0).map((l) => l.split('\t'));
  }

  /** Every server stops (their data directories stay in the run's folder, for a look afterwards). */
  async stop(): Promise<void> {
    for (const s of this.servers.values()) await s.proc?.stop();
  }
}
