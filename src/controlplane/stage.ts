// The contract every stage of the sync pipeline fulfils (docs/architecture.md §2): a pure function of the
// request, the clock and the conditions already decided in this pass.
import type { ControlPlaneSpec } from '../api/controlplane.js';
import type { Condition } from '../k8s/conditions.js';
import type { Decision, Reason, StageConditionType, SubConditionType } from './conditions.js';
import type { KubeObject, ObjectIndex } from '../k8s/observed.js';
import type { AdminApplicationCredentialStatus as CredentialStatus } from '../api/controlplane.js';
import type { ResolvedSpec } from './spec.js';
import type { ControlPlaneRef } from './ref.js';

/** What a release rollout tells the Keystone stage this pass (rollout/rollout.ts decides it). */
export interface KeystoneDirective {
  image: { repository: string; tag: string };
  /** The path is refused: the stage fails with this condition (still projecting `image`, the running one). */
  refusal?: { reason: Reason; message: string };
  /** KeystoneReady's reason while Keystone is not Ready as projected (instead of WaitingForKeystone). */
  waitingReason?: Reason;
  /** Appended to KeystoneReady's message: what the rollout is doing. */
  note: string;
}

export interface StageInput {
  cp: ControlPlaneRef;
  /** The spec with schema defaults applied. */
  spec: ControlPlaneSpec;
  /** Schema violations of the spec, each `spec.<path>: problem`. */
  specErrors: string[];
  /** The parts of the spec the stages use, resolved once (spec.ts): usable, or why not. */
  resolved: ResolvedSpec;
  /** Observed children (owned by this ControlPlane). */
  children: ObjectIndex;
  /** Related objects (customize). */
  related: ObjectIndex;
  /** Conditions decided earlier in this pass, by type. */
  decided: ReadonlyMap<string, Condition>;
  /** The previous status' conditions, by type. */
  previous: ReadonlyMap<string, Condition>;
  /** status.adminApplicationCredential as this response reports it. */
  credential: CredentialStatus | undefined;
  /** The ControlPlane's annotations (the guarded removal of a service, docs/architecture.md §2.13). */
  parentAnnotations?: Readonly<Record<string, string>>;
  /** The call's clock: calling it is the read (a stage that only hands it on reads nothing). */
  now: () => Date;
  random: (bytes: number) => Buffer;
  /** A release rollout's say in this pass (rollout/rollout.ts); absent when none is involved. */
  rollout?: {
    /** The image the Keystone stage projects and how KeystoneReady words the rollout. */
    keystone?: KeystoneDirective;
    /** While a rollout runs no re-mint starts (credential/mint.ts), with this note. */
    holdReMint?: string;
    /** The release the services beside Keystone project (the running one until UpdatingServices). */
    servicesRelease?: string;
    /** UpdatingServices: the release the services leave, one by one in SERVICES order (rollout/rollout.ts). */
    servicesFrom?: string;
  };
}

export type StageOutcome =
  /** The seed's zero result: the chain continues. */
  | { kind: 'complete' }
  /** The seed's requeue: the chain stops here and asks to be called again. */
  | { kind: 'waiting'; requeueSeconds: number }
  /** The seed's error return: the desired state cannot be built from this input. */
  | { kind: 'failed'; requeueSeconds: number };

export interface StageResult {
  condition: Decision;
  outcome: StageOutcome;
  /** Children this stage desires; observed children it leaves out are kept as they are. */
  children: KubeObject[];
  /**
   * Observed children this stage deliberately lets Metacontroller delete (identities). Only the
   * re-mint of the admin ApplicationCredential does this.
   */
  releases?: string[];
  /**
   * A complete stage's next deadline in seconds (scheduled rotation): the pass asks to be called
   * back then, unless a stage waiting asks for sooner.
   */
  resyncAfterSeconds?: number;
}

export interface Stage {
  /** The seed's sub-reconciler name (metric label `sub_reconciler`). */
  name: string;
  /** The one condition the stage owns. */
  conditionType: StageConditionType;
  /** Spec paths the stage reads: a schema error under one of them fails this stage. */
  reads: string[];
  /** Seconds to wait before the next pass while this stage is waiting or failed. */
  interval: number;
  /**
   * A sibling (the service stages, docs/architecture.md §2.13) that is not complete does not stop
   * the chain for the siblings after it; it still asks for its interval.
   */
  sibling?: boolean;
  /**
   * An aside stage (docs/architecture.md §2.15) runs on every pass, wherever the chain stopped,
   * and never stops it or asks for a resync; it runs only when `applies` (its condition is then in
   * the status; otherwise the status has none). Its condition is outside the Ready aggregate.
   */
  aside?: { applies(input: StageInput): boolean };
  run(input: StageInput): StageResult;
}

export const complete = (): StageOutcome => ({ kind: 'complete' });
export const waiting = (requeueSeconds: number): StageOutcome => ({ kind: 'waiting', requeueSeconds });
export const failed = (requeueSeconds: number): StageOutcome => ({ kind: 'failed', requeueSeconds });

/**
 * A stage's condition gate (docs/architecture.md §2.2): while `conditionType` is not True this pass,
 * the stage waits with `reason` and creates or changes nothing (its observed children are kept).
 */
export function gate(input: StageInput, conditionType: SubConditionType, reason: Reason, requeueSeconds: number): StageResult | undefined {
  if (input.decided.get(conditionType)?.status === 'True') return undefined;
  return { condition: { status: 'False', reason, message: `Waiting for ${conditionType}` }, outcome: waiting(requeueSeconds), children: [] };
}
