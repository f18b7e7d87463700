// Real RabbitMQ servers for the e2e suite: one rabbitmq-server (Debian's, installed by setup.sh)
// per RabbitmqCluster CR in the real-OpenStack namespaces, in a directory of its own, on 127.0.0.1
// and a port of its own: what the RabbitMQ cluster operator runs as a StatefulSet behind the
// Service `{name}.{ns}.svc:5672`. One node, not the CR's `spec.replicas`: nothing the hooks project
// depends on clustering. The CR's status and its default-user Secret stay the stand-in model's
// (src/sim/operators.ts, as the cluster operator writes them; the outage scenarios drive them);
// what is real here is the broker, its default user and every connection to it.
//
// The default user is the one the Secret names, made as the cluster operator makes it
// (rabbitmq/cluster-operator @ 06cda8e8 internal/resource/default_user_secret.go: the Secret's
// `default_user.conf`, `default_user = …` and `default_pass = …`, is mounted into the node's
// conf.d, so the broker boots with that user and no `guest`); its tags and permissions as the
// broker's defaults for it (administrator, `.*` on the root vhost).
//
// A service reaches the broker at the host and port of the default-user Secret, as the hooks put
// them into its transport URL; with no cluster DNS here, `resolve` maps `{name}.{ns}.svc:5672` to
// the node's 127.0.0.1 port for the programs the suite starts (openstack-apis.ts), the AMQP
// counterpart of the forward proxy's routes.
import { connect } from 'node:net';
import { existsSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Obj } from '../src/sim/cluster.js';
import { secretString, sha256Hex } from '../src/k8s/secret.js';
import type { ProcessStarter } from './keystone.js';
import type { SpawnedProcess } from './harness.js';

/** Debian's scripts: the server and rabbitmqctl without the /usr/sbin wrappers that switch to the rabbitmq user. */
const LIB = '/usr/lib/rabbitmq';
/** The AMQP 0-9-1 service port the Service and the default-user Secret name (cluster-operator AMQPPort). */
export const AMQP_PORT = '5672';
/** How long a node gets to open its AMQP listener (about 20 s on a busy 2-core machine). */
const START_TIMEOUT_MS = 120_000;

interface Node {
  ns: string;
  name: string;
  dir: string;
  port: number;
  /** The default user it booted with: a new one needs a fresh node (default_user applies to an empty database only). */
  user: string;
  password: string;
  proc?: SpawnedProcess;
  /** Its AMQP listener answered the protocol header. */
  up: boolean;
  starting?: Promise<void>;
}

export class RabbitMQs {
  private readonly nodes = new Map<string, Node>();
  private version = '';

  constructor(
    private readonly dir: string,
    private readonly procs: ProcessStarter,
    private readonly note: (text: string) => void,
  ) {}

  /** The broker's version, from Debian's install: a missing server fails loudly (setup.sh installs it). */
  checkVersion(): string {
    const lib = existsSync(join(LIB, 'lib')) ? readdirSync(join(LIB, 'lib')).find((d) => d.startsWith('rabbitmq_server-')) : undefined;
    if (!lib || !existsSync(join(LIB, 'bin', 'rabbitmq-server'))) throw new Error('rabbitmq-server not found: e2e/setup.sh installs Debian\'s rabbitmq-server (apt-get install rabbitmq-server)');
    this.version = lib.slice('rabbitmq_server-'.length);
    return this.version;
  }

  /**
   * A node for each live RabbitmqCluster listed whose default-user Secret exists, started in the
   * background (a pass never waits for it); a node whose CR is down (`down`: a scenario's outage)
   * stops until it is up again; a node whose CR went stops.
   */
  async reconcile(clusters: readonly Obj[], secrets: readonly Obj[], down: (o: Obj) => boolean): Promise<void> {
    const listed = new Set<string>();
    for (const o of clusters) {
      const key = `${o.metadata.namespace}/${o.metadata.name}`;
      listed.add(key);
      if (o.metadata.deletionTimestamp) continue;
      const secret = secrets.find((s) => s.metadata.namespace === o.metadata.namespace && s.metadata.name === `${o.metadata.name}-default-user`);
      const user = secretString(secret, 'username');
      const password = secretString(secret, 'password');
      let node = this.nodes.get(key);
      if (node && (down(o) || (user !== undefined && (node.user !== user || node.password !== password)))) {
        await this.stopNode(node, down(o) ? 'its RabbitmqCluster is down' : 'its default user changed');
        if (!down(o)) {
          this.nodes.delete(key);
          node = undefined;
        }
      }
      if (down(o) || user === undefined || password === undefined) continue;
      if (!node) {
        node = { ns: o.metadata.namespace, name: o.metadata.name, dir: join(this.dir, `${o.metadata.namespace}-${o.metadata.name}`), port: 0, user, password, up: false };
        rmSync(node.dir, { recursive: true, force: true });
        this.nodes.set(key, node);
      }
      if (!node.starting && (!node.proc || node.proc.exited())) {
        const n = node;
        n.starting = this.start(n).catch((err: Error) => this.note(`rabbitmq ${key}: ${err.message}`)).finally(() => {
          n.starting = undefined;
        });
      }
    }
    for (const [key, node] of this.nodes) {
      if (listed.has(key)) continue;
      this.nodes.delete(key);
      await this.stopNode(node, 'its RabbitmqCluster CR is gone');
    }
  }

  /** `127.0.0.1:{port}` of the node behind `host:port` (`{name}.{ns}.svc:5672`) while it answers. */
  resolve(host: string, port: string): string | undefined {
    if (port !== AMQP_PORT) return undefined;
    const node = [...this.nodes.values()].find((n) => `${n.name}.${n.ns}.svc` === host);
    return node?.up && node.proc && !node.proc.exited() ? `127.0.0.1:${node.port}` : undefined;
  }

  /** Whether the node of RabbitmqCluster `ns/name` answers AMQP. */
  serves(ns: string, name: string): boolean {
    const node = this.nodes.get(`${ns}/${name}`);
    return !!node?.up && !!node.proc && !node.proc.exited();
  }

  async stop(): Promise<void> {
    for (const node of this.nodes.values()) await node.proc?.stop();
  }

  private async stopNode(node: Node, why: string): Promise<void> {
    if (!node.proc) return;
    node.up = false;
    await node.proc.stop();
    node.proc = undefined;
    this.note(`rabbitmq ${node.ns}/${node.name}: stopped (${why})`);
  }

  private async start(node: Node): Promise<void> {
    mkdirSync(node.dir, { recursive: true });
    node.port ||= await this.procs.freePort();
    const dist = await this.procs.freePort();
    const conf = join(node.dir, 'rabbitmq.conf');
    writeFileSync(conf, [
      `listeners.tcp.default = 127.0.0.1:${node.port}`,
      // conf.d/default_user.conf of the cluster operator, inline: the user of the Secret.
      `default_user = ${node.user}`,
      `default_pass = ${node.password}`,
      'default_user_tags.administrator = true',
      'default_permissions.configure = .*',
      'default_permissions.read = .*',
      'default_permissions.write = .*',
      // The suite's programs connect over loopback; the default user is not guest, so nothing is refused for it.
      'loopback_users = none',
      'log.console = true',
      'log.console.level = warning',
      'log.file = false',
      '',
    ].join('\n'), { mode: 0o600 });
    writeFileSync(join(node.dir, 'enabled_plugins'), '[].\n');
    writeFileSync(join(node.dir, 'rabbitmq-env.conf'), '');
    const nodename = `rabbit_${sha256Hex(`${node.ns}/${node.name}`).slice(0, 10)}@localhost`;
    node.up = false;
    node.proc = this.procs.start(`rabbitmq-${node.ns}-${node.name}`, join(LIB, 'bin', 'rabbitmq-server'), [], {
      // A HOME of its own: the node's Erlang cookie.
      HOME: node.dir,
      RABBITMQ_NODENAME: nodename,
      RABBITMQ_NODE_PORT: String(node.port),
      RABBITMQ_DIST_PORT: String(dist),
      RABBITMQ_CONFIG_FILE: conf,
      RABBITMQ_CONF_ENV_FILE: join(node.dir, 'rabbitmq-env.conf'),
      RABBITMQ_ENABLED_PLUGINS_FILE: join(node.dir, 'enabled_plugins'),
      RABBITMQ_MNESIA_BASE: join(node.dir, 'mnesia'),
      RABBITMQ_LOG_BASE: join(node.dir, 'log'),
      RABBITMQ_PID_FILE: join(node.dir, 'rabbitmq.pid'),
    });
    const t0 = Date.now();
    while (!(await amqpAnswers(node.port))) {
      if (node.proc.exited()) throw new Error('rabbitmq-server exited before its AMQP listener answered (see its log)');
      if (Date.now() - t0 > START_TIMEOUT_MS) throw new Error(`its AMQP listener did not answer within ${START_TIMEOUT_MS / 1000} s`);
      await new Promise((res) => setTimeout(res, 500));
    }
    node.up = true;
    this.note(`rabbitmq ${node.ns}/${node.name}: RabbitMQ ${this.version} serving on 127.0.0.1:${node.port} as ${node.name}.${node.ns}.svc:${AMQP_PORT} after ${Math.round((Date.now() - t0) / 1000)} s, default user from Secret ${node.name}-default-user`);
  }
}

/** The broker answers the AMQP 0-9-1 protocol header with a Connection.Start method frame (type 1). */
function amqpAnswers(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(2000, () => done(false));
    socket.once('error', () => done(false));
    socket.once('connect', () => socket.write(Buffer.from([0x41, 0x4d, 0x51, 0x50, 0, 0, 9, 1])));
    socket.once('data', (d) => done(d[0] === 1));
  });
}
