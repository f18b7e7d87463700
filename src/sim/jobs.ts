// The stand-in Kubernetes Job controller (no kubelet in the simulator): a Job runs for
// JOB_RUN_SECONDS and then ends as the scenario says, with the status the real controller writes
// (kubernetes pkg/controller/job/job_controller.go: startTime and `active` once its pod runs; on
// success `succeeded`, completionTime and the terminal Complete condition; on failure `failed` and
// Failed with BackoffLimitExceeded, or DeadlineExceeded once activeDeadlineSeconds has passed).
// The SuccessCriteriaMet / FailureTarget conditions 1.31+ writes first are left out: nothing here
// reads them. The verification Job's container (Tempest) is not run: `jobsFail` is its verdict.
import type { Cluster, Obj } from './cluster.js';
import { refOf } from './cluster.js';

/** How long a Job's pod runs in the simulator before it ends (simulated seconds). */
export const JOB_RUN_SECONDS = 120;

export interface JobWorld {
  cluster: Cluster;
  notes: { by: string; text: string }[];
  /** Failure knob: while set, every Job that ends fails (BackoffLimitExceeded) instead of completing. */
  jobsFail: boolean;
}

const BY = 'job-controller';
const terminal = (j: Obj) => (j.status?.conditions ?? []).some((c: Obj) => (c.type === 'Complete' || c.type === 'Failed') && c.status === 'True');

function ended(j: Obj, now: Date, failed: { reason: string; message: string } | undefined): Obj {
  const at = now.toISOString();
  const condition = failed
    ? { type: 'Failed', status: 'True', reason: failed.reason, message: failed.message, lastProbeTime: at, lastTransitionTime: at }
    : { type: 'Complete', status: 'True', reason: 'CompletionsReached', message: 'Reached expected number of succeeded pods', lastProbeTime: at, lastTransitionTime: at };
  const status: Obj = { startTime: j.status.startTime, conditions: [condition], ready: 0, terminating: 0 };
  if (failed) status.failed = 1;
  else {
    status.succeeded = 1;
    status.completionTime = at;
  }
  return status;
}

export function jobs(w: JobWorld): void {
  const now = w.cluster.now();
  for (const j of w.cluster.list((o) => o.kind === 'Job' && o.apiVersion === 'batch/v1' && !o.metadata.deletionTimestamp)) {
    if (terminal(j)) continue;
    if (!j.status?.startTime) {
      w.cluster.updateStatus(refOf(j), { startTime: now.toISOString(), active: 1, ready: 1, terminating: 0 }, BY);
      continue;
    }
    const ran = (now.getTime() - Date.parse(j.status.startTime)) / 1000;
    const deadline = j.spec?.activeDeadlineSeconds;
    if (typeof deadline === 'number' && ran >= deadline && ran < JOB_RUN_SECONDS) {
      w.cluster.updateStatus(refOf(j), ended(j, now, { reason: 'DeadlineExceeded', message: 'Job was active longer than specified deadline' }), BY);
    } else if (ran >= JOB_RUN_SECONDS) {
      const failed = w.jobsFail ? { reason: 'BackoffLimitExceeded', message: 'Job has reached the specified backoff limit' } : undefined;
      w.notes.push({ by: BY, text: `Job ${j.metadata.name}: ${failed ? 'its pod failed' : 'its pod succeeded'}` });
      w.cluster.updateStatus(refOf(j), ended(j, now, failed), BY);
    }
  }
}
