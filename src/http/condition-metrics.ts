// The ControlPlane answers counted by condition (c5c3_hooks_controlplane_conditions_total,
// metrics.ts): what the stuck-state alerts and the dashboard's "ControlPlanes by condition" read.
// No per-object label: the series are bounded by the condition types and reasons this service
// defines (conditions.ts).
import { CONDITION, REASON } from '../controlplane/conditions.js';
import type { Metrics } from '../metrics.js';

/**
 * The states an operator must act on (docs/architecture.md §7.8; the alert rules in
 * charts/c5c3-hooks/files/c5c3-hooks.rules.yaml): their series exist from the start at 0, so the first answer that
 * carries one is an increase Prometheus sees (a series born at 1 is not).
 */
export const ALERTED_CONDITIONS = [
  [CONDITION.KORC, 'False', REASON.ORCTeardownStalled],
  [CONDITION.KORC, 'False', REASON.ReMintStalled],
  [CONDITION.AdminCredential, 'False', REASON.CloudsYamlSyncStuck],
  [CONDITION.Ready, 'False', REASON.RolledBack],
  [CONDITION.DatabaseBackup, 'False', REASON.BackupFailed],
] as const;

const CONDITION_TYPES: ReadonlySet<string> = new Set(Object.values(CONDITION));
const REASONS: ReadonlySet<string> = new Set(Object.values(REASON));
const STATUSES: ReadonlySet<string> = new Set(['True', 'False', 'Unknown']);
/** A label value for a string this service does not define (a status a person edited): never the string itself. */
export const OTHER_LABEL = 'Other';

/** The labels one condition of an answer is counted under. */
export interface ConditionLabels {
  condition: string;
  status: string;
  reason: string;
}

/**
 * The labels of one ControlPlane answer's conditions: each condition of its status once, by type,
 * status and reason. Only the values this service defines become labels (a condition carried over
 * from a status someone edited would otherwise add series without bound): anything else is `Other`.
 */
export function conditionLabels(answer: unknown): ConditionLabels[] {
  const conditions = (answer as { status?: { conditions?: unknown } } | null)?.status?.conditions;
  if (!Array.isArray(conditions)) return [];
  const labels: ConditionLabels[] = [];
  for (const c of conditions) {
    if (c === null || typeof c !== 'object') continue;
    const { type, status, reason } = c as Record<string, unknown>;
    labels.push({
      condition: typeof type === 'string' && CONDITION_TYPES.has(type) ? type : OTHER_LABEL,
      status: typeof status === 'string' && STATUSES.has(status) ? status : OTHER_LABEL,
      reason: typeof reason === 'string' && REASONS.has(reason) ? reason : OTHER_LABEL,
    });
  }
  return labels;
}

/** Counts one ControlPlane answer: its conditions' labels (conditionLabels), once each. */
export function countConditions(metrics: Metrics, labels: readonly ConditionLabels[]): void {
  for (const l of labels) metrics.controlPlaneConditions.inc(l);
}

/** The alerted series at 0, so the first answer carrying one is an increase (called once per registry). */
export function initConditionSeries(metrics: Metrics): void {
  for (const [condition, status, reason] of ALERTED_CONDITIONS) metrics.controlPlaneConditions.inc({ condition, status, reason }, 0);
}
