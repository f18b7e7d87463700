// The stage table and its runner (DESIGN §2). Reads like seed 000's flow diagram:
// Infrastructure → DBCredentials → AdminPassword → Keystone → KORC → AdminCredential → Catalog.
// Stages run in order until one is not complete; the rest are not reached this pass: they keep
// their previous condition and their observed children stay exactly as last applied.
import { performance } from 'node:perf_hooks';
import { decideCondition, type Condition } from '../k8s/conditions.js';
import { keepObserved, assertKeepsObserved } from '../k8s/invariant.js';
import type { KubeObject } from '../k8s/observed.js';
import { CONDITION } from './conditions.js';
import type { Stage, StageInput, StageOutcome, StageResult } from './stage.js';
import { infrastructureStage } from './stages/infrastructure.js';
import { dbCredentialsStage } from './stages/db-credentials.js';
import { adminPasswordStage } from './stages/admin-password.js';
import { keystoneStage } from './stages/keystone.js';
import { invalidSpec } from './stages/invalid-spec.js';

/** A slot of the table: the seed's sub-reconciler, with its stage once implemented. */
export interface StageSlot {
  name: string;
  conditionType: string;
  stage?: Stage;
  /** Spec paths of a stage not implemented yet, so their schema errors are not blamed on another. */
  reads?: string[];
}

export const STAGE_TABLE: readonly StageSlot[] = [
  { name: 'Infrastructure', conditionType: CONDITION.Infrastructure, stage: infrastructureStage },
  { name: 'DBCredentials', conditionType: CONDITION.DBCredentials, stage: dbCredentialsStage },
  { name: 'AdminPassword', conditionType: CONDITION.AdminPassword, stage: adminPasswordStage },
  { name: 'Keystone', conditionType: CONDITION.Keystone, stage: keystoneStage },
  // Stages 5–7 are not implemented yet: the pipeline treats them as never reached.
  { name: 'KORC', conditionType: CONDITION.KORC, reads: ['spec.korc'] },
  { name: 'AdminCredential', conditionType: CONDITION.AdminCredential, reads: ['spec.korc'] },
  { name: 'Catalog', conditionType: CONDITION.Catalog, reads: ['spec.services.keystone.publicEndpoint'] },
];

/** Per-stage measurement, for the seed's metrics. */
export interface StageTrace {
  name: string;
  conditionType: string;
  seconds: number;
  outcome: StageOutcome['kind'];
}

export interface PipelineResult {
  /** Conditions decided this pass, by type. */
  decided: Map<string, Condition>;
  children: KubeObject[];
  resyncAfterSeconds?: number;
  trace: StageTrace[];
}

/** Schema errors that belong to `stage`: under one of its read paths (the first stage takes the rest). */
function errorsFor(stage: Stage, index: number, errors: string[], table: readonly StageSlot[]): string[] {
  const under = (e: string, path: string) => e.startsWith(`${path}.`) || e.startsWith(`${path}:`) || e.startsWith(`${path}[`);
  return errors.filter((e) => {
    if (stage.reads.some((p) => under(e, p))) return true;
    if (index !== 0) return false;
    return !table.some((slot) => (slot.stage?.reads ?? slot.reads ?? []).some((p) => under(e, p)));
  });
}

export function runPipeline(input: Omit<StageInput, 'decided'>, table: readonly StageSlot[] = STAGE_TABLE): PipelineResult {
  const decided = new Map<string, Condition>();
  const desired: KubeObject[] = [];
  const released = new Set<string>();
  const trace: StageTrace[] = [];
  let resyncAfterSeconds: number | undefined;
  let stopped = false;

  table.forEach((slot, index) => {
    if (stopped) return;
    if (!slot.stage) {
      stopped = true; // not implemented: nothing to wait for
      return;
    }
    const started = performance.now();
    const schemaErrors = errorsFor(slot.stage, index, input.specErrors, table);
    const result: StageResult =
      schemaErrors.length > 0 ? invalidSpec(schemaErrors, slot.stage.interval) : slot.stage.run({ ...input, decided });
    trace.push({ name: slot.name, conditionType: slot.conditionType, seconds: (performance.now() - started) / 1000, outcome: result.outcome.kind });
    decided.set(
      slot.conditionType,
      decideCondition(slot.conditionType, result.condition, input.previous.get(slot.conditionType), input.cp.generation, input.now),
    );
    desired.push(...result.children);
    for (const id of result.releases ?? []) released.add(id);
    if (result.outcome.kind !== 'complete') {
      stopped = true;
      resyncAfterSeconds = result.outcome.requeueSeconds;
    }
  });

  const children = keepObserved(desired, input.children, released);
  assertKeepsObserved(children, input.children, released);
  return { decided, children, resyncAfterSeconds, trace };
}
