// Real OVN central databases for the e2e suite: for each OVNCentral CR in the real-OpenStack
// namespaces, Debian's ovsdb-server for the northbound and the southbound database (schemas from
// ovn-central, /usr/share/ovn) and ovn-northd between them, in a directory of their own, on
// 127.0.0.1: what the OVN operator runs as its central StatefulSets (C5C3/cobaltcore
// operators/ovn/internal/controller reconcile_database.go @ a76f43ce, reconcile_northd.go @
// 6f05a864). One member per database, not a RAFT cluster of three: nothing the hooks project
// depends on clustering. The CR's status stays the stand-in model's (src/sim/operators.ts
// ovnCentralStatusOf, as docs/reference/ovn/ovn-central-crd.md §Status has it; the outage scenario
// drives it): the hooks read that status, Neutron's operator reads the addresses from it.
//
// What differs, on purpose: the databases listen on plain TCP. The status names `ssl:` addresses
// and a client Secret, as upstream's TLS-only central does; a certificate chain per central would
// prove nothing the hooks project, so `resolve` maps `{name}-nb.{ns}.svc:6641` (and `-sb`, 6642)
// to `tcp:127.0.0.1:{port}` for the programs the suite starts, the OVSDB counterpart of the
// forward proxy's routes and of rabbitmq.ts's.
//
// The chassis. A port binds only to a host with a live OVN chassis (Neutron 27
// ml2/drivers/ovn/mech_driver/mech_driver.py bind_port: "Refusing to bind port … due to no OVN
// chassis for host"). Upstream runs ovn-controller on each hypervisor (the OVNChassis CR,
// ovnchassis_controller.go @ 3aea789b: ovs-vswitchd with a kernel datapath); this machine has no
// Open vSwitch kernel module and the fake virt driver plugs nothing, so the suite registers, for
// each compute host the suite runs, the chassis ovn-controller would register (Chassis and
// Chassis_Private rows, hostname = the compute host) and keeps it alive as ovn-controller does:
// a loop that copies NB_Global.nb_cfg into Chassis_Private.nb_cfg with its timestamp (Neutron's
// agent liveness), and claims the Port_Binding rows requested for this chassis (chassis, up)
// and releases those no longer requested, which is what makes a bound port go ACTIVE.
// C5C3/cobaltcore's own fake-driver suites boot with `--nic none` and bind no port
// (docs/reference/testing/nova-e2e-tests.md); only its compute-node-pool suite runs a real chassis.
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { Obj } from '../src/sim/cluster.js';
import type { ProcessStarter } from './keystone.js';
import type { SpawnedProcess } from './harness.js';

const run = promisify(execFile);
const SCHEMAS = '/usr/share/ovn';
/** The Service ports of the two databases (upstream's OVNCentral Services, ovn-nb 6641, ovn-sb 6642). */
const DB_PORTS = { nb: '6641', sb: '6642' } as const;
type Db = keyof typeof DB_PORTS;
/** How often the chassis loop reports (Neutron's agent_down_time is 75 s). */
const CHASSIS_EVERY_S = 3;

interface Central {
  ns: string;
  name: string;
  dir: string;
  ports: Record<Db, number>;
  procs: SpawnedProcess[];
  /** The chassis loops, by compute host. */
  chassis: Map<string, SpawnedProcess>;
  up: boolean;
  starting?: Promise<void>;
}

export class OVNCentrals {
  private readonly centrals = new Map<string, Central>();
  private version = '';

  constructor(
    private readonly dir: string,
    private readonly procs: ProcessStarter,
    private readonly note: (text: string) => void,
  ) {}

  /** OVN's version, from Debian's ovn-central: a missing one fails loudly (setup.sh installs it). */
  async checkVersion(): Promise<string> {
    try {
      const { stdout } = await run('ovn-northd', ['--version']);
      this.version = stdout.split('\n')[0]!.replace(/^ovn-northd \(Open vSwitch\) /, '').trim();
    } catch {
      throw new Error("ovn-northd not found: e2e/setup.sh installs Debian's ovn-central (apt-get install ovn-central)");
    }
    return this.version;
  }

  /**
   * The databases and northd for each live OVNCentral listed (started in the background), down
   * while `down` says so; the central of a CR that went stops. `hosts(ns)`: the compute hosts the
   * suite runs in that namespace, each of which gets a chassis in every central there.
   */
  async reconcile(listed: readonly Obj[], down: (o: Obj) => boolean, hosts: (ns: string) => string[]): Promise<void> {
    const seen = new Set<string>();
    for (const o of listed) {
      const key = `${o.metadata.namespace}/${o.metadata.name}`;
      seen.add(key);
      let c = this.centrals.get(key);
      if (c && (down(o) || o.metadata.deletionTimestamp)) {
        await this.stopCentral(c, down(o) ? 'its OVNCentral is down' : 'its OVNCentral is being deleted');
        continue;
      }
      if (down(o) || o.metadata.deletionTimestamp) continue;
      if (!c) {
        c = { ns: o.metadata.namespace, name: o.metadata.name, dir: join(this.dir, `${o.metadata.namespace}-${o.metadata.name}`), ports: { nb: 0, sb: 0 }, procs: [], chassis: new Map(), up: false };
        rmSync(c.dir, { recursive: true, force: true });
        this.centrals.set(key, c);
      }
      if (!c.starting && !c.up) {
        const central = c;
        central.starting = this.start(central).catch((err: Error) => this.note(`ovn ${key}: ${err.message}`)).finally(() => {
          central.starting = undefined;
        });
      }
      if (c.up) {
        for (const host of hosts(c.ns)) if (!c.chassis.has(host) || c.chassis.get(host)!.exited()) this.startChassis(c, host);
      }
    }
    for (const [key, c] of this.centrals) {
      if (seen.has(key)) continue;
      this.centrals.delete(key);
      await this.stopCentral(c, 'its OVNCentral CR is gone');
    }
  }

  /**
   * `tcp:127.0.0.1:{port}` of the database behind an OVNCentral status address
   * (`ssl:{name}-nb.{ns}.svc:6641`, `-sb`, 6642) while it serves; undefined otherwise.
   */
  resolve(address: string): string | undefined {
    const m = /^(?:ssl|tcp):([a-z0-9.-]+)-(nb|sb)\.([a-z0-9-]+)\.svc:(\d+)$/.exec(address);
    if (!m) return undefined;
    const [, name, db, ns, port] = m as unknown as [string, string, Db, string, string];
    const c = this.centrals.get(`${ns}/${name}`);
    if (!c?.up || port !== DB_PORTS[db] || c.procs.some((p) => p.exited())) return undefined;
    return `tcp:127.0.0.1:${c.ports[db]}`;
  }

  /** `ovn-nbctl`/`ovn-sbctl` of the central of OVNCentral `ns/name`, for the scenarios' checks. */
  async ctl(ns: string, name: string, db: Db, args: string[]): Promise<string> {
    const c = this.centrals.get(`${ns}/${name}`);
    if (!c?.up) throw new Error(`OVNCentral ${ns}/${name} does not serve here`);
    const { stdout } = await run(db === 'nb' ? 'ovn-nbctl' : 'ovn-sbctl', [`--db=unix:${join(c.dir, `${db}.sock`)}`, ...args], { timeout: 30_000 });
    return stdout;
  }

  async stop(): Promise<void> {
    for (const c of this.centrals.values()) await this.stopCentral(c, 'the suite ends');
  }

  private async stopCentral(c: Central, why: string): Promise<void> {
    if (!c.up && c.procs.length === 0) return;
    c.up = false;
    for (const p of c.chassis.values()) await p.stop();
    c.chassis.clear();
    for (const p of c.procs.reverse()) await p.stop();
    c.procs = [];
    this.note(`ovn ${c.ns}/${c.name}: stopped (${why})`);
  }

  private async start(c: Central): Promise<void> {
    const t0 = Date.now();
    mkdirSync(c.dir, { recursive: true });
    for (const db of ['nb', 'sb'] as const) {
      // Back from an outage, the databases are the ones it had (upstream's are on persistent volumes).
      if (!existsSync(join(c.dir, `ovn${db}_db.db`))) await run('ovsdb-tool', ['create', join(c.dir, `ovn${db}_db.db`), join(SCHEMAS, `ovn-${db}.ovsschema`)]);
      c.ports[db] = await this.procs.freePort();
      c.procs.push(this.procs.start(`ovsdb-server-${db}-${c.ns}-${c.name}`, 'ovsdb-server', [
        join(c.dir, `ovn${db}_db.db`),
        `--remote=punix:${join(c.dir, `${db}.sock`)}`,
        `--remote=ptcp:${c.ports[db]}:127.0.0.1`,
        `--unixctl=${join(c.dir, `ovsdb-server-${db}.ctl`)}`,
        `--pidfile=${join(c.dir, `ovsdb-server-${db}.pid`)}`,
        '--log-file=/dev/null',
        '-vconsole:warn',
      ], {}));
    }
    // The sockets answer before northd connects to them.
    for (const db of ['nb', 'sb'] as const) {
      const until = Date.now() + 60_000;
      for (;;) {
        try {
          await run(db === 'nb' ? 'ovn-nbctl' : 'ovn-sbctl', [`--db=unix:${join(c.dir, `${db}.sock`)}`, '--timeout=5', 'show']);
          break;
        } catch (err) {
          if (c.procs.some((p) => p.exited())) throw new Error(`ovsdb-server (${db}) exited before it answered (see its log)`);
          if (Date.now() > until) throw new Error(`ovsdb-server (${db}) did not answer within 60 s: ${(err as Error).message.split('\n')[0]}`);
          await new Promise((res) => setTimeout(res, 300));
        }
      }
    }
    await run('ovn-nbctl', [`--db=unix:${join(c.dir, 'nb.sock')}`, 'init']).catch(() => undefined);
    c.procs.push(this.procs.start(`ovn-northd-${c.ns}-${c.name}`, 'ovn-northd', [
      `--ovnnb-db=unix:${join(c.dir, 'nb.sock')}`,
      `--ovnsb-db=unix:${join(c.dir, 'sb.sock')}`,
      `--unixctl=${join(c.dir, 'ovn-northd.ctl')}`,
      `--pidfile=${join(c.dir, 'ovn-northd.pid')}`,
      '--log-file=/dev/null',
      '-vconsole:warn',
    ], {}));
    c.up = true;
    this.note(`ovn ${c.ns}/${c.name}: OVN ${this.version} northbound on 127.0.0.1:${c.ports.nb} as ${c.name}-nb.${c.ns}.svc:${DB_PORTS.nb}, southbound on 127.0.0.1:${c.ports.sb} as ${c.name}-sb.${c.ns}.svc:${DB_PORTS.sb}, ovn-northd between them, after ${Math.round((Date.now() - t0) / 1000)} s`);
  }

  /** The chassis of compute host `host` in central `c`, registered and kept alive (see the head of this file). */
  private startChassis(c: Central, host: string): void {
    const script = join(c.dir, `chassis-${host}.sh`);
    writeFileSync(script, chassisScript(join(c.dir, 'nb.sock'), join(c.dir, 'sb.sock'), `${host}-chassis`, host));
    c.chassis.get(host)?.stop().catch(() => undefined);
    c.chassis.set(host, this.procs.start(`ovn-chassis-${c.ns}-${c.name}-${host}`, '/bin/bash', [script], {}));
    this.note(`ovn ${c.ns}/${c.name}: chassis ${host}-chassis for compute host ${host} registered (the suite's stand-in for its ovn-controller)`);
  }
}

/** What ovn-controller writes for a chassis, and its keep-alive and port claims, as a bash loop. */
function chassisScript(nb: string, sb: string, chassis: string, host: string): string {
  return `#!/bin/bash
set -u
nbctl() { ovn-nbctl --db=unix:${nb} --timeout=10 "$@"; }
sbctl() { ovn-sbctl --db=unix:${sb} --timeout=10 "$@"; }
sbctl --may-exist chassis-add ${chassis} geneve 127.0.0.1 || exit 1
sbctl set Chassis ${chassis} hostname=${host} other_config:datapath-type=system other_config:iface-types=geneve other_config:ovn-cms-options=\\"\\" || exit 1
uuid=$(sbctl --bare --columns=_uuid find Chassis name=${chassis})
[ -n "$(sbctl --bare --columns=_uuid find Chassis_Private name=${chassis})" ] || sbctl create Chassis_Private name=${chassis} chassis=$uuid >/dev/null || exit 1
echo "chassis ${chassis} ($uuid) for host ${host}"
while :; do
  cfg=$(nbctl get NB_Global . nb_cfg) || exit 1
  sbctl set Chassis_Private ${chassis} nb_cfg=$cfg nb_cfg_timestamp=$(date +%s%3N) || exit 1
  for pb in $(sbctl --bare --columns=_uuid find Port_Binding requested_chassis=$uuid); do
    [ "$(sbctl get Port_Binding $pb chassis)" = "$uuid" ] || { sbctl set Port_Binding $pb chassis=$uuid up=true && echo "claimed $(sbctl get Port_Binding $pb logical_port)"; }
  done
  for pb in $(sbctl --bare --columns=_uuid find Port_Binding chassis=$uuid); do
    [ "$(sbctl get Port_Binding $pb requested_chassis)" = "$uuid" ] || { sbctl clear Port_Binding $pb chassis -- set Port_Binding $pb up=false && echo "released $(sbctl get Port_Binding $pb logical_port)"; }
  done
  sleep ${CHASSIS_EVERY_S}
done
`;
}
