// Calling one stage directly: the pure function of (input, clock, random) it is. A world is
// converged through the pure sync (no HTTP), then one stage is run against it, changed.
import { syncControlPlane } from '../../src/controlplane/sync.js';
import type { ControlPlaneHookRequest } from '../../src/api/hooks.js';
import { CONDITION, SUB_CONDITIONS, type StageConditionType, type SubConditionType } from '../../src/controlplane/conditions.js';
import type { Stage, StageInput, StageResult } from '../../src/controlplane/stage.js';
import { CONTROLPLANE_CHILD_KINDS } from '../../src/k8s/kinds.js';
import type { Condition } from '../../src/k8s/conditions.js';
import { FIXED_NOW, sequence } from './server.js';
import { stageInput } from './sync.js';
import { ADMIN_PASSWORD, applyResponse, clusterSecretStore, healthy, objectMap, platformObjects, surroundings, type StatusOf } from './world.js';
import type { Obj } from './shared.js';

export { CONDITION };

/** Conditions True for `types` (what earlier stages decided this pass). */
export function decidedTrue(...types: SubConditionType[]): Map<string, Condition> {
  return new Map(types.map((type) => [type, { type, status: 'True', reason: 'Test', message: '', lastTransitionTime: FIXED_NOW.toISOString() }]));
}

/** Every sub-condition before `type` True, as the pipeline would have decided it to reach `type`. */
export const before = (type: StageConditionType) => decidedTrue(...SUB_CONDITIONS.slice(0, Math.max(0, SUB_CONDITIONS.indexOf(type as SubConditionType))));

export interface StageWorld {
  parent: Obj;
  children: Obj[];
  related: Obj[];
}

/** A ControlPlane converged by the pure sync: every child healthy (or as `statusOf` says). */
export function convergedWorld(parent: Obj, statusOf: StatusOf = healthy, base: Obj[] = [clusterSecretStore(), ...platformObjects(parent)]): StageWorld {
  let children: Obj[] = [];
  let last = '';
  const random = sequence();
  for (let pass = 0; pass < 25; pass++) {
    const related = surroundings(parent, children, base, ADMIN_PASSWORD);
    const request = { parent, children: objectMap(children, CONTROLPLANE_CHILD_KINDS), related: objectMap(related) } as ControlPlaneHookRequest;
    const response = syncControlPlane(request, { now: () => FIXED_NOW, random });
    const text = JSON.stringify([response, related]);
    parent = { ...parent, status: { ...response.status, observedGeneration: parent.metadata.generation } };
    if (text === last) return { parent, children, related };
    last = text;
    children = applyResponse(response.children as Obj[], parent, statusOf, children);
  }
  throw new Error('did not converge');
}

export interface RunOptions {
  decided?: Map<string, Condition>;
  now?: Date;
  input?: Partial<StageInput>;
}

/** Runs `stage` on a world, with every earlier sub-condition True unless told otherwise. */
export function run(stage: Stage, world: StageWorld, options: RunOptions = {}): StageResult {
  const input = stageInput(world.parent, world.children, world.related, options.decided ?? before(stage.conditionType), options.now ?? FIXED_NOW);
  // Its own random sequence: the world was minted from `sequence()`, and a real source never repeats.
  return stage.run({ ...input, random: sequence('stage'), ...options.input });
}

/** `Kind/name` of each child a result emits, sorted. */
export const emitted = (result: StageResult) => result.children.map((c) => `${c.kind}/${c.metadata.name}`).sort();
