// A phase of a simulated lifecycle (scenarios.ts lists them, *-phases.ts hold the larger ones):
// what it does, when it is done, what it checks; and the readers every phase uses.
import type { Obj, ObjectRef } from './cluster.js';
import type { RoundRecord, Simulation } from './simulation.js';

export interface PhaseContext {
  sim: Simulation;
  cp: ObjectRef;
  /** The ControlPlane's uid when the phase began (its children are still found once it is gone). */
  uid: string;
  /** The admin AC id and the number of mints when the phase began. */
  startId: string | undefined;
  startMints: number;
  records: RoundRecord[];
  /** What a phase recorded when it acted, to compare with at the end. */
  before?: string;
  /** Since when (simulated ms) K-ORC cannot authenticate with the materialised clouds.yaml (korcAuthGap). */
  unauthenticatedSince?: number;
}

export interface Phase {
  name: string;
  /** What happens, for the timeline. */
  title: string;
  act(ctx: PhaseContext): void;
  done(ctx: PhaseContext): boolean;
  /** Problems seen on the way (empty when the phase behaved). */
  verify(ctx: PhaseContext): string[];
  /** Checked after every round of the phase (busy or not): problems seen in that round. */
  watch?(ctx: PhaseContext): string[];
  /** Rounds the phase may take (default 200). */
  maxRounds?: number;
}

export const conditionOf = (o: Obj | undefined, type: string): Obj | undefined => (o?.status?.conditions ?? []).find((c: Obj) => c.type === type);
export const isTrue = (o: Obj | undefined, type: string) => conditionOf(o, type)?.status === 'True';
export const controlPlaneReady = (ctx: PhaseContext) => isTrue(ctx.sim.get(ctx.cp), 'Ready');
export const adminCredentialId = (ctx: PhaseContext): string | undefined => ctx.sim.get(ctx.cp)?.status?.adminApplicationCredential?.id;
