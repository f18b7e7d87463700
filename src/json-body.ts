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
// Parsed once per text: a converged ControlPlane is resynced with the same bytes call after call
// (Metacontroller serialises the same parent and children the same way), so the parsed body of a
// text that comes again is remembered (memo.ts: a pure function of the text; the same request
// gets the same answer). A text seen for the first time leaves only its SHA-256 digest behind
// (44 characters, not the text: a body that never comes again, because it changed, holds no heap
// past its call). When it comes again, and the bodies seen in between would have fitted in the
// memo (so it would have been kept until now), its parsed body is kept, by its text, and read from
// there on; when they would not (more ControlPlanes resync in turn than the memo holds), keeping
// it would only push out others before they come again, so it is parsed as before.
// Remembered bodies are shared between calls, so they are frozen through: no hook changes its
// request (the hook runner answers from a private copy if one ever tried, hooks.ts). Bounded by
// the text kept; a text of more than BODY_MEMO.maxKey is parsed every time. A refused body is
// refused again (and costs its scan again).
import { hash } from 'node:crypto';
import { errorCodes, type FastifyRequest } from 'fastify';
import { MAX_JSON_DEPTH, scanJson, type ScannedParts } from './k8s/json-depth.js';
import { noteSources } from './k8s/request-source.js';
import { BoundedMemo, countLookup, deepFreeze, MEMO, memoOn, Sightings } from './memo.js';

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

/**
 * The body memo's bounds: parsed bodies of 1 Mi characters of text in all, a body of at most
 * 256 KiB (a larger one is parsed every time, and never pushes the others out); the digests of
 * the last 1,024 texts seen and not kept. A converged ControlPlane's resync body is about 37 KiB and
 * parses to about as much heap again, so the memo holds the bodies of about 28 ControlPlanes in
 * about 2 MiB; a body of the densest shape (tiny objects) parses to up to 25 times its text, so
 * the memo never holds more than about 25 MiB of the 128 MiB heap.
 */
export const BODY_MEMO = { entries: 256, maxKey: 256 * 1024, maxKeyBytes: 1024 * 1024, seen: 1024 } as const;
const bodies = new BoundedMemo<unknown>(BODY_MEMO.entries, { maxKey: BODY_MEMO.maxKey, maxKeyBytes: BODY_MEMO.maxKeyBytes, onEvict: (text) => unindex(text), shed: MEMO.body });
/**
 * The remembered texts by fingerprint. A new request's text is a new string, and a map lookup by
 * it would hash all its characters (V8 hashes a string of up to 16 Ki characters whole, about
 * 1.7 ns a character: 9 µs for a 5 KiB body, a third of parsing it). So a text is looked up by its
 * fingerprint, then compared (===, memcmp) with the remembered texts of that fingerprint, and the
 * one equal to it (whose hash V8 keeps) finds the body. A shared fingerprint costs a comparison,
 * never a wrong body.
 */
const byFingerprint = new Map<string, string[]>();

/** Length and a mix of at most about 256 characters spread over the text: cheap, not unique. */
function fingerprint(text: string): string {
  const step = Math.max(1, text.length >> 8);
  let a = 0x811c9dc5 | 0;
  let b = text.length | 0;
  for (let i = 0; i < text.length; i += step) {
    const c = text.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193);
    b = Math.imul(b + c, 0x5bd1e995) ^ (b >>> 15);
  }
  return `${text.length}:${a >>> 0}:${b >>> 0}`;
}

function unindex(text: string): void {
  const key = fingerprint(text);
  const texts = byFingerprint.get(key)?.filter((t) => t !== text) ?? [];
  if (texts.length > 0) byFingerprint.set(key, texts);
  else byFingerprint.delete(key);
}

/** What the memo holds: bodies, and texts in the fingerprint index (the same, unless a bug leaks). */
export function bodyMemoHolds(): { bodies: number; indexed: number } {
  let indexed = 0;
  for (const texts of byFingerprint.values()) indexed += texts.length;
  return { bodies: bodies.size, indexed };
}

/**
 * The digests of the last BODY_MEMO.seen texts parsed, by the characters of the bodies (of at most
 * maxKey) seen since: a text comes again soon enough to be kept when the bodies in between would
 * have fitted in the memo.
 */
const sightings = new Sightings(BODY_MEMO.seen, BODY_MEMO.maxKeyBytes);

/**
 * `text` parsed (parseJsonText): remembered when it comes again soon enough, frozen through then.
 * `digest`: its SHA-256 (base64), when the caller has it already (kept-answers.ts).
 */
export function parseRemembered(text: string, digest?: string): unknown {
  if (text.length > BODY_MEMO.maxKey || !memoOn(MEMO.body)) {
    countLookup(MEMO.body, false);
    return parseJsonText(text, true);
  }
  sightings.pass(text.length);
  const key = fingerprint(text);
  const known = byFingerprint.get(key)?.find((t) => t === text);
  const remembered = known === undefined ? undefined : bodies.peek(known);
  countLookup(MEMO.body, remembered !== undefined);
  if (remembered !== undefined) return remembered;
  const parsed = parseJsonText(text, true);
  if (!sightings.seen(digest ?? hash('sha256', text, 'base64'))) return parsed;
  // Indexed only when kept: a body not kept (memory pressure, memo.ts) is never evicted, so never unindexed.
  if (bodies.set(text, deepFreeze(parsed)) && known === undefined) byFingerprint.set(key, [...(byFingerprint.get(key) ?? []), text]);
  return parsed;
}

/**
 * `text` parsed, nesting and density bounded; throws BodyTooDeep, BodyTooDense or a SyntaxError.
 * Not remembered, not frozen. `sources`: where its observed objects are in the text is noted, so
 * a stage result can be kept by their digests (k8s/request-source.ts); the hook routes' bodies.
 */
export function parseJsonText(text: string, sources = false): unknown {
  const parts: ScannedParts | undefined = sources ? { tops: [], groups: [] } : undefined;
  const { deeperAt: at, containers } = scanJson(text, MAX_JSON_DEPTH, parts);
  if (at >= 0) throw new BodyTooDeep(`request nests deeper than ${MAX_JSON_DEPTH} levels (at character ${at}); no Kubernetes object nests that deep`);
  const affordable = Math.max(BODY_DENSITY.minContainers, Math.floor(text.length / BODY_DENSITY.charsPerContainer));
  if (containers > affordable) {
    throw new BodyTooDense(
      `request opens ${containers} objects and arrays in ${text.length} characters, more than the ${affordable} the service can afford to parse (one per ${BODY_DENSITY.charsPerContainer} characters); no Kubernetes object is that dense`,
    );
  }
  const parsed: unknown = JSON.parse(text);
  if (parts !== undefined) noteSources(parsed, text, parts);
  return parsed;
}

/** The content-type parser of application/json: `text` parsed, or remembered (parseRemembered). */
export function parseJsonBody(_request: FastifyRequest, body: string | Buffer, done: (err: Error | null, body?: unknown) => void): void {
  parseWith(parseRemembered, body, done);
}

/** The same, for a text whose SHA-256 (base64) the caller has already computed. */
export function parseDigestedJsonBody(text: string, digest: string, done: (err: Error | null, body?: unknown) => void): void {
  parseWith((t) => parseRemembered(t, digest), text, done);
}

/** The same parser without the memo: every body parsed afresh (the benchmark's floor). */
export function parseJsonBodyAfresh(_request: FastifyRequest, body: string | Buffer, done: (err: Error | null, body?: unknown) => void): void {
  parseWith(parseJsonText, body, done);
}

function parseWith(parse: (text: string) => unknown, body: string | Buffer, done: (err: Error | null, body?: unknown) => void): void {
  const text = typeof body === 'string' ? body : body.toString('utf8');
  if (text.length === 0) return done(new errorCodes.FST_ERR_CTP_EMPTY_JSON_BODY());
  let parsed: unknown;
  try {
    parsed = parse(text);
  } catch (err) {
    return done(err instanceof BodyTooDeep || err instanceof BodyTooDense ? err : new errorCodes.FST_ERR_CTP_INVALID_JSON_BODY());
  }
  done(null, parsed);
}
