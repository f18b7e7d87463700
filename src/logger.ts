// pino options: JSON lines, and no secret ever written.
//
// Two layers: pino's `redact` for the request headers that carry credentials, and a deep walk
// over every logged object that replaces Secret payloads (`data`, `stringData`) and any field
// whose name says password / secret / credential / token / clouds.yaml. References to Secrets
// (`…Ref`, `…Name`) stay readable: they name a Secret, they do not hold it.
import type { LoggerOptions } from 'pino';
import type { LogLevel } from './config.js';

export const REDACTED = '[REDACTED]';

const PAYLOAD_KEYS = new Set(['data', 'stringData', 'binaryData']);
const SENSITIVE_KEY = /pass(word|wd|phrase)?|secret|credential|token|clouds\.yaml|private[-_]?key|authorization|cookie/i;
const REFERENCE_KEY = /(Ref|Refs|Name|Names)$/;

export function isSensitiveKey(key: string): boolean {
  return PAYLOAD_KEYS.has(key) || (SENSITIVE_KEY.test(key) && !REFERENCE_KEY.test(key));
}

/** A copy of plain data `value` with every sensitive field replaced; cycles and depth are bounded. */
export function redactDeep(value: unknown, depth = 0, seen = new WeakSet<object>()): unknown {
  if (value === null || typeof value !== 'object') return value;
  if (depth > 32 || seen.has(value)) return '[Truncated]';
  seen.add(value);
  if (Array.isArray(value)) return value.map((v) => redactDeep(v, depth + 1, seen));
  // Only plain data is walked; class instances (requests, replies, errors) go to pino's serializers.
  const proto = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) return value;
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(value)) {
    out[key] = isSensitiveKey(key) && v !== undefined && v !== null ? REDACTED : redactDeep(v, depth + 1, seen);
  }
  return out;
}

export function loggerOptions(level: LogLevel): LoggerOptions {
  return {
    level,
    messageKey: 'msg',
    base: { service: 'c5c3-hooks' },
    timestamp: () => `,"time":"${new Date().toISOString()}"`,
    redact: {
      paths: ['req.headers.authorization', 'req.headers.cookie', 'req.headers["proxy-authorization"]'],
      censor: REDACTED,
    },
    formatters: {
      level: (label) => ({ level: label }),
      log: (object) => redactDeep(object) as Record<string, unknown>,
    },
  };
}
