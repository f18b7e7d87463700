// The release rollout (docs/architecture.md §6.1, docs/hooks.md "Release upgrades"), stateless: the
// phase and everything it needs live in the ControlPlane's status (rollout-state.ts). Each sync
// calls `planRollout` before the stage pipeline (which image the Keystone stage projects, whether
// a re-mint may start) and `finishRollout` after it (the phase's exit test on what the pipeline
// decided). An answer moves at most one phase, so every phase is visible in status:
//
//   Idle ─(release/image change, path allowed)→ Validating → UpdatingInfra → UpdatingKeystone
//     → UpdatingServices → Verifying → Complete → Idle
//   any waiting phase ─(deadline, terminal failure)→ RollingBack → Idle (held: Ready=False RolledBack)
//
// A refused path (downgrade, non-SLURP skip, unparsable release) starts nothing: the running
// release stays projected and KeystoneReady is False with the refusal's reason.
import { SERVICES } from '../../api/services/index.js';
import type { ControlPlaneSpec } from '../../api/controlplane.js';
import { DEFAULTS } from '../../api/controlplane.js';
import { secondsSince, type Condition, type ConditionDecision } from '../../k8s/conditions.js';
import { durationSeconds } from '../../k8s/duration.js';
import type { KubeObject } from '../../k8s/observed.js';
import { at } from '../../k8s/read.js';
import { CONDITION, REASON, REQUEUE, type Reason } from '../conditions.js';
import type { KeystoneDirective } from '../stage.js';
import { KEYSTONE_IMAGE_REPOSITORY, effectiveKeystoneImage } from '../keystone-spec.js';
import { checkPath, parseRelease } from './release-path.js';
import {
  inRollout,
  pathText,
  readImage,
  sameTarget,
  type LastUpdate,
  type Rollout,
  type RolloutMemory,
  type RolloutVerification,
  type Target,
  type UpdatePhase,
} from './rollout-state.js';

/** What the Keystone stage projects and how it words KeystoneReady while a rollout is involved. */

export interface RolloutPlan {
  /** The memory after this pass's spec-driven transitions (start, restart, cancel). */
  memory: RolloutMemory;
  /** Undefined: the Keystone stage projects the spec as it is. */
  keystone?: KeystoneDirective;
  /** Set while a rollout runs: a re-mint does not start (credential/mint.ts), with this note. */
  holdReMint?: string;
  /**
   * The release the services beside Keystone run this pass (docs/architecture.md §6.1): the running
   * one until UpdatingServices, the target from then on; undefined: the spec's.
   */
  servicesRelease?: string;
  /**
   * UpdatingServices only: the release the services leave. They move to servicesRelease one by one
   * in SERVICES order (upstream's: Glance, Placement, Neutron, Cinder, Nova), each once every
   * declared service before it is Ready on it (services/stage.ts projectedRelease).
   */
  servicesFrom?: string;
  /** The conditions of the declared services beside Keystone: UpdatingServices waits for them. */
  services?: readonly string[];
  /** What the spec asks Keystone to run (undefined for an unreadable release). */
  target?: Target;
  /** The running release when nothing runs a rollout (services[keystone].release). */
  release?: string;
  deadlineSeconds: number;
  /** The Ready aggregate while held after a rollback. */
  ready?: ConditionDecision;
  /**
   * Verifying with spec.verification.tempest (verification.ts): the Job's verdict this pass, and the
   * Tempest deadline, which is the phase's (withVerification).
   */
  verification?: { verdict: RolloutVerification; deadline: string };
  /**
   * No exit is tested this answer: the phase was entered with it (each phase is shown before its
   * exit is tested), or the spec's release is unreadable.
   */
  entered?: boolean;
  generation: number;
}

export interface RolloutInput {
  spec: ControlPlaneSpec;
  generation: number;
  /** The rollout as the previous status left it (request-reading.ts). */
  previous: RolloutMemory;
  /** The observed {cp}-keystone child (what runs). */
  observedKeystone: KubeObject | undefined;
  /** Read only when a rollout starts or is cancelled (a ControlPlane at rest plans without the clock). */
  now: () => Date;
}


/** spec.rolloutDeadline in seconds: whole h/m/s components between 1m and 24h; undefined otherwise. */
export function deadlineSeconds(text: unknown): number | undefined {
  const seconds = durationSeconds(text);
  return seconds !== undefined && seconds >= 60 && seconds <= 86400 ? seconds : undefined;
}

/** The release and image the spec asks Keystone to run; undefined when the release is unreadable. */
export function targetOf(spec: ControlPlaneSpec): Target | undefined {
  if (!parseRelease(spec.openStackRelease) || spec.services?.keystone === undefined) return undefined;
  return { release: spec.openStackRelease, image: effectiveKeystoneImage(spec) };
}

/**
 * What runs now, when no rollout is recorded: the observed Keystone child's image and the release
 * status last reported (else the image's tag when it is the default image, else the target's).
 * Undefined without an observed Keystone (a first install is not an upgrade).
 */
function runningOf(memory: RolloutMemory, observed: KubeObject | undefined, target: Target): Target | undefined {
  const image = readImage(at(observed, 'spec', 'image'));
  if (!image) return undefined;
  const tagRelease = image.repository === KEYSTONE_IMAGE_REPOSITORY && parseRelease(image.tag) ? image.tag : undefined;
  return { release: memory.release ?? tagRelease ?? target.release, image };
}

const phaseNote = (phase: UpdatePhase, r: Rollout) => `upgrade ${pathText(r.from, r.to)}: ${phase}`;

function directiveFor(phase: UpdatePhase, r: Rollout): KeystoneDirective {
  switch (phase) {
    case 'UpdatingKeystone':
      return { image: r.to.image, waitingReason: REASON.UpdatingKeystone, note: phaseNote(phase, r) };
    case 'UpdatingServices':
    case 'Verifying':
      return { image: r.to.image, note: phaseNote(phase, r) };
    case 'RollingBack':
      return { image: r.from.image, waitingReason: REASON.RollingBack, note: `rolling back to ${r.from.release} after the failed ${phaseNote(phase, r)} (${r.failure?.reason ?? 'failed'})` };
    default:
      // Validating, UpdatingInfra: the running release stays until UpdatingKeystone.
      return { image: r.from.image, note: phaseNote(phase, r) };
  }
}

const startRollout = (from: Target, to: Target, generation: number, now: Date): Rollout => ({
  from,
  to,
  startedAt: now.toISOString(),
  phaseStartedAt: now.toISOString(),
  generation,
});

function record(r: Rollout, result: LastUpdate['result'], now: Date, generation: number, why?: { reason: string; message: string }): LastUpdate {
  const last: LastUpdate = { from: r.from, to: r.to, result, startedAt: r.startedAt, finishedAt: now.toISOString(), generation };
  if (why) {
    last.reason = why.reason;
    last.message = why.message;
  }
  return last;
}

/** The Ready aggregate after a rollback, until the spec changes. */
function rolledBack(from: Target, to: Target, why: { reason?: string; message?: string }): ConditionDecision {
  return {
    status: 'False',
    reason: REASON.RolledBack,
    message:
      `The upgrade to ${pathText(from, to).split(' → ')[1]} was rolled back (${why.reason ?? 'failed'}: ${why.message ?? 'no detail'}); ` +
      `the ControlPlane holds ${from.release} until its spec changes again`,
  };
}

/** At rest after a rollback: the last known-good release projected, Ready False RolledBack. */
function holdPlan(base: Omit<RolloutPlan, 'memory'>, last: LastUpdate): RolloutPlan {
  return {
    ...base,
    memory: { phase: 'Idle', lastUpdate: last },
    release: last.from.release,
    keystone: { image: last.from.image, note: `holding ${last.from.release}: the upgrade to ${last.to.release} was rolled back` },
    servicesRelease: last.from.release,
    ready: rolledBack(last.from, last.to, last),
  };
}

/** The rolled-back target stays refused until the spec changes (its generation moves). */
function held(last: LastUpdate | undefined, target: Target, generation: number): last is LastUpdate {
  return last !== undefined && last.result === 'RolledBack' && sameTarget(last.to, target) && last.generation === generation;
}

function inProgress(phase: UpdatePhase, r: Rollout, base: Omit<RolloutPlan, 'memory'>, memory: RolloutMemory, entered = false): RolloutPlan {
  const m: RolloutMemory = { ...memory, phase, rollout: r };
  const servicesRelease = phase === 'UpdatingServices' || phase === 'Verifying' ? r.to.release : r.from.release;
  const plan: RolloutPlan = { ...base, memory: m, keystone: directiveFor(phase, r), holdReMint: `a release rollout is in progress (${phaseNote(phase, r)})`, servicesRelease };
  if (phase === 'UpdatingServices') plan.servicesFrom = r.from.release;
  if (entered) plan.entered = true;
  return plan;
}

function refuse(running: Target, reason: Reason, message: string, base: Omit<RolloutPlan, 'memory'>, memory: RolloutMemory): RolloutPlan {
  const m: RolloutMemory = { phase: 'Idle' };
  if (memory.lastUpdate) m.lastUpdate = memory.lastUpdate;
  return {
    ...base,
    memory: m,
    release: running.release,
    servicesRelease: running.release,
    keystone: { image: running.image, refusal: { reason, message: `${message}; Keystone stays at ${running.release}` }, note: '' },
  };
}

/** DEFAULTS.rolloutDeadline (15m) in seconds: what an unreadable deadline falls back to. */
const DEFAULT_DEADLINE_SECONDS = deadlineSeconds(DEFAULTS.rolloutDeadline) ?? 15 * 60;

export function planRollout(input: RolloutInput): RolloutPlan {
  const previous = input.previous;
  const declared = SERVICES.filter((d) => input.spec.services?.[d.name] !== undefined).map((d) => d.conditionType);
  const base = {
    deadlineSeconds: deadlineSeconds(input.spec.rolloutDeadline) ?? DEFAULT_DEADLINE_SECONDS,
    generation: input.generation,
    ...(declared.length > 0 ? { services: declared } : {}),
  };
  const target = targetOf(input.spec);
  // An unreadable release (the Keystone stage reports InvalidSpec): the rollout is carried over
  // untouched and does not advance (no exit is tested) until the spec is readable again.
  if (!target) {
    const carried: RolloutPlan = { ...base, memory: previous, release: previous.release, entered: true };
    if (previous.rollout) carried.keystone = directiveFor(previous.phase, previous.rollout);
    return carried;
  }
  const withTarget = { ...base, target };
  const r = previous.rollout;

  if (r && inRollout(previous.phase)) {
    // A rollback runs to its end; the spec change it saw is honoured afterwards (generation moved).
    if (previous.phase === 'RollingBack' || sameTarget(target, r.to)) return inProgress(previous.phase, r, withTarget, previous);
    if (sameTarget(target, r.from)) {
      // The spec went back to what runs: the rollout is cancelled and the running release projected.
      return { ...withTarget, memory: { phase: 'Idle', lastUpdate: record(r, 'Cancelled', input.now(), input.generation) }, release: r.from.release };
    }
    // A new target during a rollout starts over from the running (last known-good) release.
    const path = checkPath(r.from.release, target.release);
    if (!path.ok) return refuse(r.from, path.reason, path.message, withTarget, previous);
    return inProgress('Validating', startRollout(r.from, target, input.generation, input.now()), withTarget, previous, true);
  }

  const rest: RolloutMemory = { phase: 'Idle' };
  if (previous.lastUpdate) rest.lastUpdate = previous.lastUpdate;
  const running = runningOf(previous, input.observedKeystone, target);
  if (!running || sameTarget(running, target)) return { ...withTarget, memory: rest, release: target.release };
  if (held(previous.lastUpdate, target, input.generation)) {
    return holdPlan(withTarget, previous.lastUpdate);
  }
  const path = checkPath(running.release, target.release);
  if (!path.ok) return refuse(running, path.reason, path.message, withTarget, previous);
  return inProgress('Validating', startRollout(running, target, input.generation, input.now()), withTarget, rest, true);
}

export interface RolloutOutcome {
  memory: RolloutMemory;
  /** services[keystone].release. */
  release: string | undefined;
  /** Overrides the Ready aggregate (while a rollout runs, and while held after a rollback). */
  ready?: ConditionDecision;
  /** When to look again (undefined: the pipeline's own). */
  resyncAfterSeconds?: number;
}

const isTrue = (decided: ReadonlyMap<string, Condition>, type: string) => decided.get(type)?.status === 'True';
const reasonOf = (decided: ReadonlyMap<string, Condition>, type: string) => decided.get(type)?.reason;

/** The reasons that are a terminal failure of the phase, not a wait. */
const KEYSTONE_TERMINAL = new Set<string>([REASON.KeystoneError]);
const VERIFY_TERMINAL = new Set<string>([REASON.ApplicationCredentialFailed, REASON.CatalogFailed]);

type Exit = { next: UpdatePhase } | { fail: { reason: string; message: string } } | undefined;

function exitOf(
  phase: UpdatePhase,
  r: Rollout,
  decided: ReadonlyMap<string, Condition>,
  overdue: boolean,
  deadline: string,
  services: readonly string[],
  verification: RolloutPlan['verification'],
): Exit {
  const late = (what: string) => ({ fail: { reason: REASON.UpdateDeadlineExceeded, message: `${what} within ${deadline}` } });
  switch (phase) {
    case 'Validating':
      return { next: 'UpdatingInfra' };
    case 'UpdatingInfra':
      if (isTrue(decided, CONDITION.Infrastructure)) return { next: 'UpdatingKeystone' };
      return overdue ? late(`the infrastructure did not report Ready for ${r.to.release}`) : undefined;
    case 'UpdatingKeystone': {
      if (isTrue(decided, CONDITION.Keystone)) return { next: 'UpdatingServices' };
      const reason = reasonOf(decided, CONDITION.Keystone);
      if (reason !== undefined && KEYSTONE_TERMINAL.has(reason)) {
        return { fail: { reason: REASON.KeystoneUpdateFailed, message: `Keystone failed with ${pathText(r.from, r.to)}: ${decided.get(CONDITION.Keystone)?.message ?? ''}` } };
      }
      return overdue ? late(`Keystone did not report Ready at its new generation with ${pathText(r.from, r.to)}`) : undefined;
    }
    case 'UpdatingServices': {
      // Every declared service beside Keystone Ready on the new release (none declared: at once).
      if (services.every((t) => isTrue(decided, t))) return { next: 'Verifying' };
      return overdue ? late(`the services (${services.filter((t) => !isTrue(decided, t)).join(', ')}) did not report Ready on ${r.to.release}`) : undefined;
    }
    case 'Verifying': {
      const chain = [CONDITION.Keystone, CONDITION.KORC, CONDITION.AdminCredential, CONDITION.Catalog];
      const verdict = verification?.verdict;
      if (chain.every((t) => isTrue(decided, t)) && (verdict === undefined || verdict.state === 'Succeeded')) return { next: 'Complete' };
      const broken = chain.filter((t) => VERIFY_TERMINAL.has(reasonOf(decided, t) ?? ''));
      if (broken.length > 0) {
        return { fail: { reason: REASON.VerificationFailed, message: broken.map((t) => `${t}: ${decided.get(t)?.message ?? ''}`).join('; ') } };
      }
      if (verdict?.state === 'Failed') return { fail: { reason: REASON.VerificationFailed, message: `Tempest on ${r.to.release}: ${verdict.message ?? `Job ${verdict.job} failed`}` } };
      if (!overdue) return undefined;
      // Tempest's deadline is a verdict like its failure: the Job did not pass in time.
      if (verdict) return { fail: { reason: REASON.VerificationFailed, message: `Tempest on ${r.to.release}: Job ${verdict.job} did not complete within ${deadline}` } };
      const notYet = chain.filter((t) => !isTrue(decided, t));
      return late(`the credential chain (${notYet.join(', ')}) did not verify on ${r.to.release}`);
    }
    case 'RollingBack':
      return isTrue(decided, CONDITION.Keystone) ? { next: 'Idle' } : undefined;
    default:
      return undefined;
  }
}

function durationText(seconds: number): string {
  if (seconds % 3600 === 0) return `${seconds / 3600}h`;
  if (seconds % 60 === 0) return `${seconds / 60}m`;
  return `${seconds}s`;
}

/**
 * The result of a phase's exit test: the outcome to write, or (the phase moved) the plan of the
 * phase entered, with which the caller runs the stages once more so that the answer projects what
 * the new phase projects (the rollback's old image in the very answer that says RollingBack).
 */
export type RolloutStep = { kind: 'outcome'; outcome: RolloutOutcome } | { kind: 'moved'; plan: RolloutPlan };

const inProgressReady = (phase: UpdatePhase, rollout: Rollout): ConditionDecision =>
  phase === 'RollingBack'
    ? { status: 'False', reason: REASON.RollingBack, message: `Rolling back the ${phaseNote(phase, rollout)} to ${rollout.from.release}: ${rollout.failure?.message ?? ''}` }
    : { status: 'False', reason: REASON.UpdateInProgress, message: `Updating: ${phaseNote(phase, rollout)}` };

/** The status a plan leads to when its phase stays (no exit tested, or none taken). */
export function stayed(plan: RolloutPlan, now: () => Date, pipelineResync: number | undefined): RolloutOutcome {
  const memory = plan.memory;
  const r = memory.rollout;
  if (!r || !inRollout(memory.phase)) {
    const outcome: RolloutOutcome = { memory, release: plan.release };
    if (plan.ready) outcome.ready = plan.ready;
    // Complete is shown for one answer, then the rollout rests at Idle.
    if (memory.phase === 'Complete') outcome.resyncAfterSeconds = REQUEUE.rollout;
    return outcome;
  }
  const left = Math.max(1, plan.deadlineSeconds - (secondsSince(r.phaseStartedAt, now) ?? 0));
  const resync = plan.entered
    ? REQUEUE.rollout
    : memory.phase === 'RollingBack'
      ? pipelineResync ?? REQUEUE.keystone
      : Math.min(pipelineResync ?? REQUEUE.keystone, left);
  return { memory, release: r.from.release, ready: inProgressReady(memory.phase, r), resyncAfterSeconds: resync };
}

/** The phase's exit test on what the pipeline decided this pass. */
export function finishRollout(plan: RolloutPlan, decided: ReadonlyMap<string, Condition>, now: () => Date, pipelineResync: number | undefined): RolloutStep {
  const memory = plan.memory;
  const r = memory.rollout;
  const base = { deadlineSeconds: plan.deadlineSeconds, generation: plan.generation, ...(plan.target ? { target: plan.target } : {}), ...(plan.services ? { services: plan.services } : {}) };
  const exit =
    !r || !inRollout(memory.phase) || plan.entered
      ? undefined
      : exitOf(memory.phase, r, decided, (secondsSince(r.phaseStartedAt, now) ?? 0) >= plan.deadlineSeconds, plan.verification?.deadline ?? durationText(plan.deadlineSeconds), plan.services ?? [], plan.verification);
  if (exit === undefined || !r) return { kind: 'outcome', outcome: stayed(plan, now, pipelineResync) };
  if ('fail' in exit) {
    const failing: Rollout = { ...r, phaseStartedAt: now().toISOString(), generation: plan.generation, failure: exit.fail };
    return { kind: 'moved', plan: inProgress('RollingBack', failing, base, memory, true) };
  }
  const next = exit.next;
  if (next === 'Complete') {
    const m: RolloutMemory = { phase: 'Complete', lastUpdate: record(r, 'Complete', now(), plan.generation) };
    return { kind: 'moved', plan: { ...base, memory: m, release: r.to.release } };
  }
  if (next === 'Idle') {
    // The rollback is done: Keystone runs the last known-good release again; the target is held.
    return { kind: 'moved', plan: holdPlan(base, record(r, 'RolledBack', now(), r.generation, r.failure)) };
  }
  return { kind: 'moved', plan: inProgress(next, { ...r, phaseStartedAt: now().toISOString() }, base, memory, true) };
}

/**
 * The plan with the verification's verdict of this pass (verification.ts): status.rollout names it,
 * the phase's exit reads it, and the Tempest deadline is the phase's.
 */
export function withVerification(plan: RolloutPlan, verdict: RolloutVerification, deadlineSeconds: number, deadline: string): RolloutPlan {
  const r = plan.memory.rollout;
  if (!r || plan.memory.phase !== 'Verifying') return plan;
  return { ...plan, deadlineSeconds, verification: { verdict, deadline }, memory: { ...plan.memory, rollout: { ...r, verification: verdict } } };
}

/** The rollout as the previous status left it, for answers that do not advance it (finalize, a parked duplicate). */
export function carriedRollout(memory: RolloutMemory, spec: ControlPlaneSpec): RolloutOutcome {
  return { memory, release: memory.release ?? (typeof spec.openStackRelease === 'string' ? spec.openStackRelease : undefined) };
}

/** What the stages see of a plan (StageInput.rollout). */
export function stageView(plan: RolloutPlan): { keystone?: KeystoneDirective; holdReMint?: string; servicesRelease?: string; servicesFrom?: string } {
  return {
    ...(plan.keystone ? { keystone: plan.keystone } : {}),
    ...(plan.holdReMint !== undefined ? { holdReMint: plan.holdReMint } : {}),
    ...(plan.servicesRelease !== undefined ? { servicesRelease: plan.servicesRelease } : {}),
    ...(plan.servicesFrom !== undefined ? { servicesFrom: plan.servicesFrom } : {}),
  };
}
