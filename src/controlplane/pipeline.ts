// The stage table and its runner (docs/architecture.md §2.2), in stage order:
// Infrastructure → DBCredentials → AdminPassword → Keystone → KORC → AdminCredential → Catalog.
// Stages run in order until one is not complete; the rest are not reached this pass: they keep
// their previous condition and their observed children stay exactly as last applied.
import { performance } from 'node:perf_hooks';
import { decideCondition, type Condition } from '../k8s/conditions.js';
import { REASON, type StageConditionType } from './conditions.js';
import { keepObserved, assertKeepsObserved } from '../k8s/invariant.js';
import type { KubeObject } from '../k8s/observed.js';
import type { Stage, StageInput, StageOutcome, StageResult } from './stage.js';
import { infrastructureStage } from './stages/infrastructure.js';
import { dbCredentialsStage } from './stages/db-credentials.js';
import { adminPasswordStage } from './stages/admin-password.js';
import { keystoneStage } from './stages/keystone.js';
import { korcStage } from './stages/korc.js';
import { adminCredentialStage } from './stages/admin-credential.js';
import { catalogStage } from './stages/catalog.js';
import { invalidSpec } from './stages/invalid-spec.js';
import { SERVICES, hasReference } from '../api/services/index.js';
import { serviceStage } from './services/stage.js';
import { referenceStage } from './services/reference.js';
import { trackUnapplied, type UnappliedChild } from './unapplied.js';
import { withinChildLimits } from './child-limits.js';
import { databaseBackupStage } from './database-backup.js';

export const STAGE_TABLE: readonly Stage[] = [
  infrastructureStage, // gate: none                 → InfrastructureReady
  databaseBackupStage, // aside: every pass           → DatabaseBackupReady (not in Ready)
  dbCredentialsStage, // gate: none                   → DBCredentialsReady
  adminPasswordStage, // gate: none                   → AdminPasswordReady
  keystoneStage, // gate: InfrastructureReady          → KeystoneReady
  korcStage, // gate: admin password readable          → KORCReady
  adminCredentialStage, // gate: KORCReady             → AdminCredentialReady
  catalogStage, // gate: AdminCredentialReady          → CatalogReady
  // siblings, gate: KeystoneReady → <Svc>Ready (services/); a service's reference (OVNReady) right before it
  ...SERVICES.flatMap((d) => [...(hasReference(d) ? [referenceStage(d, d.reference)] : []), serviceStage(d)]),
];

/** Per-stage measurement, for the seed's metrics. */
export interface StageTrace {
  name: string;
  conditionType: StageConditionType;
  seconds: number;
  outcome: StageOutcome['kind'];
}

export interface PipelineResult {
  /** Conditions decided this pass, by type. */
  decided: Map<string, Condition>;
  children: KubeObject[];
  resyncAfterSeconds?: number;
  trace: StageTrace[];
  /** Children asked for this pass that are not yet observed as asked (status.unappliedChildren). */
  unapplied: UnappliedChild[];
}

/** The spec path a problem names (`spec.a.b: must …` → `spec.a.b`). */
const problemPath = (e: string) => e.slice(0, e.search(/[:[]|$/));

/** `e` is under `path`, or names a block `path` is part of (an unreadable ancestor: `spec.a: must be an object`). */
function concerns(e: string, path: string): boolean {
  if (e.startsWith(`${path}.`) || e.startsWith(`${path}:`) || e.startsWith(`${path}[`)) return true;
  const at = problemPath(e);
  return path.startsWith(`${at}.`);
}

/**
 * Spec problems that belong to `stage`: under one of its read paths, or naming a block one of
 * them is part of (the block the stage reads is unreadable: null, a string, `[]`, …); the first
 * stage takes the rest.
 */
function errorsFor(stage: Stage, index: number, errors: readonly string[], table: readonly Stage[]): string[] {
  const under = (e: string, path: string) => e.startsWith(`${path}.`) || e.startsWith(`${path}:`) || e.startsWith(`${path}[`);
  // A sibling (service) stage's fields are its own: a bad services.placement never fails Keystone,
  // whose reads (spec.services) cover it.
  const ownedBySibling = (e: string) => table.some((other) => (other.sibling || other.aside) && other.reads.some((p) => under(e, p)));
  return errors.filter((e) => {
    if (!stage.sibling && !stage.aside && ownedBySibling(e)) return false;
    if (stage.reads.some((p) => concerns(e, p))) return true;
    if (index !== 0) return false;
    return !table.some((other) => other.reads.some((p) => concerns(e, p)));
  });
}

/** Every problem of the spec: the schema's and the spec readers' (spec.ts), once each. */
function specProblems(input: Omit<StageInput, 'decided'>): string[] {
  const readers = Object.values(input.resolved).flatMap((r) => (r.ok ? [] : r.errors));
  return [...new Set([...input.specErrors, ...readers])];
}

/**
 * The InvalidSpec a stage answers instead of releasing observed children while the spec has a
 * problem (what reads as "not declared" may be a block that is unreadable: `database: null` is no
 * backup to give up). It names the problems of the blocks it reads, else the spec's, else the
 * conditions that found one.
 */
function heldRelease(stage: Stage, index: number, problems: readonly string[], table: readonly Stage[], reporting: readonly string[]): StageResult {
  const own = errorsFor(stage, index, problems, table);
  const named = own.length > 0 ? own : problems.length > 0 ? [...problems] : [`spec: ${reporting.join(', ')} report InvalidSpec; nothing is released until the spec is fixed`];
  return invalidSpec(named, stage.interval);
}

export function runPipeline(
  input: Omit<StageInput, 'decided'>,
  table: readonly Stage[] = STAGE_TABLE,
  previousUnapplied: readonly UnappliedChild[] = [],
): PipelineResult {
  const decided = new Map<string, Condition>();
  const desired: KubeObject[] = [];
  const released = new Set<string>();
  const trace: StageTrace[] = [];
  const unapplied: UnappliedChild[] = [];
  let resyncAfterSeconds: number | undefined;
  let stopped = false;
  const problems = specProblems(input);
  const releasing: { stage: Stage; index: number; ids: readonly string[] }[] = [];

  table.forEach((stage, index) => {
    if (stage.aside ? !stage.aside.applies({ ...input, decided }) : stopped) return;
    const started = performance.now();
    const schemaErrors = errorsFor(stage, index, input.specErrors, table);
    let result = withinChildLimits(schemaErrors.length > 0 ? invalidSpec(schemaErrors, stage.interval) : stage.run({ ...input, decided }), stage.interval);
    const tracked = trackUnapplied(stage.conditionType, result.children, input.children, previousUnapplied, input.cp.generation, input.now);
    unapplied.push(...tracked.entries);
    // A child the API server keeps refusing is the seed's error, not an eternal wait;
    // a failed stage starts nothing: a re-mint it was about to start waits (the AC is kept).
    if (tracked.error) result = { condition: tracked.error, outcome: { kind: 'failed', requeueSeconds: stage.interval }, children: result.children };
    trace.push({ name: stage.name, conditionType: stage.conditionType, seconds: (performance.now() - started) / 1000, outcome: result.outcome.kind });
    decided.set(
      stage.conditionType,
      decideCondition(stage.conditionType, result.condition, input.previous.get(stage.conditionType), input.cp.generation, input.now),
    );
    desired.push(...result.children);
    if ((result.releases ?? []).length > 0) releasing.push({ stage, index, ids: result.releases ?? [] });
    if (stage.aside) {
      // Its condition says how it is; its child's changes call the hook again.
    } else if (result.outcome.kind !== 'complete') {
      if (!stage.sibling) stopped = true;
      resyncAfterSeconds = Math.min(result.outcome.requeueSeconds, resyncAfterSeconds ?? Infinity);
    } else if (result.resyncAfterSeconds !== undefined) {
      resyncAfterSeconds = Math.min(result.resyncAfterSeconds, resyncAfterSeconds ?? Infinity);
    }
  });

  // No stage releases an observed child while the spec has a problem: one the schema or a spec
  // reader finds, or one a stage answered InvalidSpec for this pass (admission's cross-field rules,
  // re-checked by the stages). The stage that would release says InvalidSpec instead.
  const reporting = [...decided.entries()].filter(([, c]) => c.status === 'False' && c.reason === REASON.InvalidSpec).map(([type]) => type);
  for (const { stage, index, ids } of releasing) {
    if (problems.length === 0 && reporting.length === 0) {
      for (const id of ids) released.add(id);
      continue;
    }
    const held = heldRelease(stage, index, problems, table, reporting);
    decided.set(stage.conditionType, decideCondition(stage.conditionType, held.condition, input.previous.get(stage.conditionType), input.cp.generation, input.now));
  }
  const children = keepObserved(desired, input.children, released);
  assertKeepsObserved(children, input.children, released);
  return { decided, children, resyncAfterSeconds, trace, unapplied };
}
