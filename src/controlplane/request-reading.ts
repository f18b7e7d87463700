// The one reading of a ControlPlane hook request (sync and finalize alike, issue 43): the only
// module that looks at the raw request (test/house-rules.test.ts). Everything the hooks use of it
// is read here once, typed: the ControlPlane as the stages refer to it, its spec read (defaulted,
// validated, resolved), its annotations and deletion time, the previous status (conditions,
// unapplied children, the admin credential's status, the rollout memory), the observed children
// and related objects indexed, the namespace's incumbent and the rotation schedule in force. All
// of it is a pure function of the request.
import type { ControlPlaneHookRequest } from '../api/hooks.js';
import type { SpecReading } from './spec.js';
import { readSpec } from './spec.js';
import { ObjectIndex } from '../k8s/observed.js';
import { previousConditions, type Condition } from '../k8s/conditions.js';
import { at, isObject, stringAt } from '../k8s/read.js';
import { controlPlaneRef, type ControlPlaneRef } from './ref.js';
import { incumbentOver } from './duplicate-guard.js';
import { previousUnapplied, type UnappliedChild } from './unapplied.js';
import { activeSchedule, type Schedule } from './credential/schedule.js';
import { previousCredential, type CredentialStatus } from './credential/credential-status.js';
import { readRolloutMemory, type RolloutMemory } from './rollout/rollout-state.js';

export interface RequestReading extends SpecReading {
  cp: ControlPlaneRef;
  /** metadata.annotations with string values (anything else is ignored). */
  annotations: Readonly<Record<string, string>> | undefined;
  /** metadata.deletionTimestamp, as written. */
  deletionTimestamp: string | undefined;
  /** Observed children (owned by this ControlPlane). */
  children: ObjectIndex;
  /** Related objects (customize). */
  related: ObjectIndex;
  /** The previous status' conditions, by type. */
  previous: ReadonlyMap<string, Condition>;
  /** The previous status' unapplied children. */
  previousUnapplied: readonly UnappliedChild[];
  /** The previous status' admin credential (status.adminApplicationCredential), when well-formed. */
  previousCredential: CredentialStatus | undefined;
  /** The rollout as the previous status left it (updatePhase, rollout, lastUpdate, Keystone's release). */
  rollout: RolloutMemory;
  /** The namespace's incumbent ControlPlane when it is not this one (duplicate-guard.ts). */
  incumbent: string | undefined;
  /** The rotation schedule in force (credential/schedule.ts), when Scheduled. */
  schedule: Schedule | undefined;
}

/** The reading of `request`, once per call. */
export function readRequest(request: ControlPlaneHookRequest): RequestReading {
  const parent = request.parent;
  const status: unknown = parent.status;
  const cp = controlPlaneRef(parent);
  const { spec, errors, resolved } = readSpec(parent.spec, cp.name);
  const children = new ObjectIndex(request.children, parent.metadata.namespace);
  const related = new ObjectIndex(request.related, parent.metadata.namespace);
  const previous = previousConditions(status);
  const unapplied = previousUnapplied(status);
  return {
    cp,
    spec,
    errors,
    resolved,
    annotations: annotationsOf(parent),
    deletionTimestamp: stringAt(parent, 'metadata', 'deletionTimestamp'),
    children,
    related,
    previous,
    previousUnapplied: unapplied,
    previousCredential: previousCredential(status),
    rollout: readRolloutMemory(status),
    incumbent: incumbentOver({ name: cp.name, creationTimestamp: stringAt(parent, 'metadata', 'creationTimestamp') ?? '' }, cp.namespace, related),
    schedule: activeSchedule(spec, related, cp.namespace),
  };
}

/** The parent's annotations with string values (anything else is ignored). */
function annotationsOf(parent: unknown): Record<string, string> | undefined {
  const raw = at(parent, 'metadata', 'annotations');
  if (!isObject(raw)) return undefined;
  return Object.fromEntries(Object.entries(raw).filter((e): e is [string, string] => typeof e[1] === 'string'));
}
