// K-ORC readiness signalling (docs/architecture.md §2.7): Available
// says the OpenStack resource exists; a Progressing condition with a terminal reason at the
// object's current generation says K-ORC gave up until the spec changes.
import { findCondition } from './conditions.js';
import { isTerminating, keepAsIs, type KubeObject } from './observed.js';
import { at, isObject, stringAt } from './read.js';

export const TERMINAL_REASONS: readonly string[] = ['InvalidConfiguration', 'UnrecoverableError'];

function generationOf(obj: unknown): number | undefined {
  const g = at(obj, 'metadata', 'generation');
  return typeof g === 'number' ? g : undefined;
}

/** A condition written for the object's current generation (a stale one is ignored). */
function upToDate(obj: unknown, type: string): Record<string, unknown> | undefined {
  const c = findCondition(obj, type);
  return c && c.observedGeneration === generationOf(obj) ? c : undefined;
}

/** IsAvailable: Available=True (no generation check), not being deleted. */
export function isAvailable(obj: unknown): boolean {
  return obj !== undefined && !isTerminating(obj) && findCondition(obj, 'Available')?.status === 'True';
}

/** korcAvailableUpToDate: Available=True written for the object's current generation. */
export function isAvailableUpToDate(obj: unknown): boolean {
  return isAvailable(obj) && upToDate(obj, 'Available') !== undefined;
}

/** GetTerminalError: the message of an up-to-date Progressing condition with a terminal reason. */
export function terminalError(obj: unknown): string | undefined {
  const p = upToDate(obj, 'Progressing');
  if (!p || typeof p.reason !== 'string' || !TERMINAL_REASONS.includes(p.reason)) return undefined;
  const message = typeof p.message === 'string' && p.message ? p.message : p.reason;
  return `${p.reason}: ${message}`;
}

/** The OpenStack ID K-ORC recorded, if any. */
export function openstackId(obj: unknown): string | undefined {
  return stringAt(obj, 'status', 'id');
}

/** Why a K-ORC object is not usable yet, for condition messages. */
export function orcDetail(label: string, obj: KubeObject | undefined): string {
  if (!obj) return `${label} is being created`;
  if (isTerminating(obj)) return `${label} is being deleted`;
  const terminal = terminalError(obj);
  if (terminal) return `${label} failed (${terminal})`;
  return `${label} is not yet Available${progressingNote(obj)}`;
}

/** `: <K-ORC's Progressing message>` (what it waits for, e.g. "Waiting for Service/identity to be created"), or ''. */
export function progressingNote(obj: KubeObject | undefined): string {
  const progressing = findCondition(obj, 'Progressing');
  return typeof progressing?.message === 'string' && progressing.message ? `: ${progressing.message}` : '';
}

/**
 * The live object as it is, told to leave its OpenStack resource alone when it is deleted
 * (`managedOptions.onDelete: detach`): K-ORC reads onDelete before it deletes anything, and a
 * Terminating object can no longer be patched, so the detach is applied before the deletion.
 */
export function detached(live: KubeObject): KubeObject {
  const base = keepAsIs(live);
  const spec = isObject(base.spec) ? base.spec : {};
  const managedOptions = isObject(spec.managedOptions) ? spec.managedOptions : {};
  return { ...base, spec: { ...spec, managedOptions: { ...managedOptions, onDelete: 'detach' } } };
}
