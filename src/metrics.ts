// Prometheus metrics: Node defaults plus one histogram of hook request durations, labelled by
// hook and outcome only (no per-object labels: the series count does not grow with the fleet).
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import { MEMO_BUDGET_BYTES, memoBytes, memoLookups, memoSheds } from './memo.js';
import { VERSION } from './version.js';

export const HOOK_DURATION_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

export type Outcome = 'success' | 'client_error' | 'server_error';

export function outcomeOf(statusCode: number): Outcome {
  if (statusCode >= 500) return 'server_error';
  if (statusCode >= 400) return 'client_error';
  return 'success';
}

/** The seed's fixed bucket contract for sub-reconciler durations (0.01 … 30 s). */
export const STAGE_DURATION_BUCKETS = [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

export interface Metrics {
  registry: Registry;
  hookDuration: Histogram<'hook' | 'outcome'>;
  /** Seed: c5c3_operator_reconcile_duration_seconds{sub_reconciler}. */
  stageDuration: Histogram<'sub_reconciler'>;
  /** Seed: c5c3_operator_reconcile_errors_total{sub_reconciler,condition_type}; counts failed stages. */
  stageErrors: Counter<'sub_reconciler' | 'condition_type'>;
  /** Hook calls answered 429 because the process was saturated. */
  overloaded: Counter<'hook'>;
  /** Bytes of the hook bodies in flight (the in-flight budget), read from `readInflightBytes` when scraped. */
  inflightBytes: Gauge;
  readInflightBytes: () => number;
  /** Lookups of the process's memos (memo.ts MEMO), by memo and result (hit, miss), read when scraped. */
  memoLookups: Counter<'memo' | 'result'>;
  /** 1 while /readyz answers 200, 0 while it answers 503 (read from `readReady` when scraped). */
  ready: Gauge;
  readReady: () => boolean;
  /** ControlPlane sync and finalize answers, counted once per condition they carry (http/condition-metrics.ts). */
  controlPlaneConditions: Counter<'condition' | 'status' | 'reason'>;
}

export function createMetrics(): Metrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const hookDuration = new Histogram({
    name: 'c5c3_hooks_request_duration_seconds',
    help: 'Duration of Metacontroller hook requests, by hook and outcome.',
    labelNames: ['hook', 'outcome'] as const,
    buckets: HOOK_DURATION_BUCKETS,
    registers: [registry],
  });
  const stageDuration = new Histogram({
    name: 'c5c3_operator_reconcile_duration_seconds',
    help: 'Duration of each ControlPlane sync stage (sub-reconciler).',
    labelNames: ['sub_reconciler'] as const,
    buckets: STAGE_DURATION_BUCKETS,
    registers: [registry],
  });
  const stageErrors = new Counter({
    name: 'c5c3_operator_reconcile_errors_total',
    help: 'ControlPlane sync stages that failed (the seed error returns), by stage and condition type.',
    labelNames: ['sub_reconciler', 'condition_type'] as const,
    registers: [registry],
  });
  const overloaded = new Counter({
    name: 'c5c3_hooks_overloaded_total',
    help: 'Hook calls answered 429 (with Retry-After) because the event loop was saturated.',
    labelNames: ['hook'] as const,
    registers: [registry],
  });
  const memoLookupsTotal = new Counter({
    name: 'c5c3_hooks_memo_lookups_total',
    help: 'Lookups of the memos of what the hooks computed from earlier requests, by memo (answer: the answers kept by their body\'s bytes) and result (hit: answered from memory; miss: computed).',
    labelNames: ['memo', 'result'] as const,
    registers: [registry],
    collect() {
      // The counts live with the memos (module singletons, one set per process): copied when scraped.
      this.reset();
      for (const [memo, { hit, miss }] of memoLookups()) {
        this.inc({ memo, result: 'hit' }, hit);
        this.inc({ memo, result: 'miss' }, miss);
      }
    },
  });
  new Counter({
    name: 'c5c3_hooks_memo_sheds_total',
    help: 'Times a memo (answer: the kept answers) was emptied because the hook bodies in flight took more than half the in-flight budget (MAX_INFLIGHT_BYTES): memory first, the next calls compute again.',
    labelNames: ['memo'] as const,
    registers: [registry],
    collect() {
      this.reset();
      for (const [memo, count] of memoSheds()) this.inc({ memo }, count);
    },
  });
  new Gauge({
    name: 'c5c3_hooks_memo_bytes',
    help: `What the memos hold now, in bytes as they weigh it (keys and values), all memos together: at most MEMO_BUDGET_BYTES (${MEMO_BUDGET_BYTES}).`,
    registers: [registry],
    collect() {
      this.set(memoBytes());
    },
  });
  const controlPlaneConditions = new Counter({
    name: 'c5c3_hooks_controlplane_conditions_total',
    help:
      'ControlPlane sync and finalize answers, counted once for each condition they carry, by condition type, status and reason. ' +
      'Every ControlPlane is answered at least once per resync period (300 s), so an increase over a longer window means some ControlPlane was in that state; which one, kubectl tells (no per-object labels).',
    labelNames: ['condition', 'status', 'reason'] as const,
    registers: [registry],
  });
  // Which build answers (the usual *_build_info: constant 1, the facts in its labels), so a
  // dashboard or an alert can tell the replicas of a rollout apart.
  new Gauge({
    name: 'c5c3_hooks_build_info',
    help: 'The version of c5c3-hooks and of Node.js this process runs (always 1).',
    labelNames: ['version', 'node'] as const,
    registers: [registry],
  }).set({ version: VERSION, node: process.version }, 1);
  const metrics: Metrics = {
    registry,
    hookDuration,
    stageDuration,
    stageErrors,
    overloaded,
    inflightBytes: undefined as unknown as Gauge,
    readInflightBytes: () => 0,
    memoLookups: memoLookupsTotal,
    ready: undefined as unknown as Gauge,
    readReady: () => true,
    controlPlaneConditions,
  };
  metrics.ready = new Gauge({
    name: 'c5c3_hooks_ready',
    help: '1 while the readiness probe (/readyz) answers 200, 0 while it answers 503 (shutting down, or the in-flight budget stuck).',
    registers: [registry],
    collect() {
      this.set(metrics.readReady() ? 1 : 0);
    },
  });
  metrics.inflightBytes = new Gauge({
    name: 'c5c3_hooks_inflight_bytes',
    help: 'Bytes of the hook request bodies being handled now (bounded by MAX_INFLIGHT_BYTES).',
    registers: [registry],
    collect() {
      this.set(metrics.readInflightBytes());
    },
  });
  return metrics;
}
