// Secret values out of captured hook payloads (issue 7). Every Secret value becomes a stable
// placeholder `redacted-<16 hex of HMAC(key, value)>`, and everything the hooks derive from a
// secret is rewritten to what they would derive from the placeholder: its base64, its SHA-256
// (annotations), the 8-hex suffix of a mint name, and clouds.yaml documents (re-rendered with
// placeholders inside). So a sanitised request replayed gives the sanitised response. A 64-hex
// string of unknown origin (a hash of a secret this payload does not hold, such as the password
// hash on an AC a CredentialRotation relates) becomes `redacted-sha256-<16 hex of its HMAC>`;
// strings that already start with `redacted-` are left alone, so sanitising is idempotent. JSON
// held in strings (last-applied annotations) is sanitised inside.
import { createHmac } from 'node:crypto';
import { parse, stringify } from 'yaml';
import { sha256Hex as sha256 } from '../k8s/secret.js';
import { parseBounded } from '../k8s/json-depth.js';

type Json = unknown;
type JsonObject = Record<string, Json>;

/** clouds.yaml auth fields that are secret. */
export const CLOUD_SECRET_FIELDS = ['password', 'application_credential_secret', 'token'] as const;

const isObject = (v: Json): v is JsonObject => typeof v === 'object' && v !== null && !Array.isArray(v);
const b64 = (text: string) => Buffer.from(text, 'utf8').toString('base64');
const unb64 = (text: string) => Buffer.from(text, 'base64').toString('utf8');
export const REDACTED = 'redacted-';
const HEX64 = /^[0-9a-f]{64}$/;
const SUFFIX8 = /-([0-9a-f]{8})$/;

function isSecret(o: JsonObject): boolean {
  return o.kind === 'Secret' && o.apiVersion === 'v1';
}

/** A clouds.yaml document: its parsed form when it has a `clouds` map. */
function cloudsDocument(text: string): JsonObject | undefined {
  if (!text.includes('clouds')) return undefined;
  try {
    const doc = parse(text);
    return isObject(doc) && isObject(doc.clouds) ? doc : undefined;
  } catch {
    return undefined;
  }
}

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
    for (const v of values) this.learn(v, table);
    return values.map((v) => this.rewrite(v, table) as T);
  }

  private learnSecretValue(text: string, table: Table): void {
    const doc = cloudsDocument(text);
    if (!doc) {
      table.secret(text, this.placeholder(text));
      return;
    }
    const replaced = structuredClone(doc);
    for (const cloud of Object.values(replaced.clouds as JsonObject)) {
      const auth = isObject(cloud) ? cloud.auth : undefined;
      if (!isObject(auth)) continue;
      for (const field of CLOUD_SECRET_FIELDS) {
        if (typeof auth[field] === 'string') {
          table.secret(auth[field], this.placeholder(auth[field]));
          auth[field] = this.placeholder(auth[field]);
        }
      }
    }
    table.secret(text, stringify(replaced));
  }

  private learn(value: Json, table: Table): void {
    if (typeof value === 'string') {
      const inner = parseJson(value);
      if (inner !== undefined) this.learn(inner, table);
      return;
    }
    if (Array.isArray(value)) {
      for (const v of value) this.learn(v, table);
      return;
    }
    if (!isObject(value)) return;
    if (isSecret(value)) {
      for (const v of Object.values(isObject(value.data) ? value.data : {})) if (typeof v === 'string') this.learnSecretValue(unb64(v), table);
      for (const v of Object.values(isObject(value.stringData) ? value.stringData : {})) if (typeof v === 'string') this.learnSecretValue(v, table);
    }
    for (const v of Object.values(value)) this.learn(v, table);
  }

  private rewrite(value: Json, table: Table): Json {
    if (typeof value === 'string') return this.rewriteString(value, table);
    if (Array.isArray(value)) return value.map((v) => this.rewrite(v, table));
    if (!isObject(value)) return value;
    const secret = isSecret(value);
    // fromEntries defines own properties: a key named __proto__ stays a key (never a prototype).
    return Object.fromEntries(
      Object.entries(value).map(([k, v]) => {
        if (secret && (k === 'data' || k === 'stringData') && isObject(v)) {
          const encoded = k === 'data';
          return [k, Object.fromEntries(Object.entries(v).map(([dk, dv]) => [dk, typeof dv === 'string' ? this.secretValue(dv, encoded, table) : dv]))];
        }
        return [k, this.rewrite(v, table)];
      }),
    );
  }

  /** A Secret data value: its mapped form, or (never learnt) a placeholder all the same. */
  private secretValue(raw: string, encoded: boolean, table: Table): string {
    const text = encoded ? unb64(raw) : raw;
    const mapped = table.exact.get(text) ?? this.placeholder(text);
    return encoded ? b64(mapped) : mapped;
  }

  private rewriteString(text: string, table: Table): string {
    if (text.startsWith(REDACTED)) return text;
    const exact = table.derived.get(text);
    if (exact !== undefined) return exact;
    const inner = parseJson(text);
    if (inner !== undefined) return JSON.stringify(this.rewrite(inner, table));
    if (HEX64.test(text)) return `${REDACTED}sha256-${this.hmac(text).slice(0, 16)}`;
    const suffix = SUFFIX8.exec(text)?.[1];
    const mapped = suffix ? table.suffixes.get(suffix) : undefined;
    return mapped ? `${text.slice(0, -8)}${mapped}` : text;
  }
}

/** What one payload's secrets map to. */
class Table {
  /** Secret value → replacement (inside Secret data only). */
  readonly exact = new Map<string, string>();
  /** Strings derived from a secret (base64, SHA-256) → the same derivation of the replacement. */
  readonly derived = new Map<string, string>();
  /** 8-hex SHA-256 prefixes → the replacement's. */
  readonly suffixes = new Map<string, string>();

  secret(value: string, replacement: string): void {
    if (this.exact.has(value)) return;
    this.exact.set(value, replacement);
    this.derived.set(b64(value), b64(replacement));
    this.derived.set(sha256(value), sha256(replacement));
    this.suffixes.set(sha256(value).slice(0, 8), sha256(replacement).slice(0, 8));
  }
}
