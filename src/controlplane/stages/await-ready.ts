// The common tail of a stage that projects one child and waits for it: the child is emitted
// either way; the stage is complete once the observed child carries it and is Ready at its
// current generation (not Terminating).
import type { KubeObject } from '../../k8s/observed.js';
import { isReadyAsDesired, readinessDetail } from '../../k8s/readiness.js';
import type { Reason } from '../conditions.js';
import { complete, waiting, type StageResult } from '../stage.js';

export interface AwaitReady {
  /** How messages name the child, e.g. "Keystone cp-keystone". */
  label: string;
  desired: KubeObject;
  observed: KubeObject | undefined;
  waitingReason: Reason;
  readyReason: Reason;
  readyMessage: string;
  requeueSeconds: number;
}

export function awaitReady(a: AwaitReady): StageResult {
  if (!isReadyAsDesired(a.observed, a.desired)) {
    return {
      condition: { status: 'False', reason: a.waitingReason, message: readinessDetail(a.label, a.observed, a.desired) },
      outcome: waiting(a.requeueSeconds),
      children: [a.desired],
    };
  }
  return {
    condition: { status: 'True', reason: a.readyReason, message: a.readyMessage },
    outcome: complete(),
    children: [a.desired],
  };
}
