// Overload protection of the hook routes (probes and metrics are always answered):
// - the in-flight body budget (inflight.ts): a call that would take the bodies being handled over
//   the budget is answered 429 before its body is read;
// - only when configured (main.ts does; in-process users leave it out, since they block the loop
//   on purpose): a saturated event loop answers 429 with Retry-After, so Metacontroller backs off
//   instead of requeueing at once (event-loop.ts: an interval without a sample is no news).
import fp from 'fastify-plugin';
import type { FastifyInstance } from 'fastify';
import { startEventLoopGuard } from './event-loop.js';
import { inflightBudget, type InflightBudget } from '../inflight.js';
import { memoryPressure } from '../memo.js';
import type { Metrics } from '../metrics.js';
import { errorBody } from './errors.js';
import { hookOf } from './hook-of.js';

export interface OverloadOptions {
  /** Mean event-loop delay (ms) above which hook calls are answered 429; 0 turns it off. */
  maxEventLoopDelayMs: number;
  sampleIntervalMs?: number;
  /** The Retry-After of a 429 (Metacontroller requeues after it; without it, at once). */
  retryAfterSeconds?: number;
}

export const DEFAULT_OVERLOAD: Required<OverloadOptions> = { maxEventLoopDelayMs: 1000, sampleIntervalMs: 500, retryAfterSeconds: 5 };

export interface OverloadPluginOptions {
  metrics: Metrics;
  /** The event-loop guard, when given. */
  overload: OverloadOptions | undefined;
  maxInflightBytes: number;
  bodyLimit: number;
  /** Handed the in-flight budget (readiness and the metrics read it). */
  onBudget?: (budget: InflightBudget) => void;
  /** The budget's clock (ms; default Date.now): when refusals began. */
  now?: () => number;
}

export const overloadPlugin = fp(
  async (app: FastifyInstance, options: OverloadPluginOptions) => {
    const { metrics } = options;
    const overload = { ...DEFAULT_OVERLOAD, ...options.overload };
    if (options.overload && overload.maxEventLoopDelayMs > 0) {
      const { guard, stop } = startEventLoopGuard(overload.sampleIntervalMs);
      app.addHook('onClose', async () => stop());
      app.addHook('onRequest', async (request, reply) => {
        const hook = hookOf(request);
        if (!hook || guard.delayMs <= overload.maxEventLoopDelayMs) return;
        metrics.overloaded.inc({ hook });
        return reply
          .code(429)
          .header('retry-after', String(overload.retryAfterSeconds))
          .send(errorBody(429, `overloaded (eventLoopDelay ${Math.round(guard.delayMs)}): retry after ${overload.retryAfterSeconds} s`));
      });
    }

    const budget = inflightBudget(options.maxInflightBytes, options.bodyLimit, options.now, memoryPressure);
    options.onBudget?.(budget);
    app.addHook('onRequest', async (request, reply) => {
      const hook = hookOf(request);
      if (!hook || budget.admit(request, reply)) return;
      metrics.overloaded.inc({ hook });
      return reply
        .code(429)
        .header('retry-after', String(overload.retryAfterSeconds))
        .send(errorBody(429, `overloaded (request bodies in flight ${budget.bytes} bytes): retry after ${overload.retryAfterSeconds} s`));
    });
    app.addHook('onResponse', async (request) => budget.release(request));
    app.addHook('onRequestAbort', async (request) => budget.release(request));
  },
  { name: 'c5c3-overload' },
);
