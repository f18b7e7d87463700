// Stage results kept with a remembered request (request-reading.ts): a converged ControlPlane is
// resynced with the same bytes call after call, and most stages answer it without the clock.
//
// A stage is a pure function of its input (stage.ts). For a request kept frozen by the server,
// the part of that input read from the request (cp, spec, specErrors, resolved, children, related,
// previous) is one set of objects, call after call; the rest is this call's: the clock, the random
// source, the credential status, the rollout's say, and the conditions decided earlier in the
// pass. The stage runs on an input that records what it reads of that rest:
// - the clock, the random source or the credential status: its result is this call's alone, and
//   nothing is kept;
// - the rollout's say and the decided conditions: their values are recorded with the result.
// The kept result answers a later call with the same request only when every recorded value is
// the same in that call, so a call gets exactly the result the stage would compute. The result is
// frozen through: it is shared by the calls it answers, as the request is.
//
// The same holds for the unapplied-children tracking of the stage's children (unapplied.ts): it
// reads the clock only when a child is unapplied, and is kept with the result when it did not.
import type { Condition } from '../k8s/conditions.js';
import { countLookup, deepFreeze, exactKey, MEMO, memoOn } from '../memo.js';
import type { StageInput, StageResult } from './stage.js';
import type { Unapplied } from './unapplied.js';

/** What a stage read of its call's own input, beyond the request. */
export interface StageReads {
  /** Each decided condition it looked up, as JSON (`undefined` when none was decided). */
  decided: Map<string, string | undefined>;
  /** input.rollout as JSON, when read. */
  rollout?: string;
}

interface Kept {
  reads: StageReads;
  result: StageResult;
  /** The tracking of the result's children, when it did not read the clock. */
  unapplied?: Unapplied;
}

/** The kept results of one remembered request's stages, by stage name. */
export class StageMemo {
  private readonly kept = new Map<string, Kept>();

  /** The kept result of `stage` when this call's values hold every value it read; else undefined. */
  lookup(stage: string, input: Pick<StageInput, 'decided' | 'rollout'>): Kept | undefined {
    const kept = memoOn(MEMO.stageResult) ? this.matching(stage, input) : undefined;
    countLookup(MEMO.stageResult, kept !== undefined);
    return kept;
  }

  private matching(stage: string, input: Pick<StageInput, 'decided' | 'rollout'>): Kept | undefined {
    const kept = this.kept.get(stage);
    if (kept === undefined) return undefined;
    if (kept.reads.rollout !== undefined && kept.reads.rollout !== rolloutKey(input.rollout)) return undefined;
    for (const [type, was] of kept.reads.decided) if (conditionKey(input.decided.get(type)) !== was) return undefined;
    return kept;
  }

  keep(stage: string, reads: StageReads, result: StageResult, unapplied: Unapplied | undefined): void {
    if (!memoOn(MEMO.stageResult)) return;
    this.kept.set(stage, deepFreeze({ reads, result, ...(unapplied ? { unapplied } : {}) }));
  }
}

/** A stage of a request that is not remembered, computed (a miss): undefined, as a lookup that found nothing. */
export function stageComputed(): undefined {
  countLookup(MEMO.stageResult, false);
  return undefined;
}

/**
 * `input` as a stage sees it, recording into `reads` what the stage reads of the call's own
 * values; `onOpaque` is called when it reads one whose result cannot be kept (the clock, the random
 * source, the credential status, or the decided conditions other than by type).
 */
export function recordingInput(input: StageInput, reads: StageReads, onOpaque: () => void): StageInput {
  const decided: ReadonlyMap<string, Condition> = {
    get(type: string) {
      const c = input.decided.get(type);
      reads.decided.set(type, conditionKey(c));
      return c;
    },
    has(type: string) {
      reads.decided.set(type, conditionKey(input.decided.get(type)));
      return input.decided.has(type);
    },
    get size() {
      onOpaque();
      return input.decided.size;
    },
    forEach(...args: Parameters<ReadonlyMap<string, Condition>['forEach']>) {
      onOpaque();
      input.decided.forEach(...args);
    },
    entries() {
      onOpaque();
      return input.decided.entries();
    },
    keys() {
      onOpaque();
      return input.decided.keys();
    },
    values() {
      onOpaque();
      return input.decided.values();
    },
    [Symbol.iterator]() {
      onOpaque();
      return input.decided[Symbol.iterator]();
    },
  };
  return {
    cp: input.cp,
    spec: input.spec,
    specErrors: input.specErrors,
    resolved: input.resolved,
    children: input.children,
    related: input.related,
    previous: input.previous,
    parentAnnotations: input.parentAnnotations,
    decided,
    get credential() {
      onOpaque();
      return input.credential;
    },
    get now() {
      onOpaque();
      return input.now;
    },
    get random() {
      onOpaque();
      return input.random;
    },
    get rollout() {
      reads.rollout = rolloutKey(input.rollout);
      return input.rollout;
    },
  };
}

const conditionKey = (c: Condition | undefined): string | undefined => (c === undefined ? undefined : exactKey(c));
const rolloutKey = (r: StageInput['rollout']): string => exactKey(r);
