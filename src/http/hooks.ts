// The hook routes (routes.ts) served: one clock instant per call (so a captured call records the
// clock its answer was computed at), the random source (or, for replays, a source seeded afresh
// per call), stage measurements into the metrics, events into the request's log line, and every
// call captured when capture is on. Each answer is told to kept-answers.ts with whether it may
// answer the same bytes again: whether it called the clock or the random source, logged an event or
// failed a stage (watched as it is computed).
import fp from 'fastify-plugin';
import type { FastifyInstance } from 'fastify';
import type { CaptureWriter } from '../capture/capture.js';
import type { Metrics } from '../metrics.js';
import { conditionLabels, countConditions, initConditionSeries } from './condition-metrics.js';
import { answerComputed, CallWatch } from './kept-answers.js';
import { parentOf } from './parent-of.js';
import { seededRandom } from '../random.js';
import { HOOK_ROUTES, type HookRunner } from '../routes.js';
import type { StageTrace } from '../controlplane/pipeline.js';

export interface HooksPluginOptions {
  clock: () => Date;
  random: (bytes: number) => Buffer;
  /** Replays: every call draws from a source seeded with this text, restarted per call. */
  randomSeed: string | undefined;
  metrics: Metrics;
  capture: CaptureWriter | undefined;
}

/** The hooks whose answers carry a ControlPlane's whole status (counted by condition, metrics.ts). */
const CONTROLPLANE_ANSWERS: ReadonlySet<string> = new Set(['/controlplane/sync', '/controlplane/finalize']);

export const hooksPlugin = fp(
  async (app: FastifyInstance, options: HooksPluginOptions) => {
    const { metrics, capture } = options;
    initConditionSeries(metrics);
    const onStage = (trace: StageTrace): void => {
      metrics.stageDuration.observe({ sub_reconciler: trace.name }, trace.seconds);
      if (trace.outcome === 'failed') metrics.stageErrors.inc({ sub_reconciler: trace.name, condition_type: trace.conditionType });
    };
    const run: HookRunner = (call, answer) => {
      const at = options.clock();
      // What the answer depends on beyond the request's bytes (kept-answers.ts).
      const watch = new CallWatch();
      // Every line this call logs names its parent, as its request line does (request-log.ts).
      const parent = parentOf(call.body);
      const log = parent === undefined ? call.log : call.log.child({ parent });
      const context = watch.watch({
        now: () => at,
        random: options.randomSeed === undefined ? options.random : seededRandom(options.randomSeed),
        onStage,
        onEvent: (event) => log[event.level]({ reason: event.reason, objects: event.objects }, event.message),
      });
      const response = answer(call.body, context);
      capture?.write(call.path, at, call.body, response, options.randomSeed);
      const conditions = CONTROLPLANE_ANSWERS.has(call.path) ? conditionLabels(response) : [];
      countConditions(metrics, conditions);
      answerComputed(call.request, { repeatable: () => watch.repeatable, conditions, parent });
      return response;
    };
    for (const route of HOOK_ROUTES) route.register(app, run);
  },
  { name: 'c5c3-hooks' },
);
