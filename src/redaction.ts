// One redaction for everything the service writes (docs/architecture.md §1.4): the status of every
// hook's answer, its children other than Secrets (a Secret of ours must carry its values), and the
// events written to the log. A child's words reach all of these (a K-ORC message is copied into a
// condition, then into status.rollout.failure and status.lastUpdate; a finalize message into the
// KORCReady condition), and a child may quote a secret there. So no value held by a Secret of the
// request gets out: its needles are every such value (decoded `data`, `stringData`, the secret
// fields of a clouds.yaml), raw, base64 and base64 at every offset (ValueReplacer).
//
// A value is looked for in every form it takes on its way (secretForms): as stored, base64,
// percent-encoded as a URL's userinfo (the bus URL the hooks build), either hex case, decoded, and
// the userinfo and password of a URL a Secret holds (a user's `transport_url`).
//
// Without revealing where a secret is. A value that is also a word anyone can read (it occurs in
// the request outside the Secrets' payloads and the objects' status: a name, a kind, a spec value;
// or it is a single word of letters, as the words of the service's own messages are) would be
// pointed at by an in-place `[redacted]` ("… [redacted] openstack-memcached Ready" for the admin
// password `Memcached`). Such a value is never replaced in place. A free-text field (a `message`)
// that copied a child's words around it (a child quoting the secret) is replaced whole by
// WITHHELD_MESSAGE; what the hooks composed from names and reasons is left as it is, so the status
// does not change with what a Secret holds (issue 55). A structural field (a reason, a name, a
// time, an id: the service's vocabulary and the objects' names) is left as it is, since the word is
// there anyway and changing it would change what the field means. Any other value is replaced in
// place by `[redacted]`: where a value no one can read stands says nothing about it.
//
// Cost: the needles are searched once over all the strings of the answer joined (indexOf, never a
// pattern built from secrets); only when one is found are the strings walked and the public words
// read from the request.
import { isSecretObject, secretValuesOf, ValueReplacer, MIN_SECRET_LENGTH } from './capture/secret-values.js';

export const REDACTED_VALUE = '[redacted]';
/** What a message that quoted a public word held by a Secret becomes, whole. */
export const WITHHELD_MESSAGE = '[redacted: this message quoted a value held by a Secret]';

type Json = unknown;
type JsonObject = Record<string, Json>;
const isObject = (v: Json): v is JsonObject => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Fields whose text is free (a child's words may be in it): every other string is structural. */
const FREE_TEXT_KEYS: ReadonlySet<string> = new Set(['message']);

/** The objects of a hook request: parent (or object), children, related, attachments. */
function* requestObjects(request: Json): Generator<JsonObject> {
  if (!isObject(request)) return;
  for (const single of [request.parent, request.object]) if (isObject(single)) yield single;
  for (const map of [request.children, request.related, request.attachments]) {
    if (!isObject(map)) continue;
    for (const group of Object.values(map)) {
      if (!isObject(group)) continue;
      for (const o of Object.values(group)) if (isObject(o)) yield o;
    }
  }
}

/** Every string of `value` (keys too), depth-bounded (a request's depth is bounded already). */
function collectStrings(value: Json, out: string[], depth = 0): void {
  if (typeof value === 'string') out.push(value);
  else if (depth > 64) return;
  else if (Array.isArray(value)) for (const v of value) collectStrings(v, out, depth + 1);
  else if (isObject(value)) {
    for (const [k, v] of Object.entries(value)) {
      out.push(k);
      collectStrings(v, out, depth + 1);
    }
  }
}

/**
 * The request's text anyone reading objects can read: every string outside the objects' status;
 * of a Secret only its identity and its keys (its values, and the last-applied annotation that
 * repeats them, are what is protected).
 */
function publicText(request: Json): string {
  const out: string[] = [];
  for (const o of requestObjects(request)) {
    if (isSecretObject(o)) {
      const meta = isObject(o.metadata) ? o.metadata : {};
      collectStrings([o.apiVersion, o.kind, meta.name, meta.namespace, meta.labels], out);
      for (const field of ['data', 'stringData']) if (isObject(o[field])) out.push(...Object.keys(o[field] as JsonObject));
      continue;
    }
    for (const [k, v] of Object.entries(o)) if (k !== 'status') collectStrings(v, out);
  }
  return out.join('\u0000');
}

const SINGLE_WORD = /^\p{L}+$/u;

/** Characters either side of a secret word that tell a copy of a child's words (copiesChildWords). */
const CONTEXT = 12;

/** The strings of the status of every object of the request but its parent (whose status is our own words). */
function childStatusStrings(request: Json): string[] {
  const out: string[] = [];
  const parents = isObject(request) ? [request.parent, request.object] : [];
  for (const o of requestObjects(request)) if (!parents.includes(o)) collectStrings(o.status, out);
  return out;
}

/**
 * What finding a set of secret values takes: every needle of every value (ValueReplacer) and the
 * values too short to look for inside text. Nothing is replaced with these: replacing needs the
 * request's public words (Redaction), read only when a value is found.
 */
interface Needles {
  readonly all: ValueReplacer;
  readonly short: ReadonlySet<string>;
}

function needlesFor(values: ReadonlySet<string>): Needles {
  return {
    all: new ValueReplacer([...values].map((v): [string, string] => [v, REDACTED_VALUE]), false),
    short: new Set([...values].filter((v) => v.length > 0 && v.length < MIN_SECRET_LENGTH)),
  };
}

export class Redaction {
  private readonly needles: Needles;
  private replacers: { hidden: ValueReplacer; pointing: ValueReplacer | undefined } | undefined;

  constructor(
    private readonly values: ReadonlySet<string>,
    private readonly request: Json,
  ) {
    this.needles = needlesFor(values);
  }

  /**
   * The replacements, built when a value is found: a value that is a public word of the request
   * (publicText) or a single word withholds its message whole (WITHHELD_MESSAGE), any other is
   * replaced in place.
   */
  private get replace(): { hidden: ValueReplacer; pointing: ValueReplacer | undefined } {
    if (this.replacers === undefined) {
      const common: string[] = [];
      const other: string[] = [];
      for (const v of this.values) {
        if (v.length < MIN_SECRET_LENGTH) continue;
        (SINGLE_WORD.test(v) || this.publicWords().includes(v) ? common : other).push(v);
      }
      this.replacers = {
        hidden: new ValueReplacer(other.map((v): [string, string] => [v, REDACTED_VALUE]), false),
        pointing: common.length > 0 ? new ValueReplacer(common.map((v): [string, string] => [v, WITHHELD_MESSAGE]), false) : undefined,
      };
    }
    return this.replacers;
  }

  /**
   * A free-text string (a message, an event): whole when it copied a child's words holding a
   * public word that is a secret value, else in place. A public word in what the hooks composed
   * from names and reasons stays: the message is the one any other value gets (issue 55).
   */
  text(s: string): string {
    if (this.needles.short.has(s)) return REDACTED_VALUE;
    if (!this.needles.all.occursIn(s)) return s;
    const { hidden, pointing } = this.replace;
    if (pointing?.occursIn(s) && this.copiesChildWords(s)) return WITHHELD_MESSAGE;
    return hidden.apply(s);
  }

  private childWords: string[] | undefined;
  private publicTextOf: string | undefined;

  /** The request's public text (publicText), read once and only when a value is found. */
  private publicWords(): string {
    this.publicTextOf ??= publicText(this.request);
    return this.publicTextOf;
  }

  /**
   * Whether `s` holds a public secret word with the words around it in a child's status (what a
   * child says is the only text we copy): the word and up to CONTEXT characters either side, more
   * than the word alone (a status field that is just the word is one the hooks could write too)
   * and not public text itself (a child naming `controlplane-keystone-…` quotes a name, not the word).
   */
  private copiesChildWords(s: string): boolean {
    this.childWords ??= childStatusStrings(this.request);
    for (const v of this.values) {
      if (v.length < MIN_SECRET_LENGTH || !s.includes(v)) continue;
      for (const c of this.childWords) {
        for (let i = c.indexOf(v); i >= 0; i = c.indexOf(v, i + 1)) {
          const context = c.slice(Math.max(0, i - CONTEXT), Math.min(c.length, i + v.length + CONTEXT));
          if (context.length > v.length && s.includes(context) && !this.publicWords().includes(context)) return true;
        }
      }
    }
    return false;
  }

  /** A structural string: in place, public words left (they are there anyway). */
  private field(s: string): string {
    return this.needles.all.occursIn(s) ? this.replace.hidden.apply(s) : s;
  }

  private walk(value: Json, key: string | undefined, depth: number): Json {
    if (typeof value === 'string') return key !== undefined && FREE_TEXT_KEYS.has(key) ? this.text(value) : this.field(value);
    if (depth > 64 || value === null || typeof value !== 'object') return value;
    if (Array.isArray(value)) return value.map((v) => this.walk(v, key, depth + 1));
    const out: JsonObject = {};
    for (const [k, v] of Object.entries(value)) Object.defineProperty(out, k, { value: this.walk(v, k, depth + 1), enumerable: true, writable: true, configurable: true });
    return out;
  }

  /** `value` redacted: a new value when something was found, else `value` itself (never changed). */
  redact<T>(value: T): T {
    const { all, short } = this.needles;
    const strings: string[] = [];
    collectStrings(value, strings);
    if (!all.occursIn(strings.join('\u0000')) && !strings.some((s) => short.has(s))) return value;
    return this.walk(value, undefined, 0) as T;
  }

  /**
   * A hook's answer: its status whole, its children but Secrets (theirs are the values they must
   * carry; their metadata is rebuilt from names), everything else as it is.
   */
  answer<R>(response: R): R {
    if (!isObject(response)) return response;
    let out: JsonObject = response;
    if (response.status !== undefined) {
      const status = this.redact(response.status);
      if (status !== response.status) out = { ...out, status };
    }
    if (Array.isArray(response.children)) {
      let changed = false;
      const children = response.children.map((c: Json) => {
        if (!isObject(c) || isSecretObject(c)) return c;
        const r = this.redact(c);
        changed ||= r !== c;
        return r;
      });
      if (changed) out = { ...out, children };
    }
    return out as R;
  }
}

const PERCENT = /%[0-9A-Fa-f]{2}/;
const upperHex = (s: string) => s.replace(/%[0-9A-Fa-f]{2}/g, (x) => x.toUpperCase());
const lowerHex = (s: string) => s.replace(/%[0-9A-Fa-f]{2}/g, (x) => x.toLowerCase());
function decoded(s: string): string | undefined {
  try {
    return decodeURIComponent(s);
  } catch {
    return undefined;
  }
}
/** The userinfo of a URL (`scheme://userinfo@host…`), as written. */
const USERINFO = /^[A-Za-z][A-Za-z0-9+.-]*:\/\/([^@/?#\s]+)@/;

/**
 * A value in every form it takes in what we emit or a child may quote: as stored; percent-encoded
 * as a URL's userinfo carries it (the managed bus URL is `rabbit://user:encodeURIComponent(password)@…`,
 * services/messaging.ts), with either hex case; the decoded view of a value written encoded; and
 * for a value that is a URL (a user's brownfield `transport_url`) its userinfo and the password in
 * it, each in those forms. (Base64 of each is the needles' own: ValueReplacer.)
 */
function formsOf(value: string, out: Set<string>, url = true): void {
  const add = (v: string | undefined) => {
    if (v !== undefined && v.length > 0) out.add(v);
  };
  add(value);
  const encoded = encodeURIComponent(value);
  add(encoded);
  add(lowerHex(encoded));
  if (PERCENT.test(value)) {
    add(upperHex(value));
    add(lowerHex(value));
    const plain = decoded(value);
    if (plain !== undefined && plain !== value) formsOf(plain, out, false);
  }
  const userinfo = url ? USERINFO.exec(value)?.[1] : undefined;
  if (userinfo !== undefined) {
    formsOf(userinfo, out, false);
    const colon = userinfo.indexOf(':');
    if (colon >= 0) formsOf(userinfo.slice(colon + 1), out, false);
  }
}

/** Every form of every value (formsOf): the needles of what flows from the Secrets into what we emit. */
export function secretForms(values: ReadonlySet<string>): Set<string> {
  const out = new Set<string>();
  for (const v of values) formsOf(v, out);
  return out;
}

/** The redaction of a hook request's Secrets, or undefined when they hold no value. */
export function redactionFor(request: Json): Redaction | undefined {
  const values = secretForms(secretValuesOf(requestObjects(request)));
  return values.size === 0 ? undefined : new Redaction(values, request);
}
