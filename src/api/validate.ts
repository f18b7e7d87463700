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

function newAjv(useDefaults: boolean): Ajv {
  const ajv = new Ajv({
    allErrors: true,
    useDefaults,
    coerceTypes: false,
    strict: true,
    // Kubernetes formats: accepted as annotations (the API server checks them, not us).
    formats: { 'date-time': true, int32: true, int64: true },
  });
  for (const keyword of KUBE_KEYWORDS) ajv.addKeyword({ keyword, schemaType: ['array', 'string', 'boolean'] });
  return ajv;
}

const defaulting = newAjv(true);
const checking = newAjv(false);

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
  return `${path}: ${error.message ?? 'is invalid'}`;
}

/** A compiled validator for one schema: `validate(value)` defaults a copy and reports errors. */
export function compileValidator<T>(schema: TSchema, prefix: string, options: { defaults?: boolean } = {}) {
  const fn: ValidateFunction = (options.defaults === false ? checking : defaulting).compile(
    JSON.parse(JSON.stringify(schema)),
  );
  return (input: unknown): ValidationResult<T> => {
    const value = input === undefined ? undefined : structuredClone(input);
    const ok = fn(value);
    return { value: value as T, errors: ok ? [] : (fn.errors ?? []).map((e) => formatError(prefix, e)) };
  };
}
