// Process configuration, read from the environment once at start-up.
import { readFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/** Hook bodies carry whole objects (managedFields included): 8 MiB by default. */
export const DEFAULT_BODY_LIMIT = 8 * 1024 * 1024;
/** The bodies handled at once, in bytes (src/inflight.ts): one body of the default limit. */
export const DEFAULT_MAX_INFLIGHT_BYTES = 8 * 1024 * 1024;

export interface Config {
  port: number;
  host: string;
  logLevel: LogLevel;
  bodyLimit: number;
  /** MAX_INFLIGHT_BYTES: the sum of the hook bodies handled at once (429 beyond, src/inflight.ts). */
  maxInflightBytes: number;
  /** Seconds between "not ready" and closing the listener on SIGTERM (endpoint propagation). */
  shutdownDelaySeconds: number;
  tls?: { cert: Buffer; key: Buffer };
  /** CAPTURE_DIR / CAPTURE_KEY: write every hook call, sanitised, into this directory. */
  capture?: { dir: string; key: string | Buffer };
  /** CLOCK: the instant every hook reads instead of the wall clock (replaying a capture only). */
  clock?: Date;
  /** RANDOM_SEED: a per-request seeded random source (replaying a capture only). */
  randomSeed?: string;
  /** MAX_EVENT_LOOP_DELAY_MS: above this mean event-loop delay hook calls get 429 (0: off). */
  maxEventLoopDelayMs: number;
}

export class ConfigError extends Error {
  override name = 'ConfigError';
}

const SIZE_SUFFIX: Record<string, number> = { '': 1, Ki: 1024, Mi: 1024 ** 2, Gi: 1024 ** 3, k: 1e3, M: 1e6, G: 1e9 };

function integer(env: NodeJS.ProcessEnv, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!/^\d+$/.test(raw) || Number(raw) < min || Number(raw) > max) {
    throw new ConfigError(`${name} must be a whole number from ${min} to ${max}, got "${raw}"`);
  }
  return Number(raw);
}

function size(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const match = /^(\d+)(Ki|Mi|Gi|k|M|G)?$/.exec(raw);
  if (!match) throw new ConfigError(`${name} must be a byte count such as 8388608 or 8Mi, got "${raw}"`);
  const bytes = Number(match[1]) * SIZE_SUFFIX[match[2] ?? '']!;
  if (bytes < 1024) throw new ConfigError(`${name} must be at least 1024 bytes, got "${raw}"`);
  return bytes;
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const logLevel = (env.LOG_LEVEL || 'info') as LogLevel;
  if (!LOG_LEVELS.includes(logLevel)) {
    throw new ConfigError(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}, got "${env.LOG_LEVEL}"`);
  }
  const certFile = env.TLS_CERT_FILE || undefined;
  const keyFile = env.TLS_KEY_FILE || undefined;
  if ((certFile === undefined) !== (keyFile === undefined)) {
    throw new ConfigError('TLS_CERT_FILE and TLS_KEY_FILE must be set together (or neither, for plain HTTP)');
  }
  const config: Config = {
    port: integer(env, 'PORT', 8080, 0, 65535),
    host: env.HOST || '0.0.0.0',
    logLevel,
    bodyLimit: size(env, 'BODY_LIMIT', DEFAULT_BODY_LIMIT),
    maxInflightBytes: size(env, 'MAX_INFLIGHT_BYTES', DEFAULT_MAX_INFLIGHT_BYTES),
    shutdownDelaySeconds: integer(env, 'SHUTDOWN_DELAY_SECONDS', 0, 0, 300),
    maxEventLoopDelayMs: integer(env, 'MAX_EVENT_LOOP_DELAY_MS', 1000, 0, 60000),
  };
  const captureDir = env.CAPTURE_DIR || undefined;
  if (captureDir) config.capture = { dir: captureDir, key: env.CAPTURE_KEY || randomBytes(32) };
  else if (env.CAPTURE_KEY) throw new ConfigError('CAPTURE_KEY is only used with CAPTURE_DIR');
  if (env.CLOCK) {
    const clock = new Date(env.CLOCK);
    if (!/^\d{4}-\d{2}-\d{2}T/.test(env.CLOCK) || Number.isNaN(clock.getTime())) {
      throw new ConfigError(`CLOCK must be an RFC 3339 instant such as 2026-11-21T12:00:00Z, got "${env.CLOCK}"`);
    }
    config.clock = clock;
  }
  if (env.RANDOM_SEED) config.randomSeed = env.RANDOM_SEED;
  if (certFile && keyFile) {
    config.tls = { cert: readFile('TLS_CERT_FILE', certFile), key: readFile('TLS_KEY_FILE', keyFile) };
  }
  return config;
}

function readFile(name: string, path: string): Buffer {
  try {
    return readFileSync(path);
  } catch (err) {
    throw new ConfigError(`${name}: cannot read ${path}: ${(err as NodeJS.ErrnoException).code ?? 'error'}`);
  }
}
