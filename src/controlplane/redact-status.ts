// Condition messages of the ControlPlane status repeat what children say (a MariaDB's or a K-ORC
// object's own condition message), and a child may put a secret there (an operator echoing a
// connection string). No value held by a Secret of the request reaches the status: every
// occurrence (raw or base64) in a condition message becomes `[redacted]`.
import type { CompositeHookResponse, ObjectMap } from '../api/hooks.js';
import { isObject } from '../k8s/read.js';
import { secretValuesOf, ValueReplacer } from '../capture/secret-values.js';
import { BoundedMemo } from '../memo.js';

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
 * The replacer of a list of values, its pattern compiled once: a ControlPlane's Secrets hold the
 * same values sync after sync. Keyed by the JSON of the list (unambiguous whatever the values hold).
 */
const replacers = new BoundedMemo<ValueReplacer>(64);
const MEMO_MAX_KEY = 64 * 1024;
function replacerFor(values: Set<string>): ValueReplacer {
  const compute = () => new ValueReplacer([...values].map((v): [string, string] => [v, REDACTED_VALUE]), false);
  const key = JSON.stringify([...values]);
  return key.length > MEMO_MAX_KEY ? compute() : replacers.get(key, compute);
}

/** `response` with secret values of the request's Secrets taken out of its condition messages. */
export function redactConditionMessages<R extends CompositeHookResponse>(response: R, request: { children?: ObjectMap; related?: ObjectMap }): R {
  const status: Record<string, unknown> = response.status;
  const conditions = status.conditions;
  if (!Array.isArray(conditions)) return response;
  const values = secretValuesOf(objectsOf(request.children, request.related));
  if (values.size === 0) return response;
  const replacer = replacerFor(values);
  // New condition objects: a kept condition may be the request's own (never changed in place).
  status.conditions = conditions.map((c) =>
    isObject(c) && typeof c.message === 'string' ? { ...c, message: replacer.apply(c.message) } : c,
  );
  return response;
}
