// What the CRDs admit, applied in one place to every status a hook writes (docs/architecture.md
// §1.4). Messages repeat what children say, and a child's condition message may be as long as its
// own CRD allows (32,768 characters for a metav1.Condition): with the service's words around it,
// InfrastructureReady's message would be 32,816 characters, which the API server refuses, and
// with it the whole status update (the status is replaced whole, §1.3). So every string of a
// status is cut to the maxLength its schema (the one TypeBox schema the CRD is generated from,
// src/api/) gives it, counted in code points as the API server counts (utf8.RuneCountInString), the
// last one kept for an ellipsis.
import type { TSchema } from '@sinclair/typebox';

type Json = unknown;
type JsonObject = Record<string, Json>;
const isObject = (v: Json): v is JsonObject => typeof v === 'object' && v !== null && !Array.isArray(v);

export const ELLIPSIS = '…';

/** `text` cut to at most `max` code points (the last one an ellipsis), never inside a surrogate pair. */
export function cutToLength(text: string, max: number): string {
  // A string of at most `max` UTF-16 units has at most `max` code points.
  if (text.length <= max) return text;
  let points = 0;
  let keep = 0;
  for (let i = 0; i < text.length; ) {
    if (points === max - 1) keep = i;
    const c = text.charCodeAt(i);
    i += c >= 0xd800 && c <= 0xdbff && i + 1 < text.length ? 2 : 1;
    if (++points > max) return text.slice(0, keep) + ELLIPSIS;
  }
  return text;
}

function branchFor(value: Json, schema: JsonObject): JsonObject | undefined {
  const branches = (schema.anyOf ?? schema.oneOf) as JsonObject[] | undefined;
  if (!Array.isArray(branches)) return schema;
  const type = typeof value === 'string' ? 'string' : Array.isArray(value) ? 'array' : isObject(value) ? 'object' : undefined;
  return branches.find((b) => isObject(b) && b.type === type);
}

function fit(value: Json, schema: Json, depth: number): Json {
  if (!isObject(schema) || depth > 64) return value;
  const s = branchFor(value, schema);
  if (s === undefined) return value;
  if (typeof value === 'string') return typeof s.maxLength === 'number' ? cutToLength(value, s.maxLength) : value;
  if (Array.isArray(value)) {
    if (!isObject(s.items)) return value;
    let changed = false;
    const out = value.map((v) => {
      const f = fit(v, s.items, depth + 1);
      changed ||= f !== v;
      return f;
    });
    return changed ? out : value;
  }
  if (!isObject(value)) return value;
  const properties = isObject(s.properties) ? s.properties : {};
  const additional = isObject(s.additionalProperties) ? s.additionalProperties : undefined;
  let out: JsonObject | undefined;
  for (const [k, v] of Object.entries(value)) {
    const sub = Object.hasOwn(properties, k) ? properties[k] : additional;
    const f = fit(v, sub, depth + 1);
    if (f === v) continue;
    out ??= { ...value };
    Object.defineProperty(out, k, { value: f, enumerable: true, writable: true, configurable: true });
  }
  return out ?? value;
}

/** `status` with every string cut to what `schema` admits: new objects where cut, else `status` itself. */
export function fitStatus<T>(status: T, schema: TSchema): T {
  return fit(status, schema, 0) as T;
}
