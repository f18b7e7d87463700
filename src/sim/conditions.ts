// A status condition as the simulated operators write it.
import type { Obj } from './cluster.js';

/** A condition, keeping its lastTransitionTime while the status does not change. */
export function condition(previous: Obj | undefined, type: string, status: boolean, reason: string, message: string, now: Date, generation?: number): Obj {
  const old = (previous?.conditions ?? []).find((c: Obj) => c.type === type);
  const s = status ? 'True' : 'False';
  const c: Obj = { type, status: s, reason, message, lastTransitionTime: old?.status === s ? old.lastTransitionTime : now.toISOString() };
  if (generation !== undefined) c.observedGeneration = generation;
  return c;
}
