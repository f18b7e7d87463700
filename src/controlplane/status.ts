// The whole .status of a ControlPlane (Metacontroller replaces it, docs/architecture.md §2): the seven stage
// conditions (decided this pass, or as they were), the Ready aggregate recomputed on every
// response, observedGeneration, updatePhase, services and the admin credential. No per-call
// timestamps: a condition's lastTransitionTime moves only when its status does.
import type { ControlPlaneSpec } from '../api/controlplane.js';
import { decideCondition, type Condition } from '../k8s/conditions.js';
import type { CredentialStatus } from './credential/credential-status.js';
import { ASIDE_CONDITIONS, CONDITION, READY_MESSAGE, REASON, SERVICES_READY_MESSAGE, SUB_CONDITIONS, type Decision } from './conditions.js';
import { SERVICES, hasReference, referenceCondition, type Service } from '../api/services/index.js';
import { notManaged } from './services/projection.js';
import { referenceNotManaged } from './services/reference.js';
import type { ControlPlaneRef } from './ref.js';
import type { UnappliedChild } from './unapplied.js';
import { rolloutStatusFields } from './rollout/rollout-state.js';
import type { RolloutOutcome } from './rollout/rollout.js';
import { openBaoMessage, type OpenBaoReport } from './openbao-backups.js';


/** Ready aggregate: True/AllReady only when all seven sub-conditions are True. */
export function readyDecision(conditions: ReadonlyMap<string, Condition>): Decision {
  const notReady = SUB_CONDITIONS.filter((t) => conditions.get(t)?.status !== 'True');
  if (notReady.length === 0) return { status: 'True', reason: REASON.AllReady, message: READY_MESSAGE.all };
  return { status: 'False', reason: REASON.NotAllReady, message: `${READY_MESSAGE.notAll}: ${notReady.join(', ')}` };
}

const isDeclared = (spec: ControlPlaneSpec, d: Service) => spec.services?.[d.name] !== undefined;

/** The NotManaged condition of `type` when it is an undeclared service's or its reference's. */
function notManagedDecision(type: string, spec: ControlPlaneSpec): Decision | undefined {
  for (const d of SERVICES) {
    if (isDeclared(spec, d)) continue;
    if (d.conditionType === type) return notManaged(d);
    if (hasReference(d) && referenceCondition(d.reference) === type) return referenceNotManaged(d, d.reference);
  }
  return undefined;
}

/** ServicesReady (seed 002): True when every declared service beside Keystone is Ready (or none is declared). */
export function servicesReadyDecision(spec: ControlPlaneSpec, conditions: ReadonlyMap<string, Condition>): Decision {
  const declared = SERVICES.filter((d) => isDeclared(spec, d));
  if (declared.length === 0) return { status: 'True', reason: REASON.ServicesReady, message: SERVICES_READY_MESSAGE.none };
  const notReady = declared.filter((d) => conditions.get(d.conditionType)?.status !== 'True');
  if (notReady.length === 0) return { status: 'True', reason: REASON.ServicesReady, message: `${SERVICES_READY_MESSAGE.all}: ${declared.map((d) => d.name).join(', ')}` };
  return { status: 'False', reason: REASON.ServicesNotReady, message: `${SERVICES_READY_MESSAGE.notAll}: ${notReady.map((d) => d.conditionType).join(', ')}` };
}

export interface StatusInput {
  cp: ControlPlaneRef;
  spec: ControlPlaneSpec;
  /** status.adminApplicationCredential (credential/credential-status.ts). */
  credential: CredentialStatus | undefined;
  previous: ReadonlyMap<string, Condition>;
  /** Conditions decided this pass; every other sub-condition is carried over verbatim. */
  decided: ReadonlyMap<string, Condition>;
  now: () => Date;
  /** Overrides the Ready aggregate (the duplicate guard). */
  ready?: Decision;
  /** Children asked for and not yet observed as asked (omitted when none). */
  unapplied?: UnappliedChild[];
  /**
   * The release rollout after this pass (rollout/rollout.ts): updatePhase, rollout, lastUpdate,
   * the release Keystone runs, and the Ready aggregate while a rollout runs or after a rollback.
   */
  update?: RolloutOutcome;
  /** The OpenBao paths ExternalSecrets cannot read (openbao-backups.ts): named in a False Ready's message. */
  openBao?: OpenBaoReport | undefined;
}

export function buildStatus(input: StatusInput): Record<string, unknown> {
  const current = new Map<string, Condition>();
  for (const type of SUB_CONDITIONS) {
    let c = input.decided.get(type) ?? input.previous.get(type);
    // A service that is not declared (and the reference of one) is NotManaged from the first answer
    // on, whether or not its stage was reached: the condition set is the same in every mode
    // (docs/architecture.md §2.13).
    const idle = c === undefined ? notManagedDecision(type, input.spec) : undefined;
    if (idle) c = decideCondition(type, idle, undefined, input.cp.generation, input.now);
    if (c) current.set(type, c);
  }
  // Aside conditions (docs/architecture.md §2.15), outside the aggregates: as decided this pass, or
  // as they were while the spec still declares what they watch (a parked duplicate, finalize).
  const aside = ASIDE_CONDITIONS.flatMap((type) => {
    const c = input.decided.get(type) ?? (input.spec.infrastructure?.database?.backup !== undefined ? input.previous.get(type) : undefined);
    return c ? [c] : [];
  });
  const servicesReady = decideCondition(CONDITION.Services, servicesReadyDecision(input.spec, current), input.previous.get(CONDITION.Services), input.cp.generation, input.now);
  const aggregate = readyDecision(current);
  const rolloutReady = input.update?.ready;
  const decision =
    input.ready ??
    (rolloutReady
      ? { ...rolloutReady, message: aggregate.status === 'False' ? `${rolloutReady.message}; ${aggregate.message}` : rolloutReady.message }
      : aggregate);
  const ready = decideCondition(
    CONDITION.Ready,
    input.openBao && decision.status === 'False' ? { ...decision, message: `${decision.message}; ${openBaoMessage(input.openBao)}` } : decision,
    input.previous.get(CONDITION.Ready),
    input.cp.generation,
    input.now,
  );
  const keystone: Record<string, unknown> = { name: 'keystone', ready: current.get(CONDITION.Keystone)?.status === 'True' };
  // The release Keystone runs: the spec's at rest, the last known-good one during a rollout or after a rollback.
  const release = input.update ? input.update.release : input.spec.openStackRelease;
  if (typeof release === 'string') keystone.release = release;
  const services = [
    keystone,
    ...SERVICES.filter((d) => isDeclared(input.spec, d)).map((d) => ({
      name: d.name,
      ready: current.get(d.conditionType)?.status === 'True',
      ...(typeof release === 'string' ? { release } : {}),
    })),
  ];
  const status: Record<string, unknown> = {
    conditions: [...current.values(), servicesReady, ready, ...aside],
    observedGeneration: input.cp.generation,
    updatePhase: input.update?.memory.phase ?? 'Idle',
    services,
    ...(input.update ? rolloutStatusFields(input.update.memory) : {}),
  };
  if (input.credential) status.adminApplicationCredential = input.credential;
  if (input.unapplied && input.unapplied.length > 0) status.unappliedChildren = input.unapplied;
  return status;
}
