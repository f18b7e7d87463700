// Building a server for a test: logs captured in memory, a fixed clock and random source.
import { seededRandom } from '../../src/random.js';
import { Writable } from 'node:stream';
import pino from 'pino';
import { buildServer, type HooksServer, type ServerOptions } from '../../src/server.js';
import { loggerOptions } from '../../src/logger.js';
import type { LogLevel } from '../../src/config.js';

export const FIXED_NOW = new Date('2026-11-21T12:00:00Z');

/** A deterministic random source (src/random.ts), seeded `c5c3` unless told otherwise. */
export const sequence = (seed = 'c5c3') => seededRandom(seed);

export interface TestServer {
  app: HooksServer;
  /** Every log line written so far (JSON strings). */
  logs: string[];
}

export async function testServer(options: ServerOptions & { level?: LogLevel } = {}): Promise<TestServer> {
  const logs: string[] = [];
  const sink = new Writable({
    write(chunk, _enc, done) {
      logs.push(...String(chunk).split('\n').filter(Boolean));
      done();
    },
  });
  const logger = pino(loggerOptions(options.level ?? 'debug'), sink);
  const app = await buildServer({
    logger,
    clock: () => FIXED_NOW,
    random: sequence(),
    ...options,
  });
  return { app, logs };
}

/** POST a JSON body (object, or a raw string sent as is). */
export async function post(app: HooksServer, url: string, body: unknown, headers: Record<string, string> = {}) {
  const res = await app.inject({
    method: 'POST',
    url,
    headers: { 'content-type': 'application/json', ...headers },
    payload: typeof body === 'string' || Buffer.isBuffer(body) ? body : JSON.stringify(body),
  });
  let json: any;
  try {
    json = res.json();
  } catch {
    json = undefined;
  }
  return { status: res.statusCode, json, body: res.body, headers: res.headers };
}
