// buildServer(): the fastify application answering Metacontroller's hook calls.
import Fastify, { LogController, type FastifyError, type FastifyInstance, type FastifyReply, type FastifyRequest, type FastifyServerOptions } from 'fastify';
import type { TSchema } from '@sinclair/typebox';
import type { ErrorObject } from 'ajv';
import { randomBytes } from 'node:crypto';
import pino from 'pino';
import underPressure from '@fastify/under-pressure';
import { DEFAULT_BODY_LIMIT, DEFAULT_MAX_INFLIGHT_BYTES, type LogLevel } from './config.js';
import { inflightBudget } from './inflight.js';
import { loggerOptions } from './logger.js';
import { createMetrics, outcomeOf, type Metrics } from './metrics.js';
import { formatError } from './api/validate.js';
import { HOOK_ROUTES, type HookContext } from './routes.js';
import { CaptureWriter } from './capture/capture.js';
import { seededRandom } from './random.js';
import { parseJsonBody } from './json-body.js';

export interface ServerOptions {
  /** Log level for the default JSON logger (ignored when `logger` is given). */
  logLevel?: LogLevel;
  /** A ready pino logger (tests pass one writing to a buffer); `false` silences logging. */
  logger?: pino.Logger | false;
  /** Largest accepted request body in bytes (default 8 MiB). */
  bodyLimit?: number;
  /** Serve HTTPS with this key pair. */
  tls?: { cert: Buffer | string; key: Buffer | string };
  /** The clock the hooks read (default: the wall clock). */
  clock?: () => Date;
  /** The random source the hooks read (default: crypto.randomBytes). */
  random?: (bytes: number) => Buffer;
  /**
   * Replays only: every request draws from a random source seeded with this text, restarted per
   * request, so a replayed payload generates the same values (overrides `random`).
   */
  randomSeed?: string;
  /** Write every hook call, sanitised, into `dir` (placeholders keyed by `key`). */
  capture?: { dir: string; key: string | Buffer };
  /** Largest sum of the hook bodies handled at once (default 8 MiB; inflight.ts). */
  maxInflightBytes?: number;
  /**
   * Overload protection, only when given (main.ts gives it: MAX_EVENT_LOOP_DELAY_MS, default
   * 1000 ms, sampled every 500 ms). In-process users (simulation, gen, replay, tests) leave it
   * out: they block the loop on purpose, and the guard would answer their calls 429.
   */
  overload?: OverloadOptions;
}

export interface OverloadOptions {
  /** Mean event-loop delay (ms) above which hook calls are answered 429; 0 turns it off. */
  maxEventLoopDelayMs: number;
  sampleIntervalMs?: number;
  /** The Retry-After of a 429 (Metacontroller requeues after it; without it, at once). */
  retryAfterSeconds?: number;
}

export const DEFAULT_OVERLOAD: Required<OverloadOptions> = { maxEventLoopDelayMs: 1000, sampleIntervalMs: 500, retryAfterSeconds: 5 };

export interface HooksServer extends FastifyInstance {
  /** Readiness: false once shutdown began, so /readyz answers 503 and endpoints drain. */
  c5c3: { draining: boolean; metrics: Metrics; capture?: CaptureWriter };
}

interface ErrorBody {
  error: string;
  message: string;
}

const STATUS_TEXT: Record<number, string> = {
  400: 'Bad Request',
  404: 'Not Found',
  405: 'Method Not Allowed',
  413: 'Payload Too Large',
  415: 'Unsupported Media Type',
  429: 'Too Many Requests',
  503: 'Service Unavailable',
};

function errorBody(status: number, message: string): ErrorBody {
  return { error: STATUS_TEXT[status] ?? (status >= 500 ? 'Internal Server Error' : 'Bad Request'), message };
}

function validationMessage(error: FastifyError): string {
  const errors = (error.validation ?? []) as ErrorObject[];
  const context = error.validationContext ?? 'body';
  const shown = errors.slice(0, 5).map((e) => formatError(context, e));
  const more = errors.length > shown.length ? ` (and ${errors.length - shown.length} more)` : '';
  return `invalid request: ${shown.join('; ')}${more}`;
}

/** Probes and the metrics scrape: logged at debug only. */
const QUIET_PATHS = new Set(['/healthz', '/readyz', '/metrics']);

export async function buildServer(options: ServerOptions = {}): Promise<HooksServer> {
  const logger = options.logger === false ? undefined : (options.logger ?? pino(loggerOptions(options.logLevel ?? 'info')));
  const fastifyOptions: FastifyServerOptions & { https?: unknown } = {
    ...(logger ? { loggerInstance: logger } : { logger: false }),
    bodyLimit: options.bodyLimit ?? DEFAULT_BODY_LIMIT,
    return503OnClosing: true,
    // One line per request, written below: hook calls at info, probes and metrics at debug.
    logController: new LogController({ disableRequestLogging: true }),
    forceCloseConnections: 'idle',
    ajv: {
      // Validate exactly what Metacontroller sent: no coercion, no injected defaults, nothing removed.
      customOptions: { coerceTypes: false, useDefaults: false, removeAdditional: false, allErrors: true, verbose: true },
    },
  };
  if (options.tls) fastifyOptions.https = { cert: options.tls.cert, key: options.tls.key };

  const app = Fastify(fastifyOptions) as unknown as HooksServer;
  // Hooks take JSON only: a text/plain body is refused (415) instead of parsed as a string.
  app.removeContentTypeParser('text/plain');
  // Bounded nesting, `__proto__` kept as an ordinary key (json-body.ts).
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, parseJsonBody);
  const metrics = createMetrics();
  const capture = options.capture
    ? new CaptureWriter(options.capture.dir, options.capture.key, (err) => app.log.error({ err: { code: (err as NodeJS.ErrnoException).code } }, 'capture write failed'))
    : undefined;
  app.decorate('c5c3', { draining: false, metrics, capture });
  if (capture) app.addHook('onClose', async () => capture.flush());

  const context: HookContext = {
    clock: options.clock ?? (() => new Date()),
    random: options.random ?? randomBytes,
    onStage: (trace) => {
      metrics.stageDuration.observe({ sub_reconciler: trace.name }, trace.seconds);
      if (trace.outcome === 'failed') {
        metrics.stageErrors.inc({ sub_reconciler: trace.name, condition_type: trace.conditionType });
      }
    },
  };

  app.setErrorHandler((error: FastifyError, request, reply) => {
    if (error.validation) {
      return reply.code(400).send(errorBody(400, validationMessage(error)));
    }
    const status = error.statusCode ?? 500;
    if (status === 415) {
      const type = String(request.headers['content-type'] ?? 'none');
      return reply.code(415).send(errorBody(415, `unsupported content-type "${type}": hooks take application/json`));
    }
    if (status >= 400 && status < 500) {
      return reply.code(status).send(errorBody(status, error.message));
    }
    // Our own fault: log it (never the body), answer without detail.
    request.log.error({ err: error }, 'hook failed');
    return reply.code(500).send(errorBody(500, 'internal error while computing the hook response; see the server log'));
  });

  const overload = { ...DEFAULT_OVERLOAD, ...options.overload };
  if (options.overload && overload.maxEventLoopDelayMs > 0) {
    // Saturated: hook calls get 429 with Retry-After, so Metacontroller backs off instead of
    // requeueing at once (reference §7.2); probes and metrics are still answered.
    await app.register(underPressure, {
      maxEventLoopDelay: overload.maxEventLoopDelayMs,
      sampleInterval: overload.sampleIntervalMs,
      // The plugin sends what the handler returns, and carries on when it returns nothing (its
      // typings only admit the latter).
      pressureHandler: ((request: FastifyRequest, reply: FastifyReply, type: string, value: number | undefined) => {
        const hook = (request.routeOptions.config as { hook?: string } | undefined)?.hook;
        if (!hook) return undefined;
        metrics.overloaded.inc({ hook });
        reply.code(429).header('retry-after', String(overload.retryAfterSeconds));
        return errorBody(429, `overloaded (${type} ${Math.round(Number(value))}): retry after ${overload.retryAfterSeconds} s`);
      }) as unknown as (request: FastifyRequest, reply: FastifyReply, type: string, value: number | undefined) => void,
    });
  }

  // Memory: the bytes of the hook bodies handled at once are bounded (inflight.ts).
  const budget = inflightBudget(options.maxInflightBytes ?? DEFAULT_MAX_INFLIGHT_BYTES, fastifyOptions.bodyLimit!);
  app.addHook('onRequest', async (request, reply) => {
    const hook = (request.routeOptions.config as { hook?: string } | undefined)?.hook;
    if (!hook || budget.onRequest(request)) return;
    metrics.overloaded.inc({ hook });
    return reply.code(429).header('retry-after', String(overload.retryAfterSeconds)).send(errorBody(429, `overloaded (request bodies in flight ${budget.bytes} bytes): retry after ${overload.retryAfterSeconds} s`));
  });
  app.addHook('onResponse', async (request) => budget.release(request));
  app.addHook('onRequestAbort', async (request) => budget.release(request));

  app.setNotFoundHandler((request, reply) =>
    reply.code(404).send(errorBody(404, `no route for ${request.method} ${request.url.split('?')[0]}`)),
  );

  app.addHook('onResponse', async (request, reply) => {
    const hook = (request.routeOptions.config as { hook?: string } | undefined)?.hook;
    if (hook) metrics.hookDuration.observe({ hook, outcome: outcomeOf(reply.statusCode) }, reply.elapsedTime / 1000);
    // One line per request (never the body): a hook call at info, probes and scrapes (~36 a
    // minute per pod) at debug, anything else (404, 405, …) at info.
    const path = request.url.split('?')[0]!;
    const line = { method: request.method, path, statusCode: reply.statusCode, durationMs: Math.round(reply.elapsedTime * 10) / 10 };
    const message = `${request.method} ${path} ${reply.statusCode}`;
    if (!hook && QUIET_PATHS.has(path)) request.log.debug(line, message);
    else request.log.info(hook ? { hook, ...line } : line, message);
  });

  app.get('/healthz', async () => ({ status: 'ok' }));
  app.get('/readyz', async (_request, reply) =>
    app.c5c3.draining ? reply.code(503).send({ status: 'shutting down' }) : { status: 'ok' },
  );
  app.get('/metrics', async (_request, reply) =>
    reply.type(metrics.registry.contentType).send(await metrics.registry.metrics()),
  );

  for (const route of HOOK_ROUTES) {
    app.post(
      route.path,
      { schema: { body: route.body as TSchema }, config: { hook: route.hook } },
      async (request) => {
        // One instant per call, so a captured call records the clock its answer was computed at.
        const now = context.clock();
        const random = options.randomSeed === undefined ? context.random : seededRandom(options.randomSeed);
        const response = route.handle(request.body as never, {
          ...context,
          clock: () => now,
          random,
          onEvent: (event) => request.log[event.level]({ reason: event.reason, objects: event.objects }, event.message),
        });
        capture?.write(route.path, now, request.body, response, options.randomSeed);
        return response;
      },
    );
  }

  return app;
}
