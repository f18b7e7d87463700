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
    // Kubernetes formats: date-time accepted as an annotation; the integer sizes checked as the
    // API server checks them (a spec that bypassed admission may hold 2^53 or more).
    formats: {
      'date-time': true,
      int32: { type: 'number', validate: (n: number) => Number.isInteger(n) && n >= -(2 ** 31) && n < 2 ** 31 },
      int64: { type: 'number', validate: (n: number) => Number.isSafeInteger(n) },
    },
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
  /**
   * A defaulted deep copy of the input (the input itself is never modified), with every part that
   * failed the schema taken out (then defaulted again): what it holds has its schema type, so a
   * reader of one part is never handed another part's wrong value (`database: null`, a number
   * where an object belongs, an access rule without its method). Only the input itself, when it
   * is not an object or misses a required field at its top, may still fail.
   */
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

/** Passes of taking failed parts out (each at least one value; a spec nests about ten levels). */
const MAX_PRUNE_PASSES = 32;

const pointer = (path: string) => (path === '' ? [] : path.split('/').slice(1).map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~')));

/**
 * Removes from `root` the values `failures` point at: the value of a failed keyword, the object
 * missing a required field, an unknown field; array items are taken out of their array (with
 * `depth`, the field that many levels under the root holding each instead). The root itself stays.
 * True when anything was removed.
 */
export function pruneFailures(root: unknown, failures: readonly ErrorObject[], depth = Infinity): boolean {
  const targets: string[][] = [];
  for (const e of failures) {
    const path = pointer(e.instancePath);
    if (e.keyword === 'additionalProperties') path.push(String(e.params.additionalProperty));
    if (path.length > 0) targets.push(path.slice(0, depth));
  }
  const removeFromArrays = new Map<unknown[], Set<number>>();
  let removed = false;
  for (const path of targets) {
    let holder: unknown = root;
    for (const key of path.slice(0, -1)) holder = holder !== null && typeof holder === 'object' ? (holder as Record<string, unknown>)[key] : undefined;
    const key = path[path.length - 1]!;
    if (Array.isArray(holder)) {
      const index = Number(key);
      if (Number.isInteger(index) && index >= 0 && index < holder.length) {
        const set = removeFromArrays.get(holder) ?? new Set<number>();
        set.add(index);
        removeFromArrays.set(holder, set);
      }
    } else if (holder !== null && typeof holder === 'object' && Object.prototype.hasOwnProperty.call(holder, key)) {
      delete (holder as Record<string, unknown>)[key];
      removed = true;
    }
  }
  for (const [array, indices] of removeFromArrays) {
    // In place, no spread: an array may hold hundreds of thousands of items.
    let to = 0;
    for (let from = 0; from < array.length; from++) if (!indices.has(from)) array[to++] = array[from];
    array.length = to;
    removed = true;
  }
  return removed;
}

/**
 * A compiled validator for one schema: `validate(value)` defaults a copy and reports errors: all
 * of them, or only the first for an input of more than MAX_FULLY_VALIDATED_VALUES values.
 */
export function compileValidator<T>(schema: TSchema, prefix: string, options: { defaults?: boolean } = {}) {
  const all: ValidateFunction = (options.defaults === false ? checking : defaulting).compile(JSON.parse(JSON.stringify(schema)));
  const first: ValidateFunction = (options.defaults === false ? checkingFirst : defaultingFirst).compile(JSON.parse(JSON.stringify(schema)));
  return (input: unknown): ValidationResult<T> => {
    const large = holdsMoreValues(input, MAX_FULLY_VALIDATED_VALUES);
    const fn = large ? first : all;
    const value = input === undefined ? undefined : structuredClone(input);
    if (fn(value)) return { value: value as T, errors: [] };
    const errors = (fn.errors ?? []).map((e) => formatError(prefix, e));
    // Take out what failed, default again, until nothing more fails (or nothing more can be
    // taken out); a pass removes at least one value, and a spec nests about ten levels. What
    // still fails then (or at once, for a large input, validated one error at a time) goes with
    // its whole top-level field.
    let failures = fn.errors ?? [];
    for (let pass = 0; !large && pass < MAX_PRUNE_PASSES && failures.length > 0 && pruneFailures(value, failures); pass++) {
      failures = fn(value) ? [] : (fn.errors ?? []);
    }
    while (failures.length > 0 && pruneFailures(value, failures, 1)) failures = fn(value) ? [] : (fn.errors ?? []);
    return { value: value as T, errors };
  };
}
