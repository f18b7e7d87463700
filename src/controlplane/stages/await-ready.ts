// The common tail of a stage that projects one child and waits for it: the child is emitted
// either way; the stage is complete once the observed child is Ready (not Terminating).
import { isReady, notReadyDetail, type KubeObject } from '../../k8s/observed.js';
import { complete, waiting, type StageResult } from '../stage.js';

export interface AwaitReady {
  /** How messages name the child, e.g. "Keystone cp-keystone". */
  label: string;
  desired: KubeObject;
  observed: KubeObject | undefined;
  waitingReason: string;
  readyReason: string;
  readyMessage: string;
  requeueSeconds: number;
}

export function awaitReady(a: AwaitReady): StageResult {
  if (!isReady(a.observed)) {
    return {
      condition: { status: 'False', reason: a.waitingReason, message: notReadyDetail(a.label, a.observed) },
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
