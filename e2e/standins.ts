// Stand-in operators against the real API server: the simulator's operator model (src/sim/
// operators.ts) run on a snapshot, for the operators that do not run for real (the External
// Secrets Operator and OpenBao do). Each tick lists every object the operators look at into a
// fresh simulated Cluster, runs one pass of the chosen operators on it, and writes back what they
// changed: statuses (through /status where the CRD has it), finalizers added or removed, Secrets
// created or rewritten. The OpenStack side (mints, revocations) lives in memory here, in the World
// the model keeps between ticks.
import { appendFileSync } from 'node:fs';
import { Cluster, keyOf, refOf, type Obj } from '../src/sim/cluster.js';
import { newWorld, runOperators, type OperatorName, type World } from '../src/sim/operators.js';
import { REFERENCE_KINDS } from '../src/api/services/index.js';
import { CONTROLPLANE_CHILD_KINDS, GVK } from '../src/k8s/kinds.js';
import { KubeError, type Kube } from './kube.js';

/** Every kind the operators read or write: the ControlPlane's children, the store they read, the Restores people create, and what services read and the platform runs (an OVNCentral). */
export const OPERATOR_KINDS = [...CONTROLPLANE_CHILD_KINDS, GVK.ClusterSecretStore, GVK.Restore, ...REFERENCE_KINDS];

const SERVER_SET = ['uid', 'resourceVersion', 'creationTimestamp', 'generation', 'managedFields', 'deletionTimestamp', 'deletionGracePeriodSeconds'];

export class StandIns {
  readonly world: World;
  ticks = 0;
  errors: string[] = [];
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private stopped = false;

  constructor(
    private readonly kube: Kube,
    private readonly log: string,
    private readonly tickMs = 1000,
    /** The operators the stand-ins run (all of the model's when absent). */
    private readonly operators?: ReadonlySet<OperatorName>,
    /**
     * Real components beside the model: `skip` takes objects out of the model's snapshot (those
     * a real controller owns), `before` runs on each listing before the model's pass.
     */
    private readonly real: { skip?: (o: Obj) => boolean; before?: (listed: Obj[], world: World) => Promise<void> } = {},
  ) {
    this.world = newWorld(new Cluster(() => new Date()));
  }

  private note(text: string): void {
    appendFileSync(this.log, `${new Date().toISOString()} ${text}\n`);
  }

  start(): void {
    const loop = async () => {
      if (this.stopped) return;
      this.running = this.tick().catch((err: Error) => {
        this.errors.push(err.message);
        this.note(`tick error: ${err.message}`);
      });
      await this.running;
      if (!this.stopped) this.timer = setTimeout(loop, this.tickMs);
    };
    void loop();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    await this.running;
  }

  /** Resolves after the next complete tick. */
  async settle(): Promise<void> {
    const at = this.ticks;
    while (this.ticks < at + 2 && !this.stopped) await new Promise((r) => setTimeout(r, 100));
  }

  async tick(): Promise<void> {
    const listed = (await Promise.all(OPERATOR_KINDS.map((k) => this.kube.list(k.apiVersion, k.kind)))).flat();
    await this.real.before?.(listed, this.world);
    const skip = this.real.skip;
    await this.pass(skip ? listed.filter((o) => !skip(o)) : listed);
    this.ticks++;
  }

  /** One pass of the operators over a snapshot, and the write-back of what they changed. */
  private async pass(listed: Obj[]): Promise<void> {
    const cluster = new Cluster(() => new Date());
    const before = new Map<string, Obj>();
    for (const o of listed) {
      cluster.load(o);
      before.set(keyOf(refOf(o)), o);
    }
    this.world.cluster = cluster;
    this.world.notes.length = 0;
    runOperators(this.world, this.operators);
    for (const n of this.world.notes) this.note(`${n.by}: ${n.text}`);
    const after = new Map(cluster.list().map((o) => [keyOf(refOf(o)), o] as const));
    const writes: Promise<void>[] = [];
    for (const [key, a] of after) {
      const b = before.get(key);
      writes.push(b ? this.writeBack(b, a) : this.create(a));
    }
    for (const [key, b] of before) {
      if (!after.has(key)) writes.push(this.release(b));
    }
    await Promise.all(writes);
  }

  private async guarded(what: string, write: () => Promise<unknown>): Promise<void> {
    try {
      await write();
    } catch (err) {
      // A conflict or an object gone in between: the next tick sees the new state.
      if (err instanceof KubeError && (err.status === 409 || err.status === 404)) return;
      this.note(`${what}: ${(err as Error).message}`);
      this.errors.push(`${what}: ${(err as Error).message}`);
    }
  }

  private create(a: Obj): Promise<void> {
    const obj = structuredClone(a);
    for (const f of SERVER_SET) delete obj.metadata[f];
    return this.guarded(`create ${a.kind}/${a.metadata.name}`, async () => {
      await this.kube.create(obj);
      this.note(`created ${a.kind} ${a.metadata.namespace}/${a.metadata.name}`);
    });
  }

  /** The object went from the snapshot: its last finalizer was removed while Terminating. */
  private release(b: Obj): Promise<void> {
    return this.guarded(`release ${b.kind}/${b.metadata.name}`, async () => {
      await this.kube.mergePatch(refOf(b), { metadata: { finalizers: null, resourceVersion: b.metadata.resourceVersion } });
      this.note(`removed the finalizers of Terminating ${b.kind} ${b.metadata.namespace}/${b.metadata.name}`);
    });
  }

  private async writeBack(b: Obj, a: Obj): Promise<void> {
    const ref = refOf(b);
    const label = `${b.kind} ${b.metadata.namespace ?? ''}/${b.metadata.name}`;
    if (b.kind === 'Secret') {
      if (JSON.stringify([b.data, b.metadata.ownerReferences, b.type]) !== JSON.stringify([a.data, a.metadata.ownerReferences, a.type])) {
        await this.guarded(`update ${label}`, async () => {
          await this.kube.replace({ ...a, metadata: { ...a.metadata, resourceVersion: b.metadata.resourceVersion } });
          this.note(`rewrote Secret ${b.metadata.namespace}/${b.metadata.name}`);
        });
      }
      return;
    }
    if (JSON.stringify(b.status) !== JSON.stringify(a.status)) {
      await this.guarded(`status ${label}`, () => this.kube.patchStatus(ref, a.status ?? null));
    }
    const fb = JSON.stringify(b.metadata.finalizers ?? []);
    const fa = JSON.stringify(a.metadata.finalizers ?? []);
    if (fb !== fa) {
      await this.guarded(`finalizers ${label}`, async () => {
        await this.kube.mergePatch(ref, { metadata: { finalizers: a.metadata.finalizers ?? null } });
        this.note(`finalizers of ${label}: ${fb} -> ${fa}`);
      });
    }
  }
}
