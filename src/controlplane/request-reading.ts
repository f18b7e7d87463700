// What a sync reads of its request before the clock enters: the ControlPlane as the stages refer
// to it, its spec read (defaulted, validated, resolved), the observed children and the related
// objects indexed, the previous conditions and unapplied children, the namespace's incumbent and
// the rotation schedule in force. All of it is a pure function of the request.
//
// A request body the server remembers (json-body.ts) is one frozen object, shared by every call
// that sends the same bytes (a converged ControlPlane's resync), so its reading is kept with it
// (a WeakMap: it goes when the body leaves the memo) and read once per body, not once per call.
// A kept reading is shared like the body: its objects are frozen, its maps read-only to the stages.
// A body that is not frozen (parsed for this call alone, or an in-process caller's) is read afresh.
import type { ControlPlaneHookRequest } from '../api/hooks.js';
import type { SpecReading } from './spec.js';
import { readSpec } from './spec.js';
import { ObjectIndex } from '../k8s/observed.js';
import { previousConditions, type Condition } from '../k8s/conditions.js';
import { stringAt } from '../k8s/read.js';
import { controlPlaneRef, type ControlPlaneRef } from './ref.js';
import { incumbentOver } from './duplicate-guard.js';
import { previousUnapplied, type UnappliedChild } from './unapplied.js';
import { activeSchedule, type Schedule } from './credential/schedule.js';
import { StageMemo } from './stage-memo.js';
import { countLookup, deepFreeze, MEMO, memoOn } from '../memo.js';

export interface RequestReading extends SpecReading {
  cp: ControlPlaneRef;
  /** Observed children (owned by this ControlPlane). */
  children: ObjectIndex;
  /** Related objects (customize). */
  related: ObjectIndex;
  /** The previous status' conditions, by type. */
  previous: ReadonlyMap<string, Condition>;
  /** The previous status' unapplied children. */
  previousUnapplied: readonly UnappliedChild[];
  /** The namespace's incumbent ControlPlane when it is not this one (duplicate-guard.ts). */
  incumbent: string | undefined;
  /** The rotation schedule in force (credential/schedule.ts), when Scheduled. */
  schedule: Schedule | undefined;
  /** What is kept with a kept reading (stage-memo.ts); nothing for a reading afresh. */
  kept: KeptWithRequest | undefined;
}

/** The stage results kept with a remembered request. */
export interface KeptWithRequest {
  stages: StageMemo;
}

const kept = new WeakMap<object, RequestReading>();

/** The reading of `request`: kept with a frozen (remembered, shared) request, else read afresh. */
export function readRequest(request: ControlPlaneHookRequest): RequestReading {
  if (!Object.isFrozen(request) || !memoOn(MEMO.requestReading)) {
    countLookup(MEMO.requestReading, false);
    return read(request, undefined);
  }
  let reading = kept.get(request);
  countLookup(MEMO.requestReading, reading !== undefined);
  if (reading === undefined) kept.set(request, (reading = read(request, { stages: new StageMemo() })));
  return reading;
}

function read(request: ControlPlaneHookRequest, keep: KeptWithRequest | undefined): RequestReading {
  const parent = request.parent;
  const cp = controlPlaneRef(parent);
  const { spec, errors, resolved } = readSpec(parent.spec, cp.name);
  const children = new ObjectIndex(request.children, parent.metadata.namespace);
  const related = new ObjectIndex(request.related, parent.metadata.namespace);
  const previous = previousConditions(parent.status);
  const reading: RequestReading = {
    cp,
    spec,
    errors,
    resolved,
    children,
    related,
    previous,
    previousUnapplied: previousUnapplied(parent.status),
    incumbent: incumbentOver({ name: cp.name, creationTimestamp: stringAt(parent, 'metadata', 'creationTimestamp') ?? '' }, cp.namespace, related),
    schedule: activeSchedule(spec, related, cp.namespace),
    kept: keep,
  };
  if (keep) {
    // Shared by every call with this request: what it holds is frozen (the indexes hold the
    // request's own objects, and copies of those that did not say their namespace).
    for (const part of [cp, children.all(), related.all(), [...previous.values()], reading.previousUnapplied, reading.schedule]) deepFreeze(part);
  }
  return reading;
}
