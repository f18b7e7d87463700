// Secret values out of captured hook payloads (issue 7), by value (issue 22). Every secret value
// the request or response holds becomes a stable placeholder `redacted-<16 hex of HMAC(key,
// value)>`: Secret `data`/`stringData` values, and inside clouds.yaml documents every auth value
// that is not an identifier (secret-values.ts: numbers, lists, unlisted fields included). Every
// occurrence of such a value, raw or base64, in any other string (a child's condition message, a
// log-like annotation) is replaced the same way. Everything the hooks derive from a secret is
// rewritten to what they would derive from the placeholder: its base64, its SHA-256
// (annotations), the 8-hex suffix of a mint name, and clouds.yaml documents (re-rendered with
// placeholders inside), the digest a PushSecret carries of its source Secret's data, and ESO's
// `status.syncedResourceVersion` of a PushSecret or ExternalSecret that matched its metadata
// (recomputed over the sanitised metadata). So a sanitised request replayed gives the sanitised
// response. A 64-hex
// string of unknown origin (a hash of a secret this payload does not hold, such as the password
// hash on an AC a CredentialRotation relates) becomes `redacted-sha256-<16 hex of its HMAC>`;
// strings that already start with `redacted-` are left alone, so sanitising is idempotent. JSON
// held in strings (last-applied annotations) is sanitised inside.
import { createHmac } from 'node:crypto';
import { stringify } from 'yaml';
import { sha256Hex as sha256 } from '../k8s/secret.js';
import { parseBounded } from '../k8s/json-depth.js';
import { cloudAuthSecrets, cloudsDocument, IDENTIFIER_KEYS, isSecretObject, ValueReplacer } from './secret-values.js';
import { sourceDigest } from '../k8s/eso.js';
import { esoResourceVersion } from '../k8s/eso.js';

type Json = unknown;
type JsonObject = Record<string, Json>;

const isObject = (v: Json): v is JsonObject => typeof v === 'object' && v !== null && !Array.isArray(v);
const b64 = (text: string) => Buffer.from(text, 'utf8').toString('base64');
const unb64 = (text: string) => Buffer.from(text, 'base64').toString('utf8');
export const REDACTED = 'redacted-';
const HEX64 = /^[0-9a-f]{64}$/;
const SUFFIX8 = /-([0-9a-f]{8})$/;
/** JSON inside a string inside a string …: read this many levels down, no further. */
const MAX_EMBEDDED = 3;

function parseJson(text: string): Json | undefined {
  // Bounded like a request body (k8s/json-depth.ts): deeper is left a string, never a stack overflow.
  if (!text.startsWith('{') && !text.startsWith('[')) return undefined;
  return parseBounded(text);
}

export class Sanitizer {
  constructor(private readonly key: string | Buffer) {}

  /** The stand-in for a secret value (a placeholder stands for itself). */
  placeholder(secret: string): string {
    if (secret.startsWith(REDACTED)) return secret;
    return `${REDACTED}${this.hmac(secret).slice(0, 16)}`;
  }

  private hmac(text: string): string {
    return createHmac('sha256', this.key).update(text, 'utf8').digest('hex');
  }

  /** Sanitise values that belong together (a request and its response) with one table. */
  sanitize<T>(...values: T[]): T[] {
    const table = new Table();
    for (const v of values) this.learn(v, table, 0);
    // A Secret's whole-data digest (a PushSecret's trigger): what it is of the sanitised data.
    for (const secret of table.secretObjects) {
      const data = secret.data as JsonObject;
      const mapped = Object.fromEntries(Object.entries(data).map(([k, v]) => [k, typeof v === 'string' ? this.secretValue(k, v, true, table) : v]));
      table.derived.set(sourceDigest(secret), sourceDigest({ data: mapped }));
    }
    table.seal();
    return values.map((v) => this.rewrite(v, table, 0) as T);
  }

  /** A Secret value: itself, and for a clouds.yaml document every auth secret inside it. */
  private learnSecretValue(text: string, sensitive: boolean, table: Table): void {
    const doc = cloudsDocument(text);
    if (!doc) {
      table.secret(text, this.placeholder(text), sensitive);
      return;
    }
    const replaced = structuredClone(doc);
    for (const found of cloudAuthSecrets(replaced)) {
      const placeholder = this.placeholder(found.value);
      table.secret(found.value, placeholder, true);
      found.replace(placeholder);
    }
    table.secret(text, stringify(replaced), true);
  }

  private learn(value: Json, table: Table, embedded: number): void {
    if (typeof value === 'string') {
      const inner = embedded < MAX_EMBEDDED ? parseJson(value) : undefined;
      if (inner !== undefined) this.learn(inner, table, embedded + 1);
      return;
    }
    if (Array.isArray(value)) {
      for (const v of value) this.learn(v, table, embedded);
      return;
    }
    if (!isObject(value)) return;
    if (isSecretObject(value)) {
      if (isObject(value.data)) table.secretObjects.push(value);
      for (const [field, decode] of [['data', true], ['stringData', false]] as const) {
        const map = value[field];
        if (!isObject(map)) continue;
        // An identifier (a user or host name, a port) is no secret: it stays as it is.
        for (const [k, v] of Object.entries(map)) if (typeof v === 'string' && !IDENTIFIER_KEYS.has(k)) this.learnSecretValue(decode ? unb64(v) : v, true, table);
      }
    }
    for (const v of Object.values(value)) this.learn(v, table, embedded);
  }

  private rewrite(value: Json, table: Table, embedded: number): Json {
    if (typeof value === 'string') return this.rewriteString(value, table, embedded);
    if (Array.isArray(value)) return value.map((v) => this.rewrite(v, table, embedded));
    if (!isObject(value)) return value;
    const secret = isSecretObject(value);
    // fromEntries defines own properties: a key named __proto__ stays a key (never a prototype).
    const out = Object.fromEntries(
      Object.entries(value).map(([k, v]) => {
        if (secret && (k === 'data' || k === 'stringData') && isObject(v)) {
          const encoded = k === 'data';
          return [k, Object.fromEntries(Object.entries(v).map(([dk, dv]) => [dk, typeof dv === 'string' ? this.secretValue(dk, dv, encoded, table) : dv]))];
        }
        return [k, this.rewrite(v, table, embedded)];
      }),
    );
    return syncedAsRewritten(value, out);
  }

  /** A Secret data value under `key`: an identifier as it is, else its mapped form, or (never learnt) a placeholder all the same. */
  private secretValue(key: string, raw: string, encoded: boolean, table: Table): string {
    if (IDENTIFIER_KEYS.has(key)) return raw;
    const text = encoded ? unb64(raw) : raw;
    const mapped = table.exact.get(text) ?? this.placeholder(text);
    return encoded ? b64(mapped) : mapped;
  }

  private rewriteString(text: string, table: Table, embedded: number): string {
    if (text.startsWith(REDACTED)) return text;
    const exact = table.derived.get(text) ?? table.sensitiveExact.get(text);
    if (exact !== undefined) return exact;
    const inner = embedded < MAX_EMBEDDED ? parseJson(text) : undefined;
    if (inner !== undefined) return JSON.stringify(this.rewrite(inner, table, embedded + 1));
    if (HEX64.test(text)) return `${REDACTED}sha256-${this.hmac(text).slice(0, 16)}`;
    const suffix = SUFFIX8.exec(text)?.[1];
    const mapped = suffix ? table.suffixes.get(suffix) : undefined;
    // Any secret value (raw or base64) anywhere inside: a condition message quoting one.
    return table.inside(mapped ? `${text.slice(0, -8)}${mapped}` : text);
  }
}

/**
 * ESO's `status.syncedResourceVersion` hashes the object's annotations, which sanitising rewrites: one
 * that matched the metadata is recomputed over the sanitised metadata, so it still matches (and a
 * stale one, left as it is, still does not).
 */
function syncedAsRewritten(original: JsonObject, rewritten: JsonObject): JsonObject {
  const status = rewritten.status;
  if (typeof original.apiVersion !== 'string' || !original.apiVersion.startsWith('external-secrets.io/') || !isObject(status)) return rewritten;
  if (!isObject(original.status) || original.status.syncedResourceVersion !== esoResourceVersion(original)) return rewritten;
  return { ...rewritten, status: { ...status, syncedResourceVersion: esoResourceVersion(rewritten) } };
}

/** What one payload's secrets map to. */
class Table {
  /** Every Secret object with `data` the payload holds. */
  readonly secretObjects: JsonObject[] = [];
  /** Secret value → replacement (inside Secret data only). */
  readonly exact = new Map<string, string>();
  /** Strings derived from a secret (base64, SHA-256) → the same derivation of the replacement. */
  readonly derived = new Map<string, string>();
  /** 8-hex SHA-256 prefixes → the replacement's. */
  readonly suffixes = new Map<string, string>();
  /** Secret values (not identifiers) → replacement, wherever they stand whole. */
  readonly sensitiveExact = new Map<string, string>();
  private replacer?: ValueReplacer;

  secret(value: string, replacement: string, sensitive: boolean): void {
    if (sensitive && !this.sensitiveExact.has(value) && value !== replacement) this.sensitiveExact.set(value, replacement);
    if (this.exact.has(value)) return;
    this.exact.set(value, replacement);
    this.derived.set(b64(value), b64(replacement));
    this.derived.set(sha256(value), sha256(replacement));
    this.suffixes.set(sha256(value).slice(0, 8), sha256(replacement).slice(0, 8));
  }

  /** Every value is learnt: build the replacer of values inside text. */
  seal(): void {
    this.replacer = new ValueReplacer(this.sensitiveExact);
  }

  inside(text: string): string {
    return this.replacer ? this.replacer.apply(text) : text;
  }
}
