// Prometheus metrics: Node defaults plus one histogram of hook request durations, labelled by
// hook and outcome only (no per-object labels: the series count does not grow with the fleet).
import { collectDefaultMetrics, Histogram, Registry } from 'prom-client';

export const HOOK_DURATION_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

export type Outcome = 'success' | 'client_error' | 'server_error';

export function outcomeOf(statusCode: number): Outcome {
  if (statusCode >= 500) return 'server_error';
  if (statusCode >= 400) return 'client_error';
  return 'success';
}

export interface Metrics {
  registry: Registry;
  hookDuration: Histogram<'hook' | 'outcome'>;
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
  return { registry, hookDuration };
}
