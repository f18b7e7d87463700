// buildServer(): the fastify application answering Metacontroller's hook calls.
import Fastify, { LogController, type FastifyInstance, type FastifyRequest, type FastifyServerOptions } from 'fastify';
import { randomBytes } from 'node:crypto';
import type http from 'node:http';
import net from 'node:net';
import pino from 'pino';
import { DEFAULT_BODY_LIMIT, DEFAULT_MAX_INFLIGHT_BYTES, type LogLevel } from './config.js';
import { loggerOptions } from './logger.js';
import { createMetrics, type Metrics } from './metrics.js';
import { CaptureWriter } from './capture/capture.js';
import { parseJsonBody } from './json-body.js';
import { systemNow } from './k8s/time.js';
import type { InflightBudget } from './inflight.js';
import { errorsPlugin } from './http/errors.js';
import { overloadPlugin, type OverloadOptions } from './http/overload.js';
import { probesPlugin } from './http/probes.js';
import { metricsPlugin } from './http/metrics.js';
import { requestLogPlugin } from './http/request-log.js';
import { keptAnswersPlugin } from './http/kept-answers.js';
import { hooksPlugin } from './http/hooks.js';

/** Readiness: how long hook calls may be refused with no byte of the budget given back. */
export const DEFAULT_BUDGET_STUCK_MS = 60_000;

/**
 * How long a request may take to arrive, headers and body (docs/architecture.md §1.4): the hook
 * timeout of every controller (metacontroller/*.yaml `timeout: 10s`). Metacontroller has given up
 * on a call by then, so nothing it sent is lost; a client that stalls mid-request (headers
 * declaring 8 MiB, three bytes, silence) is answered 408 and closed, and the in-flight bytes it
 * held are given back, instead of holding them for as long as its connection lives. Node's
 * requestTimeout and headersTimeout bound the receipt only (a call being answered is not cut), and
 * count from the first byte, so a client dripping a byte at a time is bounded too (fastify's
 * connectionTimeout is an idle timeout, which it would reset); they are checked every
 * REQUEST_CHECK_INTERVAL_MS (Node's connectionsCheckingInterval, 30 s by default).
 */
export const REQUEST_TIMEOUT_MS = 10_000;
const REQUEST_CHECK_INTERVAL_MS = 1_000;

export { DEFAULT_OVERLOAD, type OverloadOptions } from './http/overload.js';

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
  /**
   * Readiness turns false (503) once hook calls have been refused for this long (ms) with no byte
   * of the in-flight budget given back: a budget that stays exhausted serves nothing (default 60 s).
   */
  budgetStuckMs?: number;
  /** The clock (ms) of the in-flight budget and of readiness' `budgetStuckMs` (default Date.now; tests step it). */
  monotonicNow?: () => number;
  /** How long a request may take to arrive, headers and body (default REQUEST_TIMEOUT_MS). */
  requestTimeoutMs?: number;
}

/** What the server keeps besides fastify's own: readiness, the metrics, the capture writer. */
export interface HooksState {
  /** Readiness: false once shutdown began, so /readyz answers 503 and endpoints drain. */
  draining: boolean;
  metrics: Metrics;
  capture?: CaptureWriter;
  /** Bytes of the hook bodies in flight now (the in-flight budget, inflight.ts). */
  inflightBytes: () => number;
  /** Calls received whole and not yet answered: an answer is on its way on their connection. */
  answering: () => number;
}

declare module 'fastify' {
  interface FastifyInstance {
    c5c3: HooksState;
  }
}

export type HooksServer = FastifyInstance;

export async function buildServer(options: ServerOptions = {}): Promise<HooksServer> {
  const logger = options.logger === false ? undefined : (options.logger ?? pino(loggerOptions(options.logLevel ?? 'info')));
  const bodyLimit = options.bodyLimit ?? DEFAULT_BODY_LIMIT;
  const requestTimeout = options.requestTimeoutMs ?? REQUEST_TIMEOUT_MS;
  // Given to http(s).createServer: fastify sets only requestTimeout on the server it made.
  const receive = { requestTimeout, headersTimeout: requestTimeout, connectionsCheckingInterval: Math.min(REQUEST_CHECK_INTERVAL_MS, requestTimeout) };
  const fastifyOptions: FastifyServerOptions & { https?: unknown; http?: http.ServerOptions } = {
    ...(logger ? { loggerInstance: logger } : { logger: false }),
    bodyLimit,
    requestTimeout,
    http: receive,
    return503OnClosing: true,
    // One line per request, written by the request-log plugin.
    logController: new LogController({ disableRequestLogging: true }),
    forceCloseConnections: 'idle',
    ajv: {
      // Validate exactly what Metacontroller sent: no coercion, no injected defaults, nothing removed.
      // Up to the first error only: a body of 91,000 bad children would otherwise be 273,000 error
      // objects (an out-of-memory crash). `verbose` keeps that one error's data, so its 400
      // message can name the type that was sent (never its value).
      customOptions: { coerceTypes: false, useDefaults: false, removeAdditional: false, allErrors: false, verbose: true },
    },
  };
  if (options.tls) fastifyOptions.https = { cert: options.tls.cert, key: options.tls.key, ...receive };

  const app: HooksServer = Fastify(fastifyOptions);
  // Hooks take JSON only: a text/plain body is refused (415) instead of parsed as a string.
  app.removeContentTypeParser('text/plain');
  // Bounded nesting, `__proto__` kept as an ordinary key (json-body.ts).
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, parseJsonBody);
  const metrics = createMetrics();
  const capture = options.capture
    ? new CaptureWriter(options.capture.dir, options.capture.key, (err) => app.log.error({ err: { code: errorCode(err) } }, 'capture write failed'))
    : undefined;
  let budget: InflightBudget | undefined;
  // Every call from its headers to its response's end (or its connection's): shutdown waits for
  // those received whole, and only for those (closeGracefully).
  const calls = new Set<FastifyRequest>();
  app.addHook('onRequest', async (request, reply) => {
    calls.add(request);
    reply.raw.once('close', () => calls.delete(request));
  });
  const answering = () => {
    let n = 0;
    for (const call of calls) if (call.raw.complete) n++;
    return n;
  };
  app.decorate('c5c3', { draining: false, metrics, capture, inflightBytes: () => budget?.bytes ?? 0, answering });
  metrics.readInflightBytes = () => budget?.bytes ?? 0;
  if (capture) app.addHook('onClose', async () => capture.flush());
  // Draining (shutdown began): every answer closes its connection, so keep-alive clients move to
  // new connections (to another replica, once endpoints drop this one) while this one still
  // answers, instead of finding their idle connection closed under a request when it stops.
  app.addHook('onSend', async (_request, reply) => {
    if (app.c5c3.draining) reply.header('connection', 'close');
  });

  // One concern each (src/http/): errors, overload, probes, metrics, the request log, the hooks.
  await app.register(errorsPlugin);
  await app.register(overloadPlugin, {
    metrics,
    overload: options.overload,
    maxInflightBytes: options.maxInflightBytes ?? DEFAULT_MAX_INFLIGHT_BYTES,
    bodyLimit,
    onBudget: (b) => (budget = b),
    now: options.monotonicNow,
  });
  const budgetStuckMs = options.budgetStuckMs ?? DEFAULT_BUDGET_STUCK_MS;
  const unready = () => {
    const since = budget?.exhaustedSince;
    const now = (options.monotonicNow ?? Date.now)();
    return since !== undefined && now - since >= budgetStuckMs
      ? `in-flight body budget exhausted for ${Math.round((now - since) / 1000)} s (${budget?.bytes} bytes held)`
      : undefined;
  };
  await app.register(probesPlugin, { draining: () => app.c5c3.draining, unready });
  // What /readyz answers, for the metric (and the alert) of a replica that is not ready.
  metrics.readReady = () => !app.c5c3.draining && unready() === undefined;
  await app.register(metricsPlugin, { metrics });
  await app.register(requestLogPlugin);
  const clock = options.clock ?? systemNow;
  // A call's answer kept for the same bytes (kept-answers.ts).
  await app.register(keptAnswersPlugin, { metrics, capture: capture && { writer: capture, clock, randomSeed: options.randomSeed } });
  await app.register(hooksPlugin, {
    clock,
    random: options.random ?? randomBytes,
    randomSeed: options.randomSeed,
    metrics,
    capture,
  });
  return app;
}

/**
 * Shutdown, before app.close(): stop accepting connections, then give those already accepted up to
 * `graceMs` to deliver their request and get its answer (draining: with `Connection: close`, so
 * each closes after it). app.close() then closes what is still idle; done at once, a connection
 * accepted a moment before (its request on the way) was reset under its request.
 */
export async function stopAccepting(app: HooksServer, graceMs: number): Promise<void> {
  if (!app.server.listening) return;
  // net's close only (http's would also close the idle connections now); its callback waits for
  // every connection to end, so it is not awaited.
  net.Server.prototype.close.call(app.server);
  const connections = () => new Promise<number>((resolve) => app.server.getConnections((err, count) => resolve(err ? 0 : count)));
  for (const deadline = Date.now() + graceMs; Date.now() < deadline && (await connections()) > 0; ) await sleep(20);
}

/**
 * The whole shutdown after readiness turned false: stopAccepting, then every call received whole is
 * answered (up to REQUEST_TIMEOUT_MS, Metacontroller's hook timeout: it gave up on a call by then),
 * then every connection left is closed (idle ones, and ones whose request is still arriving: a
 * stalled upload, headers never finished; none has an answer on its way), then app.close(). Those
 * are closed here because Node stops enforcing requestTimeout once its server closes
 * (httpServerPreClose clears the check): app.close() alone waited on a stalled client for as long
 * as it kept its connection open. Returns how many connections were closed that way.
 */
export async function closeGracefully(app: HooksServer, graceMs: number): Promise<number> {
  await stopAccepting(app, graceMs);
  for (const deadline = Date.now() + REQUEST_TIMEOUT_MS; Date.now() < deadline && app.c5c3.answering() > 0; ) await sleep(20);
  const left = await new Promise<number>((resolve) => app.server.getConnections((err, count) => resolve(err ? 0 : count)));
  app.server.closeAllConnections();
  await app.close();
  return left;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function errorCode(err: unknown): string | undefined {
  return typeof err === 'object' && err !== null && 'code' in err && typeof err.code === 'string' ? err.code : undefined;
}
