// Secret values by value, not by field name: what a request's Secrets hold (decoded `data`,
// `stringData`), and inside a clouds.yaml document every auth value that is not a known identifier
// (a numeric password, an unlisted field such as `passcode`, every item of a list). Used by the
// capture sanitiser (every occurrence of such a value, raw or base64, in any string of a captured
// call is replaced) and by the ControlPlane hook (condition messages copied from children never
// carry one into the status).
import { readBoundedYaml } from '../bounded-yaml.js';

/** Values shorter than this are replaced only where they stand whole, never inside other text. */
export const MIN_SECRET_LENGTH = 6;

/**
 * Secret data keys whose values are identifiers (an account or database name, where a server is),
 * not secrets; `type`, `provider` and `scheme` are the service-binding keys the RabbitMQ cluster
 * operator writes beside the default user's credentials (`rabbitmq`, `rabbitmq-cluster-operator`,
 * `amqp`: rabbitmq/cluster-operator internal/resource/default_user_secret.go), words that stand in
 * other objects' names and kinds.
 */
export const IDENTIFIER_KEYS: ReadonlySet<string> = new Set(['username', 'user', 'database', 'host', 'hostname', 'port', 'type', 'provider', 'scheme']);

/** clouds.yaml auth fields that identify (where, who, which project); every other one is secret. */
export const CLOUD_IDENTIFIER_FIELDS: ReadonlySet<string> = new Set([
  'auth_url', 'username', 'user_id', 'user_domain_name', 'user_domain_id', 'project_name', 'project_id',
  'project_domain_name', 'project_domain_id', 'domain_name', 'domain_id', 'tenant_name', 'tenant_id',
  'application_credential_id', 'application_credential_name', 'system_scope', 'default_domain_id', 'default_domain_name',
]);

type Json = unknown;
type JsonObject = Record<string, Json>;
const isObject = (v: Json): v is JsonObject => typeof v === 'object' && v !== null && !Array.isArray(v);
const b64 = (text: string) => Buffer.from(text, 'utf8').toString('base64');

export function isSecretObject(o: JsonObject): boolean {
  return o.kind === 'Secret' && o.apiVersion === 'v1';
}

/**
 * A clouds.yaml document: its parsed form when it has a `clouds` map. A text beyond the bounds of
 * bounded-yaml.ts is not read (it stands for itself only: its auth values are not looked for).
 */
export function cloudsDocument(text: string): JsonObject | undefined {
  if (!text.includes('clouds')) return undefined;
  const read = readBoundedYaml(text);
  return read.ok && isObject(read.value) && isObject(read.value.clouds) ? read.value : undefined;
}

/**
 * Every secret scalar of every cloud's `auth` in `doc`, with a setter that replaces it in place
 * (numbers and booleans included, as their text; list items and nested maps walked).
 */
export function cloudAuthSecrets(doc: JsonObject): { value: string; replace: (text: string) => void }[] {
  const out: { value: string; replace: (text: string) => void }[] = [];
  const walk = (holder: JsonObject | Json[], key: string | number, depth: number): void => {
    const v = (holder as Record<string | number, Json>)[key];
    if (v === null || v === undefined) return;
    if (typeof v === 'object') {
      if (depth > 16) return;
      if (Array.isArray(v)) v.forEach((_, i) => walk(v, i, depth + 1));
      else for (const k of Object.keys(v)) walk(v as JsonObject, k, depth + 1);
      return;
    }
    out.push({ value: String(v), replace: (text) => void Object.defineProperty(holder, key, { value: text, enumerable: true, writable: true, configurable: true }) });
  };
  for (const cloud of Object.values(doc.clouds as JsonObject)) {
    const auth = isObject(cloud) ? cloud.auth : undefined;
    if (!isObject(auth)) continue;
    for (const field of Object.keys(auth)) if (!CLOUD_IDENTIFIER_FIELDS.has(field)) walk(auth, field, 0);
  }
  return out;
}

/** The secret values one Secret value stands for: itself, and a clouds.yaml's auth secrets. */
export function valuesOfSecretText(text: string): readonly string[] {
  if (!text.includes('clouds')) return [text];
  const doc = cloudsDocument(text);
  return doc ? [text, ...cloudAuthSecrets(doc).map((s) => s.value)] : [text];
}

/**
 * What secretValuesOf reads of `objects`: each string the Secrets among them hold under a key that
 * is not an identifier, as sent (`decode`: base64, from `data`; else from `stringData`).
 */
function* secretDataEntries(objects: Iterable<Json>): Generator<{ raw: string; decode: boolean }> {
  for (const o of objects) {
    if (!isObject(o) || !isSecretObject(o)) continue;
    for (const [field, decode] of [['data', true], ['stringData', false]] as const) {
      const map = o[field];
      if (!isObject(map)) continue;
      for (const [key, raw] of Object.entries(map)) if (typeof raw === 'string' && !IDENTIFIER_KEYS.has(key)) yield { raw, decode };
    }
  }
}

/** Secret values held by the Secrets among `objects` (top level only; identifiers left out). */
export function secretValuesOf(objects: Iterable<Json>): Set<string> {
  const out = new Set<string>();
  for (const { raw, decode } of secretDataEntries(objects)) {
    const text = decode ? Buffer.from(raw, 'base64').toString('utf8') : raw;
    if (text.length > 0) for (const v of valuesOfSecretText(text)) out.add(v);
  }
  return out;
}

/**
 * The base64 characters that depend on `value`'s bytes only, when `value` stands at byte offset
 * 0, 1 or 2 (mod 3) of a longer text that is base64-encoded (a Secret holding `user:password`, a
 * docker config's `auth`): character i of an encoding covers bits 6i…6i+5, so with `shift` bytes
 * before the value, the characters whose six bits all fall inside it.
 */
export function base64Cores(value: string): string[] {
  const bytes = Buffer.from(value, 'utf8');
  const cores: string[] = [];
  for (let shift = 0; shift < 3; shift++) {
    const encoded = Buffer.concat([Buffer.alloc(shift), bytes]).toString('base64');
    const first = Math.ceil((8 * shift) / 6);
    const end = Math.floor((8 * (shift + bytes.length)) / 6); // exclusive
    if (end > first) cores.push(encoded.slice(first, end));
  }
  return cores;
}

/** A base64 core shorter than this is not searched for (it would hit unrelated base64). */
const MIN_CORE_LENGTH = 8;

/**
 * Replaces every occurrence of each value (and of its base64, also where it stands at any offset
 * inside a longer base64 text: base64Cores) inside strings. Literal matching: the needles are
 * searched for with indexOf, longest first, no pattern is built from them (a RegExp of all the
 * values outgrew V8's limit for a 20 KB CA bundle, and its error quoted them). The work is the
 * needles (five per value) times the text, bounded by the request. Values shorter than
 * MIN_SECRET_LENGTH are replaced only where a whole text equals one: inside text they would hit
 * unrelated words.
 */
export class ValueReplacer {
  /** Needle → replacement, longest needle first. */
  private readonly needles: [string, string][] = [];
  /** Values under MIN_SECRET_LENGTH: replaced only where a whole text equals one. */
  private readonly whole = new Map<string, string>();

  /** `encodeReplacement`: a whole base64 occurrence becomes the base64 of the replacement (else the replacement). */
  constructor(replacements: Iterable<[string, string]>, encodeReplacement = true) {
    const map = new Map<string, string>();
    for (const [value, replacement] of replacements) {
      if (value === replacement || value.length === 0) continue;
      if (value.length < MIN_SECRET_LENGTH) {
        if (!this.whole.has(value)) this.whole.set(value, replacement);
        continue;
      }
      if (!map.has(value)) map.set(value, replacement);
      const encoded = b64(value);
      if (!map.has(encoded)) map.set(encoded, encodeReplacement ? b64(replacement) : replacement);
      for (const core of base64Cores(value)) if (core.length >= MIN_CORE_LENGTH && !map.has(core)) map.set(core, replacement);
    }
    this.needles = [...map].sort((a, b) => b[0].length - a[0].length);
  }

  /** Whether a needle occurs inside `text` (values under MIN_SECRET_LENGTH are not looked for). */
  occursIn(text: string): boolean {
    for (const [needle] of this.needles) if (needle.length <= text.length && text.includes(needle)) return true;
    return false;
  }

  apply(text: string): string {
    const whole = this.whole.get(text);
    if (whole !== undefined) return whole;
    let out = text;
    for (const [needle, replacement] of this.needles) {
      if (needle.length > out.length) continue;
      let at = out.indexOf(needle);
      if (at < 0) continue;
      let result = '';
      let from = 0;
      while (at >= 0) {
        result += out.slice(from, at) + replacement;
        from = at + needle.length;
        at = out.indexOf(needle, from);
      }
      out = result + out.slice(from);
    }
    return out;
  }
}
