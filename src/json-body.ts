// The JSON body parser of the hook routes (replacing fastify's default, secure-json-parse).
//
// - Depth: a body nesting deeper than MAX_JSON_DEPTH is answered 400 before it is parsed, so no
//   recursive walker downstream can overflow the stack (a 500). Metacontroller retries a 400
//   without applying anything; no object a cluster really holds nests that deep (k8s/json-depth.ts).
// - `__proto__` and `constructor`: valid keys in Kubernetes (a Secret key may be `__proto__`), so
//   they are kept, not refused (a 400 on every call, for good) and not removed (a key the hooks
//   re-emit would be deleted from an owned Secret). JSON.parse makes them own data properties,
//   which cannot reach Object.prototype; the hooks copy objects with spreads, structuredClone,
//   Object.entries/fromEntries (own properties, defined, never assigned through a prototype).
import { errorCodes, type FastifyRequest } from 'fastify';
import { deeperThan, MAX_JSON_DEPTH } from './k8s/json-depth.js';

class BodyTooDeep extends Error {
  override name = 'BodyTooDeep';
  statusCode = 400;
}

export function parseJsonBody(_request: FastifyRequest, body: string | Buffer, done: (err: Error | null, body?: unknown) => void): void {
  const text = typeof body === 'string' ? body : body.toString('utf8');
  if (text.length === 0) return done(new errorCodes.FST_ERR_CTP_EMPTY_JSON_BODY());
  const at = deeperThan(text);
  if (at >= 0) return done(new BodyTooDeep(`request nests deeper than ${MAX_JSON_DEPTH} levels (at character ${at}); no Kubernetes object nests that deep`));
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return done(new errorCodes.FST_ERR_CTP_INVALID_JSON_BODY());
  }
  done(null, parsed);
}
