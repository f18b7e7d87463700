// Admission as the API server does it for a CRD, for tests: schema defaults applied top-down,
// structural validation with Ajv, then every x-kubernetes-validations rule evaluated with a real
// CEL evaluator (transition rules only on update, when the old value exists).
import { Ajv } from 'ajv';
import { run } from '@bufbuild/cel';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { REPO_ROOT, type Obj } from './shared.js';

function newAjv(): Ajv {
  const ajv = new Ajv({ allErrors: true, useDefaults: true, strict: false, formats: { 'date-time': true, int32: true, int64: true } });
  return ajv;
}

// Kubernetes exposes a property named like a CEL reserved word as __word__ (e.g. self.__import__).
const CEL_RESERVED = new Set(['true', 'false', 'null', 'in', 'as', 'break', 'const', 'continue', 'else', 'for', 'function', 'if', 'import', 'let', 'loop', 'package', 'namespace', 'return', 'var', 'void', 'while']);
const celKey = (k: string) => (CEL_RESERVED.has(k) ? `__${k}__` : k);

/** JS value → CEL input: objects become maps (reserved names escaped), whole numbers become int. */
function toCel(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(toCel);
  if (v !== null && typeof v === 'object') return new Map(Object.entries(v).map(([k, x]) => [celKey(k), toCel(x)]));
  if (typeof v === 'number' && Number.isInteger(v)) return BigInt(v);
  return v;
}

export interface Admission {
  /** The object after defaulting. */
  object: Obj;
  /** Structural errors and failed CEL rules (their messages). */
  errors: string[];
}

function celErrors(schema: Obj, value: unknown, old: unknown, path: string, out: string[]): void {
  if (value === undefined || value === null) return;
  for (const rule of (schema['x-kubernetes-validations'] ?? []) as { rule: string; message: string; optionalOldSelf?: boolean }[]) {
    const transition = /\boldSelf\b/.test(rule.rule);
    const hasOld = old !== undefined && old !== null;
    if (transition && !rule.optionalOldSelf && !hasOld) continue;
    // optionalOldSelf: the evaluator has no optionals; `oldSelf.hasValue()` is a bool binding.
    const expression = rule.optionalOldSelf ? rule.rule.replace(/\boldSelf\.hasValue\(\)/g, 'hasOldSelf').replace(/\boldSelf\.value\(\)/g, 'oldSelf') : rule.rule;
    let ok: unknown;
    try {
      const bindings: Record<string, unknown> = { self: toCel(value) };
      if (hasOld) bindings.oldSelf = toCel(old);
      if (rule.optionalOldSelf) bindings.hasOldSelf = hasOld;
      ok = run(expression, (transition ? bindings : { self: toCel(value) }) as any);
    } catch (err) {
      ok = `error: ${(err as Error).message}`;
    }
    if (ok !== true) out.push(`${path}: ${rule.message}`);
  }
  if (schema.properties && value && typeof value === 'object' && !Array.isArray(value)) {
    for (const [key, sub] of Object.entries(schema.properties as Obj)) {
      celErrors(sub, (value as Obj)[key], old && typeof old === 'object' ? (old as Obj)[key] : undefined, `${path}.${key}`, out);
    }
  }
  if (schema.items && Array.isArray(value)) {
    value.forEach((item, i) => celErrors(schema.items, item, undefined, `${path}[${i}]`, out));
  }
}

/** A validator for one CRD version's openAPIV3Schema. */
export function admission(schema: Obj) {
  const validate = newAjv().compile(structuredClone(schema));
  return (input: Obj, oldObject?: Obj): Admission => {
    const object = structuredClone(input);
    const errors: string[] = [];
    if (!validate(object)) {
      for (const e of validate.errors ?? []) errors.push(`${e.instancePath || '<root>'}: ${e.message}`);
    }
    celErrors(schema, object, oldObject, '', errors);
    return { object, errors };
  };
}

/** The errors of a status under a committed CRD of ours (manifests/crds/`file`), as the API server validates a status update. */
export function statusAdmission(file: string): (status: Obj) => string[] {
  const crd = parse(readFileSync(join(REPO_ROOT, 'manifests', 'crds', file), 'utf8')) as Obj;
  const admit = admission(crd.spec.versions[0].schema.openAPIV3Schema.properties.status);
  return (status) => admit(status).errors;
}
