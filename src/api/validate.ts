// Validation of c5c3.io objects against their TypeBox schema, with the schema defaults applied
// the way the API server applies them (top-down: a defaulted object gets its nested defaults).
//
// The CEL rules (x-kubernetes-validations) are enforced by the API server at admission; the hooks
// re-check what they depend on where they read it (an object that bypassed admission must not
// make a hook misbehave), so Ajv only carries them as annotations here.
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import type { TSchema } from '@sinclair/typebox';

const KUBE_KEYWORDS = [
  'x-kubernetes-validations',
  'x-kubernetes-map-type',
  'x-kubernetes-list-type',
  'x-kubernetes-list-map-keys',
  'x-kubernetes-preserve-unknown-fields',
];

function newAjv(useDefaults: boolean, allErrors = true): Ajv {
  const ajv = new Ajv({
    allErrors,
    useDefaults,
    coerceTypes: false,
    strict: true,
    // Errors carry the offending data, so a message can say which type it got (never its value).
    verbose: true,
    // Kubernetes formats: accepted as annotations (the API server checks them, not us).
    formats: { 'date-time': true, int32: true, int64: true },
  });
  for (const keyword of KUBE_KEYWORDS) ajv.addKeyword({ keyword, schemaType: ['array', 'string', 'boolean'] });
  return ajv;
}

const defaulting = newAjv(true);
const checking = newAjv(false);
const defaultingFirst = newAjv(true, false);
const checkingFirst = newAjv(false, false);

/**
 * Every error is reported for an input of at most this many values (objects, arrays, scalars);
 * a larger one (no c5c3.io spec comes near: about 200 values) is validated up to its first error,
 * so the work and the errors of a call stay bounded by the schema, not by what was sent (200,000
 * wrong items would otherwise be 200,000 error objects, each formatted into the status).
 */
export const MAX_FULLY_VALIDATED_VALUES = 10_000;

/** Whether `value` holds more than `max` values (stops counting there; no recursion). */
export function holdsMoreValues(value: unknown, max: number): boolean {
  const stack: unknown[] = [value];
  let count = 0;
  while (stack.length > 0) {
    const v = stack.pop();
    if (++count > max) return true;
    if (Array.isArray(v)) {
      if (count + v.length > max) return true;
      for (let i = 0; i < v.length; i++) stack.push(v[i]);
    } else if (v !== null && typeof v === 'object') {
      for (const k in v) if (Object.prototype.hasOwnProperty.call(v, k)) stack.push((v as Record<string, unknown>)[k]);
    }
  }
  return false;
}

/** `items` joined by '; ', at most `max` of them, then how many more: a message stays bounded. */
export function listed(items: readonly string[], max = 10): string {
  const shown = items.slice(0, max).join('; ');
  return items.length > max ? `${shown}; and ${items.length - max} more` : shown;
}

export interface ValidationResult<T> {
  /** A defaulted deep copy of the input (the input itself is never modified). */
  value: T;
  /** Human-readable problems, each naming the field (e.g. `spec.region: must be string`). */
  errors: string[];
}

export function formatError(prefix: string, error: ErrorObject): string {
  const path = error.instancePath
    .split('/')
    .slice(1)
    .map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'))
    .reduce((acc, part) => (/^\d+$/.test(part) ? `${acc}[${part}]` : `${acc}.${part}`), prefix);
  if (error.keyword === 'required') return `${path}.${String(error.params.missingProperty)}: is required`;
  if (error.keyword === 'enum') {
    return `${path}: must be one of ${(error.params.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ')}`;
  }
  // What was expected comes from the schema; of what was sent only its type is named (a value
  // could be a secret).
  if (error.keyword === 'const') return `${path}: must be ${JSON.stringify(error.params.allowedValue)}`;
  if (error.keyword === 'type') {
    const got = 'data' in error ? `, got ${typeName(error.data)}` : '';
    return `${path}: must be ${String(error.params.type).split(',').map(withArticle).join(' or ')}${got}`;
  }
  if (error.keyword === 'additionalProperties') return `${path}: unknown field ${JSON.stringify(error.params.additionalProperty)}`;
  return `${path}: ${error.message ?? 'is invalid'}`;
}

function typeName(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return withArticle(typeof value);
}

function withArticle(type: string): string {
  return `${/^[aeiou]/.test(type) ? 'an' : 'a'} ${type}`;
}

/**
 * A compiled validator for one schema: `validate(value)` defaults a copy and reports errors: all
 * of them, or only the first for an input of more than MAX_FULLY_VALIDATED_VALUES values.
 */
export function compileValidator<T>(schema: TSchema, prefix: string, options: { defaults?: boolean } = {}) {
  const all: ValidateFunction = (options.defaults === false ? checking : defaulting).compile(JSON.parse(JSON.stringify(schema)));
  const first: ValidateFunction = (options.defaults === false ? checkingFirst : defaultingFirst).compile(JSON.parse(JSON.stringify(schema)));
  return (input: unknown): ValidationResult<T> => {
    const fn = holdsMoreValues(input, MAX_FULLY_VALIDATED_VALUES) ? first : all;
    const value = input === undefined ? undefined : structuredClone(input);
    const ok = fn(value);
    return { value: value as T, errors: ok ? [] : (fn.errors ?? []).map((e) => formatError(prefix, e)) };
  };
}
