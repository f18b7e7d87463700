// A cluster in a box: the simulated API server, the operators, Metacontroller running our three
// controllers, and the hooks service in process. Time is simulated: each round advances the
// clock by `tickSeconds`; a round that changes nothing jumps to the next moment something is
// due (a hook's resyncAfterSeconds, an ESO refresh).
import type { HooksServer } from '../server.js';
import { compileValidator } from '../api/validate.js';
import { ControlPlaneSpec } from '../api/controlplane.js';
import { CredentialRotationSpec } from '../api/credentialrotation.js';
import { SecretAggregateSpec } from '../api/secretaggregate.js';
import { GVK } from '../k8s/kinds.js';
import { CLUSTER_SECRET_STORE, remoteKeys, serviceRemoteKeys } from '../controlplane/names.js';
import { SERVICES, hasReference } from '../api/services/index.js';
import { stringAt } from '../k8s/read.js';
import { Cluster, refOf, type Obj, type ObjectRef } from './cluster.js';
import { CompositeController, DecoratorController, HookFailed, loadController, type HookCall } from './metacontroller.js';
import { b64, newWorld, nextRefresh, runOperators, type World } from './operators.js';
import { effectiveAdminPasswordRef, isManagedDatabase } from '../controlplane/spec.js';

export const SIM_START = new Date('2026-11-21T12:00:00Z');

export class AdmissionError extends Error {
  override name = 'AdmissionError';
}

const admitControlPlane = compileValidator<Obj>(ControlPlaneSpec, 'spec');
const admitCredentialRotation = compileValidator<Obj>(CredentialRotationSpec, 'spec');
const admitSecretAggregate = compileValidator<Obj>(SecretAggregateSpec, 'spec');

export interface SimulationOptions {
  app: HooksServer;
  start?: Date;
  tickSeconds?: number;
  /** The admin password OpenBao holds at the start (managed mode). */
  adminPassword?: string;
  /** Receives every hook call as it happens (timeline, capture). */
  onCall?: (call: HookCall) => void;
}

export interface RoundRecord {
  round: number;
  at: Date;
  changes: Cluster['changes'];
  notes: World['notes'];
  errors: string[];
  /** Conditions of ControlPlanes, CredentialRotations and SecretAggregates that changed in the round. */
  conditions: ConditionChange[];
  /** ControlPlanes whose status.updatePhase changed in the round (release rollouts). */
  phases: { object: string; phase: string }[];
}

export interface ConditionChange {
  object: string;
  type: string;
  status: string;
  reason: string;
  message: string;
}

export class Simulation {
  now: Date;
  readonly cluster: Cluster;
  readonly world: World;
  readonly controlPlanes: CompositeController;
  readonly rotations: DecoratorController;
  readonly aggregates: CompositeController;
  readonly tickSeconds: number;
  /** The admin password the user last set (OpenBao in managed mode, the Secret in brownfield). */
  adminPassword: string;
  private passwordCount = 1;
  round = 0;
  readonly rounds: RoundRecord[] = [];

  constructor(private readonly options: SimulationOptions) {
    this.now = options.start ?? SIM_START;
    this.tickSeconds = options.tickSeconds ?? 5;
    this.adminPassword = options.adminPassword ?? 'sim-Admin-Passw0rd-1';
    this.cluster = new Cluster(() => this.now);
    this.world = newWorld(this.cluster);
    const call = async (path: string, body: Obj) => {
      const res = await options.app.inject({ method: 'POST', url: path, payload: body });
      let json: Obj = {};
      try {
        json = res.json();
      } catch {
        json = { message: res.body };
      }
      return { statusCode: res.statusCode, body: json };
    };
    this.controlPlanes = new CompositeController(this.cluster, loadController('controlplane-compositecontroller.yaml'), call);
    this.rotations = new DecoratorController(this.cluster, loadController('credentialrotation-decoratorcontroller.yaml'), call);
    this.aggregates = new CompositeController(this.cluster, loadController('secretaggregate-compositecontroller.yaml'), call);
    const store = { apiVersion: GVK.ClusterSecretStore.apiVersion, kind: 'ClusterSecretStore', metadata: { name: CLUSTER_SECRET_STORE }, spec: { provider: { vault: {} } } };
    this.cluster.create(store, 'platform');
    this.cluster.updateStatus(refOf(store), { conditions: [{ type: 'Ready', status: 'True', reason: 'Valid', message: 'store validated', lastTransitionTime: this.now.toISOString() }] }, 'external-secrets');
    this.cluster.changes.length = 0;
  }

  /** Admit a ControlPlane as the API server would (schema defaults), seeding OpenBao for it. */
  createControlPlane(input: Obj): ObjectRef {
    const { value, errors } = admitControlPlane(input.spec ?? {});
    if (errors.length > 0) throw new AdmissionError(`the API server would refuse ControlPlane ${input.metadata?.name}: ${errors.join('; ')}`);
    const cp = { apiVersion: GVK.ControlPlane.apiVersion, kind: 'ControlPlane', metadata: { name: input.metadata.name, namespace: input.metadata.namespace ?? 'default', labels: input.metadata.labels, annotations: input.metadata.annotations }, spec: value };
    const keys = remoteKeys(cp.metadata.namespace, cp.metadata.name);
    this.world.openbao.set(keys.db, { username: 'keystone', password: 'sim-db-password' });
    this.world.openbao.set(keys.adminPassword, { password: this.adminPassword });
    // The services' DB credentials are seeded out of band, as Keystone's (seed 002 §3.1 step 4, Static).
    for (const d of SERVICES) {
      const declared = (value.services as Record<string, Obj | undefined>)?.[d.name];
      if (declared === undefined) continue;
      for (const db of d.databases) {
        this.world.openbao.set(serviceRemoteKeys(cp.metadata.namespace, cp.metadata.name, d.name).dbOf(db.infix), { username: db.name, password: `sim-db-password-${d.name}${db.infix}` });
      }
      // What a service reads and does not own (an OVNCentral) is the platform's, there before the ControlPlane.
      const name = hasReference(d) ? stringAt(declared, ...d.reference.refPath) : undefined;
      if (hasReference(d) && name && !this.cluster.get({ apiVersion: d.reference.kind.apiVersion, kind: d.reference.kind.kind, namespace: cp.metadata.namespace, name })) {
        this.cluster.create({ apiVersion: d.reference.kind.apiVersion, kind: d.reference.kind.kind, metadata: { name, namespace: cp.metadata.namespace }, spec: {} }, 'platform');
      }
    }
    if (!isManagedDatabase(value)) {
      const db = value.infrastructure.database.secretRef;
      const admin = effectiveAdminPasswordRef(value, cp.metadata.name);
      this.userSecret(cp.metadata.namespace, db.name, { [db.key ?? 'password']: 'sim-db-password' });
      this.userSecret(cp.metadata.namespace, admin.name!, { [admin.key]: this.adminPassword });
    }
    this.cluster.create(cp, 'user');
    return refOf(cp);
  }

  /** A new admin password (the next in a fixed sequence, so runs repeat). */
  nextAdminPassword(): string {
    this.adminPassword = `sim-Admin-Passw0rd-${++this.passwordCount}`;
    return this.adminPassword;
  }

  /** A Secret a user writes (created, or replaced whole). */
  userSecret(namespace: string, name: string, values: Record<string, string>): void {
    const data = Object.fromEntries(Object.entries(values).map(([k, v]) => [k, b64(v)]));
    const existing = this.cluster.get({ apiVersion: 'v1', kind: 'Secret', namespace, name });
    if (existing) this.cluster.update({ ...existing, data }, 'user');
    else this.cluster.create({ apiVersion: 'v1', kind: 'Secret', metadata: { name, namespace }, type: 'Opaque', data }, 'user');
  }

  createCredentialRotation(input: Obj): ObjectRef {
    const { value, errors } = admitCredentialRotation(input.spec ?? {});
    if (errors.length > 0) throw new AdmissionError(`the API server would refuse CredentialRotation ${input.metadata?.name}: ${errors.join('; ')}`);
    const cr = { apiVersion: GVK.CredentialRotation.apiVersion, kind: 'CredentialRotation', metadata: { name: input.metadata.name, namespace: input.metadata.namespace ?? 'default' }, spec: value };
    this.cluster.create(cr, 'user');
    return refOf(cr);
  }

  /** Admit a SecretAggregate, or replace the spec of an existing one, as the API server would. */
  applySecretAggregate(input: Obj): ObjectRef {
    const { value, errors } = admitSecretAggregate(input.spec ?? {});
    if (errors.length > 0) throw new AdmissionError(`the API server would refuse SecretAggregate ${input.metadata?.name}: ${errors.join('; ')}`);
    const sa = { apiVersion: GVK.SecretAggregate.apiVersion, kind: 'SecretAggregate', metadata: { name: input.metadata.name, namespace: input.metadata.namespace ?? 'default' }, spec: value };
    const existing = this.cluster.get(refOf(sa));
    if (existing) this.cluster.update({ ...existing, spec: value }, 'user');
    else this.cluster.create(sa, 'user');
    return refOf(sa);
  }

  /** One round: operators act, garbage is collected, every parent is synced once. */
  async step(): Promise<RoundRecord> {
    const before = this.cluster.changes.length;
    const conditionsBefore = this.conditions();
    const phasesBefore = this.updatePhases();
    this.world.notes.length = 0;
    const errors: string[] = [];
    runOperators(this.world);
    this.cluster.collectGarbage();
    const calls = (c: { calls: HookCall[] }) => c.calls.length;
    for (const [controller, kinds] of [
      [this.controlPlanes, [this.controlPlanes.parentKind]],
      [this.rotations, this.rotations.targetKinds],
      [this.aggregates, [this.aggregates.parentKind]],
    ] as const) {
      const seen = calls(controller);
      for (const kind of kinds) {
        for (const parent of this.cluster.list((o) => o.apiVersion === kind.apiVersion && o.kind === kind.kind)) {
          try {
            await controller.reconcile(refOf(parent));
          } catch (err) {
            if (!(err instanceof HookFailed)) throw err;
            errors.push(err.message);
          }
        }
      }
      for (const call of controller.calls.slice(seen)) this.options.onCall?.(call);
    }
    this.cluster.collectGarbage();
    const after = this.conditions();
    const conditions = [...after.entries()].filter(([k, c]) => JSON.stringify(conditionsBefore.get(k)) !== JSON.stringify(c)).map(([, c]) => c);
    const phases = [...this.updatePhases()].filter(([k, p]) => phasesBefore.get(k) !== p).map(([object, phase]) => ({ object, phase }));
    const record: RoundRecord = { round: ++this.round, at: this.now, changes: this.cluster.changes.slice(before), notes: [...this.world.notes], errors, conditions, phases };
    this.rounds.push(record);
    return record;
  }

  /** Advance the clock: a tick after a busy round, else to the next thing due (at least a tick). */
  advance(busy: boolean): void {
    const tick = this.now.getTime() + this.tickSeconds * 1000;
    // A resync due within the tick happens at the tick (not skipped for a later one); past ones are spent.
    const due = busy ? [] : [...this.controlPlanes.resyncAt.values(), ...this.aggregates.resyncAt.values(), nextRefresh(this.world) ?? Infinity].filter((t) => t > this.now.getTime() && t < Infinity);
    this.now = new Date(due.length > 0 ? Math.max(tick, Math.min(...due)) : tick);
  }

  /**
   * Rounds until `done` holds after a round that changed nothing (at rest), or `maxRounds`.
   * Returns the number of rounds it took, or undefined when it never got there.
   */
  async runUntil(done: () => boolean, maxRounds = 200, each?: () => void): Promise<number | undefined> {
    for (let i = 1; i <= maxRounds; i++) {
      const record = await this.step();
      each?.();
      const busy = record.changes.length > 0;
      if (!busy && done()) return i;
      this.advance(busy);
    }
    return undefined;
  }

  private updatePhases(): Map<string, string> {
    const out = new Map<string, string>();
    for (const o of this.cluster.list((x) => x.kind === 'ControlPlane')) {
      const phase = o.status?.updatePhase;
      if (typeof phase === 'string') out.set(`ControlPlane ${o.metadata.name}`, phase);
    }
    return out;
  }

  private conditions(): Map<string, ConditionChange> {
    const out = new Map<string, ConditionChange>();
    for (const o of this.cluster.list((x) => x.kind === 'ControlPlane' || x.kind === 'CredentialRotation' || x.kind === 'SecretAggregate')) {
      for (const c of (o.status?.conditions ?? []) as Obj[]) {
        const object = `${o.kind} ${o.metadata.name}`;
        out.set(`${object}|${c.type}`, { object, type: c.type, status: c.status, reason: c.reason, message: c.message });
      }
    }
    return out;
  }

  get(ref: ObjectRef): Obj | undefined {
    return this.cluster.get(ref);
  }
}
