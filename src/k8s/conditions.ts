// metav1.Condition helpers: reading a child's condition, and deciding a parent condition so
// that lastTransitionTime only moves when the status does (docs/architecture.md §2.10).
import { at, isObject } from './read.js';
import { readTime } from './time.js';

export type ConditionStatus = 'True' | 'False' | 'Unknown';

export interface Condition {
  type: string;
  status: ConditionStatus;
  reason: string;
  message: string;
  lastTransitionTime: string;
  observedGeneration?: number;
}

/**
 * What a stage decides; the timestamps and generation are added by `decideCondition`. `R` narrows
 * the reason to a controller's own reason constants, so a misspelt reason does not compile.
 */
export interface ConditionDecision<R extends string = string> {
  status: ConditionStatus;
  reason: R;
  message: string;
}

/** The conditions list of any object's status (invalid entries dropped). */
export function conditionsOf(obj: unknown): Record<string, unknown>[] {
  const list = isObject(obj) && isObject(obj.status) ? obj.status.conditions : undefined;
  return Array.isArray(list) ? list.filter(isObject) : [];
}

/** The condition of `type` on any object, or undefined. */
export function findCondition(obj: unknown, type: string): Record<string, unknown> | undefined {
  return conditionsOf(obj).find((c) => c.type === type);
}

/** Whether `obj` has condition `type` with status True. */
export function isConditionTrue(obj: unknown, type: string): boolean {
  return findCondition(obj, type)?.status === 'True';
}

/** A previous parent condition, if it is well-formed enough to carry over verbatim. */
export function asCondition(value: unknown): Condition | undefined {
  if (!isObject(value)) return undefined;
  const { type, status, reason, message, lastTransitionTime } = value;
  if (typeof type !== 'string' || typeof reason !== 'string' || typeof lastTransitionTime !== 'string') return undefined;
  if (status !== 'True' && status !== 'False' && status !== 'Unknown') return undefined;
  const out: Condition = { type, status, reason, message: typeof message === 'string' ? message : '', lastTransitionTime };
  if (typeof value.observedGeneration === 'number') out.observedGeneration = value.observedGeneration;
  return out;
}

/** A parent's previous conditions, by type (from its status; malformed entries dropped). */
export function previousConditions(status: unknown): Map<string, Condition> {
  const out = new Map<string, Condition>();
  const list = at(status, 'conditions');
  if (!Array.isArray(list)) return out;
  for (const raw of list) {
    const c = asCondition(raw);
    if (c && !out.has(c.type)) out.set(c.type, c);
  }
  return out;
}

/** The condition to write: lastTransitionTime carried over unless the status changed. */
export function decideCondition(
  type: string,
  decision: ConditionDecision,
  previous: Condition | undefined,
  generation: number,
  now: () => Date,
): Condition {
  const lastTransitionTime =
    previous && previous.status === decision.status ? previous.lastTransitionTime : formatTime(now());
  return { type, status: decision.status, reason: decision.reason, message: decision.message, lastTransitionTime, observedGeneration: generation };
}

/** RFC 3339 with second precision, as the API server stores metav1.Time. */
export function formatTime(date: Date): string {
  const second = Math.floor(date.getTime() / 1000);
  if (second !== formatted.second) {
    // toISOString always ends in `.mmmZ` (no regular expression per call); an invalid date throws.
    formatted.text = `${date.toISOString().slice(0, -5)}Z`;
    formatted.second = second;
  }
  return formatted.text;
}

/** The last second formatTime formatted (a call formats the same second several times). */
const formatted = { second: Number.NaN, text: '' };

/** Whole seconds from an RFC 3339 time to `now`; undefined when the time is unreadable (k8s/time.ts). */
export function secondsSince(time: string | undefined, now: () => Date): number | undefined {
  const then = readTime(time);
  return then === undefined ? undefined : Math.floor((now().getTime() - then) / 1000);
}
