// POST /controlplane/sync: the desired children and the status of one ControlPlane, computed
// from the request alone (docs/architecture.md §2): duplicate guard, then the stage pipeline.
import type { CompositeHookResponse, ControlPlaneHookRequest } from '../api/hooks.js';
import { keepAsIs } from '../k8s/observed.js';
import { assertKeepsObserved } from '../k8s/invariant.js';
import { REASON, REQUEUE } from './conditions.js';
import { runPipeline, type StageTrace } from './pipeline.js';
import { buildStatus } from './status.js';
import { readRequest } from './request-reading.js';
import { credentialStatus } from './credential/credential-status.js';
import { carriedRollout, finishRollout, planRollout, stageView, stayed, withVerification, type RolloutOutcome, type RolloutPlan } from './rollout/rollout.js';
import { verificationPass, withVerificationChildren, type VerificationPass } from './rollout/verification.js';
import { GVK } from '../k8s/kinds.js';
import { childNames } from './names.js';
import { recoverOpenBao } from './openbao-backups.js';
import { secretStoreReady } from './external-secret.js';

export interface SyncContext {
  now: () => Date;
  random: (bytes: number) => Buffer;
  /** Receives each stage's measurement (metrics); optional. */
  onStage?: (trace: StageTrace) => void;
}

export function syncControlPlane(request: ControlPlaneHookRequest, context: SyncContext): CompositeHookResponse {
  const reading = readRequest(request);
  const { cp, spec, errors, resolved, children, related, previous, incumbent, schedule, previousUnapplied } = reading;
  // Computed every call (keeping them saved under 10 % of a fleet's sync: issue 34).
  const credential = credentialStatus(cp, children, reading.previousCredential, context.now, schedule);
  const statusBase = { cp, spec, credential, previous, now: context.now };

  if (incumbent !== undefined) {
    const asIs = children.all().map(keepAsIs);
    assertKeepsObserved(asIs, children, new Set());
    return {
      status: buildStatus({
        ...statusBase,
        decided: new Map(),
        update: carriedRollout(reading.rollout, spec),
        ready: {
          status: 'False',
          reason: REASON.DuplicateControlPlane,
          message:
            `ControlPlane ${incumbent} is the incumbent in namespace ${cp.namespace}: one ControlPlane per ` +
            `namespace; this one is parked and takes over once ${incumbent} is gone`,
        },
      }),
      children: asIs,
      resyncAfterSeconds: REQUEUE.duplicate,
    };
  }

  // A release rollout (rollout/rollout.ts): planned before the stages, its phase exit decided after.
  // Verifying with spec.verification.tempest (rollout/verification.ts): the Tempest Job's verdict
  // joins the plan, and the Job and its ConfigMap are asked for.
  const verifying = (p: RolloutPlan): { plan: RolloutPlan; pass?: VerificationPass } => {
    const r = p.memory.rollout;
    const pass = r && p.memory.phase === 'Verifying' ? verificationPass(cp, spec, r, children) : undefined;
    return pass ? { plan: withVerification(p, pass.verdict, pass.settings.deadlineSeconds, pass.settings.deadline), pass } : { plan: p };
  };
  const planned = verifying(
    planRollout({
      spec,
      generation: cp.generation,
      previous: reading.rollout,
      observedKeystone: children.get(GVK.Keystone, cp.namespace, childNames(cp.name).keystone),
      now: context.now,
    }),
  );
  const plan = planned.plan;
  const input = (p: RolloutPlan) => ({ cp, spec, specErrors: errors, resolved, children, related, previous, credential, parentAnnotations: reading.annotations, now: context.now, random: context.random, rollout: stageView(p) });
  const run = (p: RolloutPlan) => runPipeline(input(p), undefined, previousUnapplied);
  let result = run(plan);
  const step = finishRollout(plan, result.decided, context.now, result.resyncAfterSeconds);
  let update: RolloutOutcome;
  let verification = planned.pass;
  if (step.kind === 'moved') {
    // The rollout entered a new phase: the stages run again so the answer projects that phase
    // (at most one phase per answer: the entered phase's exit is tested on the next call).
    const entered = verifying(step.plan);
    verification = entered.pass;
    result = run(entered.plan);
    update = stayed(entered.plan, context.now, result.resyncAfterSeconds);
  } else update = step.outcome;
  // The Job of a rollout that just left Verifying stays for this answer; later ones release it.
  const leftVerifying = step.kind === 'moved' && plan.memory.phase === 'Verifying';
  const verified = withVerificationChildren(result.children, cp, verification?.children, leftVerifying);
  for (const trace of result.trace) context.onStage?.(trace);
  // An OpenBao that lost what it held (openbao-backups.ts): every backup pushed again, named in Ready.
  const openBao = recoverOpenBao(verified.children, children, secretStoreReady(related));
  const response: CompositeHookResponse = {
    status: buildStatus({ ...statusBase, decided: result.decided, unapplied: result.unapplied, update, openBao: openBao.report }),
    children: openBao.children,
  };
  const resync = update.resyncAfterSeconds ?? result.resyncAfterSeconds;
  if (resync !== undefined) response.resyncAfterSeconds = resync;
  return response;
}

