// POST /controlplane/sync: the desired children and the status of one ControlPlane, computed
// from the request alone (DESIGN §2): duplicate guard, then the stage pipeline.
import type { CompositeHookResponse, ControlPlaneParent, ObjectMap } from '../api/hooks.js';
import { ObjectIndex, keepAsIs } from '../k8s/observed.js';
import { stringAt } from '../k8s/read.js';
import { assertKeepsObserved } from '../k8s/invariant.js';
import { REASON, REQUEUE } from './conditions.js';
import { incumbentOver } from './duplicate-guard.js';
import { runPipeline, type StageTrace } from './pipeline.js';
import { readSpec } from './spec.js';
import { activeSchedule } from './korc/schedule.js';
import { buildStatus } from './status.js';
import { previousConditions } from '../k8s/conditions.js';
import { controlPlaneRef } from './stage.js';
import { credentialStatus } from './korc/credential-status.js';
import { previousUnapplied } from './unapplied.js';

export interface SyncRequest {
  parent: ControlPlaneParent;
  children: ObjectMap;
  related?: ObjectMap;
}

export interface SyncContext {
  now: Date;
  random: (bytes: number) => Buffer;
  /** Receives each stage's measurement (metrics); optional. */
  onStage?: (trace: StageTrace) => void;
}

export function syncControlPlane(request: SyncRequest, context: SyncContext): CompositeHookResponse {
  const parent = request.parent;
  const cp = controlPlaneRef(parent);
  const { spec, errors } = readSpec(parent.spec);
  const children = new ObjectIndex(request.children, parent.metadata.namespace);
  const related = new ObjectIndex(request.related, parent.metadata.namespace);
  const previous = previousConditions(parent.status);
  const credential = credentialStatus(cp, children, parent.status, context.now, activeSchedule(spec, related, cp.namespace));
  const statusBase = { cp, spec, credential, previous, now: context.now };

  const incumbent = incumbentOver(
    { name: cp.name, creationTimestamp: stringAt(parent, 'metadata', 'creationTimestamp') ?? '' },
    cp.namespace,
    related,
  );
  if (incumbent !== undefined) {
    const kept = children.all().map(keepAsIs);
    assertKeepsObserved(kept, children, new Set());
    return {
      status: buildStatus({
        ...statusBase,
        decided: new Map(),
        ready: {
          status: 'False',
          reason: REASON.DuplicateControlPlane,
          message:
            `ControlPlane ${incumbent} is the incumbent in namespace ${cp.namespace}: one ControlPlane per ` +
            `namespace; this one is parked and takes over once ${incumbent} is gone`,
        },
      }),
      children: kept,
      resyncAfterSeconds: REQUEUE.duplicate,
    };
  }

  const result = runPipeline(
    { cp, spec, specErrors: errors, children, related, previous, credential, now: context.now, random: context.random },
    undefined,
    previousUnapplied(parent.status),
  );
  for (const trace of result.trace) context.onStage?.(trace);
  const response: CompositeHookResponse = {
    status: buildStatus({ ...statusBase, decided: result.decided, unapplied: result.unapplied }),
    children: result.children,
  };
  if (result.resyncAfterSeconds !== undefined) response.resyncAfterSeconds = result.resyncAfterSeconds;
  return response;
}
