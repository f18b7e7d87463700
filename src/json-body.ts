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
//
// Parsed every call: a body that comes again with the same bytes (a converged ControlPlane's
// resync) is answered before it is parsed, from the answer kept for those bytes
// (http/kept-answers.ts), so no parsed body is kept here.
import { errorCodes, type FastifyRequest } from 'fastify';
import { MAX_JSON_DEPTH, scanJson } from './k8s/json-depth.js';

class BodyTooDeep extends Error {
  override name = 'BodyTooDeep';
  statusCode = 400;
}

class BodyTooDense extends Error {
  override name = 'BodyTooDense';
  statusCode = 413;
}

/**
 * What a body may cost once parsed. The in-flight budget bounds the bytes of the bodies handled at
 * once; what they take in memory depends on their shape: an empty object costs V8 about 64 bytes
 * of heap, so 8 MiB of `[{},{},…]` parses to 180 MiB (over the 128 MiB heap: a crash), while the
 * densest shapes measured by test/long/memory.test.ts parse to 6 (one-key objects) and 10 (short arrays)
 * times their text at one per 8 characters: 4 such bodies in flight at once took the 128 MiB heap
 * over its limit now and then (a crash in CI). A body opening more objects and arrays than one per
 * 16 characters (and more than `minContainers`, so no small body is ever refused) is answered 413
 * before it is parsed. Real bodies are far below: a Kubernetes object opens about one per 30
 * characters.
 */
export const BODY_DENSITY = { charsPerContainer: 16, minContainers: 65_536 } as const;

/** `text` parsed, nesting and density bounded; throws BodyTooDeep, BodyTooDense or a SyntaxError. */
export function parseJsonText(text: string): unknown {
  const { deeperAt: at, containers } = scanJson(text, MAX_JSON_DEPTH);
  if (at >= 0) throw new BodyTooDeep(`request nests deeper than ${MAX_JSON_DEPTH} levels (at character ${at}); no Kubernetes object nests that deep`);
  const affordable = Math.max(BODY_DENSITY.minContainers, Math.floor(text.length / BODY_DENSITY.charsPerContainer));
  if (containers > affordable) {
    throw new BodyTooDense(
      `request opens ${containers} objects and arrays in ${text.length} characters, more than the ${affordable} the service can afford to parse (one per ${BODY_DENSITY.charsPerContainer} characters); no Kubernetes object is that dense`,
    );
  }
  return JSON.parse(text);
}

/** The content-type parser of application/json: `text` parsed (parseJsonText). */
export function parseJsonBody(_request: FastifyRequest, body: string | Buffer, done: (err: Error | null, body?: unknown) => void): void {
  const text = typeof body === 'string' ? body : body.toString('utf8');
  if (text.length === 0) return done(new errorCodes.FST_ERR_CTP_EMPTY_JSON_BODY());
  let parsed: unknown;
  try {
    parsed = parseJsonText(text);
  } catch (err) {
    return done(err instanceof BodyTooDeep || err instanceof BodyTooDense ? err : new errorCodes.FST_ERR_CTP_INVALID_JSON_BODY());
  }
  done(null, parsed);
}
