// Condition messages of the ControlPlane status repeat what children say (a MariaDB's or a K-ORC
// object's own condition message), and a child may put a secret there (an operator echoing a
// connection string). No value held by a Secret of the request reaches the status: every
// occurrence (raw or base64, at any offset of a base64 text) in a condition message becomes
// `[redacted]`; a value under 6 characters only where it is the whole message (ValueReplacer).
import type { CompositeHookResponse, ObjectMap } from '../api/hooks.js';
import { isObject } from '../k8s/read.js';
import { secretValuesOf, ValueReplacer } from '../capture/secret-values.js';

export const REDACTED_VALUE = '[redacted]';

function objectsOf(...maps: (ObjectMap | undefined)[]): unknown[] {
  const out: unknown[] = [];
  for (const map of maps) {
    if (!isObject(map)) continue;
    for (const group of Object.values(map)) if (isObject(group)) out.push(...Object.values(group));
  }
  return out;
}

/**
 * The replacer of the request's Secrets, undefined when they hold no value. Built every call (the
 * clouds.yaml documents it reads are parsed once per text, secret-values.ts): remembering it saved
 * about 4 % of the CPU of a fleet's sync, less than the 10 % a memo must save to be kept
 * (BENCHMARKS.md, issue 34).
 */
function replacerOf(objects: unknown[]): ValueReplacer | undefined {
  const values = secretValuesOf(objects);
  return values.size === 0 ? undefined : new ValueReplacer([...values].map((v): [string, string] => [v, REDACTED_VALUE]), false);
}

/** `response` with secret values of the request's Secrets taken out of its condition messages. */
export function redactConditionMessages<R extends CompositeHookResponse>(response: R, request: { children?: ObjectMap; related?: ObjectMap }): R {
  const status: Record<string, unknown> = response.status;
  const conditions = status.conditions;
  if (!Array.isArray(conditions)) return response;
  const objects = objectsOf(request.children, request.related);
  const replacer = replacerOf(objects);
  if (!replacer) return response;
  // New condition objects: a kept condition may be the request's own (never changed in place).
  status.conditions = conditions.map((c) =>
    isObject(c) && typeof c.message === 'string' ? { ...c, message: replacer.apply(c.message) } : c,
  );
  return response;
}
