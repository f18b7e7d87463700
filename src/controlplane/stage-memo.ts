// Stage results kept by what each stage reads (issue 43): a request that differs from the last one
// anywhere (a resourceVersion, an ESO refresh time) is computed, not answered from the answer kept
// for its bytes (http/kept-answers.ts), yet what each stage reads of a ControlPlane's request
// mostly stays the same from one call to the next.
//
// A stage is a pure function of its input (stage.ts). It declares what it reads of the request
// (Stage.observes: the kinds of observed children and related objects it looks at; the spec is
// read whole) and the rest of its input is this call's: the clock, the random source, the
// credential status, the rollout's say, the parent's annotations and the conditions decided earlier
// in the pass. The kept result of a stage of a ControlPlane (by uid, namespace and name) answers a
// later call when
// - the call's key is the key it was computed with: the ControlPlane's generation, its spec (the
//   raw spec, exactly: exactKey), its previous unapplied children, and the digest of every object
//   of each declared kind (ObjectIndex.kindDigest: the SHA-256 of the texts the objects were parsed
//   from, k8s/request-source.ts); a request the hook routes' parser did not note (an in-process
//   caller's) has no key, and every stage is computed;
// - every value the stage read of the call's own input is the same in this call: the decided
//   conditions it looked up, the rollout, the credential status, the annotations (recorded as
//   they are read, exactKey). What calls the clock or the random source is never kept.
// A stage sees only what it declared: its children and related objects are views of the declared
// kinds (DeclaredIndex); a look at another kind answers as the whole index would and leaves the
// result unkept, and test/stage-reads.test.ts fails on it. The unapplied-children tracking of the
// stage's children (unapplied.ts) is kept with the result when it did not read the clock (its
// children are of declared kinds, or nothing is kept).
//
// Kept packed: a ControlPlane's kept results are one deflated text (Packed), each result in it
// serialized when it was kept (v8.serialize: every value as it was, undefined, -0 and non-finite
// numbers too). A compute cloud's take about 7 KiB where their objects took about 72 KiB of heap,
// and they are a few objects for the garbage collector to mark, not thousands: a fleet of 3,000
// fits. A call unpacks its ControlPlane's once, at its first lookup, and each result it is
// answered with is a copy of its own, frozen through (as a shared result was), whose children
// stand for their places in the packed text (memo.ts standFor): what the redaction found clean of
// one copy holds for the next call's. What a call keeps is packed at its end (StageMemo.end), with
// the results it found. Bounded: the results of STAGE_MEMO_CONTROLPLANES ControlPlanes (least
// recently used first out), and none while the bodies in flight take more than half the in-flight
// budget (memo.ts memoryPressure).
// Once full, a ControlPlane's results take a new place only when it was called recently (admits,
// by a ghost list of the ControlPlanes called: memo.ts Sightings, as the kept answers'): a fleet
// larger than the memo, resynced in turn, would otherwise push every result out before its
// ControlPlane comes again, and pay for keeping it (serializing and deflating it) on every call
// for no hit. Refused, those calls are computed as they would be with
// the memo off, and the ControlPlanes already kept go on being answered.
import { hash } from 'node:crypto';
import type { Condition } from '../k8s/conditions.js';
import { ObjectIndex, type KubeObject } from '../k8s/observed.js';
import type { KindInfo } from '../k8s/kinds.js';
import { BoundedMemo, countLookup, deepFreeze, exactKey, MEMO, memoOn, packAll, packValue, Sightings, standFor, unpackAll, unpackValue } from '../memo.js';
import type { Stage, StageInput, StageResult } from './stage.js';
import type { Unapplied } from './unapplied.js';
import type { ControlPlaneRef } from './ref.js';
import type { StageRunner } from './pipeline.js';

/** What a stage read of its call's own input, beyond its key. */
export interface StageReads {
  /** Each decided condition it looked up, exactly (`undefined` when none was decided). */
  decided: Map<string, string | undefined>;
  /** input.rollout, input.credential and input.parentAnnotations exactly, when read. */
  rollout?: string;
  credential?: string;
  annotations?: string;
}

interface Kept {
  /** The key it was computed with (a digest: StageMemo.keyOf). */
  key: string;
  reads: StageReads;
  result: StageResult;
  /** The tracking of the result's children, when it did not read the clock. */
  unapplied?: Unapplied;
}

/** A ControlPlane's kept results as the memo holds them. */
interface Packed {
  /** Deflated: the v8.serialize of a Map from stage name to that stage's Kept, v8.serialize'd. */
  text: Buffer;
  /** What each child of a stage's copies stands for (standFor): one object per child, made at the first copy. */
  places: Map<string, object[]>;
}

/** What a call's key is made of (request-reading.ts reads it once per call). */
export interface StageKeyParts {
  cp: ControlPlaneRef;
  /** A digest of what every stage's key holds beside its kinds (the raw spec, the previous unapplied children). */
  common: string;
  children: ObjectIndex;
  related: ObjectIndex;
}

/**
 * How many ControlPlanes' stage results are kept: the fleet of 3,000 compute clouds the bench
 * measures at Metacontroller's pace (issue 43). Packed, a compute cloud's take about 7 KiB outside
 * the heap and 6 KiB in it (the places of its children, once looked up): measured in process at
 * 3,000 compute clouds, heap 78 MB and buffers 21 MB after two rounds, against 93 MB of heap with
 * 384 of them kept as objects. Of a larger fleet resynced in turn, the ControlPlanes kept first go
 * on being answered and the others are computed (admits).
 */
export const STAGE_MEMO_CONTROLPLANES = 3072;

/**
 * The packed texts held, in bytes, at most: 3,072 compute clouds take about 21 MiB. A ControlPlane
 * whose results pack larger than the whole budget is computed every call; larger ones push out
 * more of the others.
 */
export const STAGE_MEMO_BYTES = 32 * 1024 * 1024;

/** The stages' results by ControlPlane. */
const KEPT = new BoundedMemo<Packed>(STAGE_MEMO_CONTROLPLANES, { maxKeyBytes: STAGE_MEMO_BYTES, weigh: (p) => p.text.length, shed: MEMO.stageResult });
/** The last STAGE_MEMO_CONTROLPLANES ControlPlanes called (by ControlPlane). */
const RECENT = new Sightings(STAGE_MEMO_CONTROLPLANES);

/**
 * Whether a call of the ControlPlane `base` may keep results in a new place: while the memo has
 * room for a ControlPlane, or when the ControlPlane is among the last STAGE_MEMO_CONTROLPLANES
 * called (so its results would have stayed until now, least recently used first out). Notes the
 * call. A place the ControlPlane already holds is always reused (StageMemo.end): replacing its
 * results pushes nothing out by count.
 */
function admits(base: string): boolean {
  return RECENT.seen(base) || KEPT.size < STAGE_MEMO_CONTROLPLANES;
}

/** The kept stage results as one request's stages look them up: by ControlPlane, keyed by what each stage reads. */
export class StageMemo {
  private readonly base: string;
  /** Whether this call may keep results in new places (admits; begin decides it once per call, none before). */
  private admitting = false;
  /** This call's: its ControlPlane's packed results and, once unpacked, each stage's serialized Kept. */
  private packed: Packed | undefined;
  private unpacked: Map<string, Uint8Array> | undefined;
  /** What this call kept (serialized), packed at its end. */
  private kept: Map<string, Uint8Array> | undefined;

  constructor(private readonly parts: StageKeyParts) {
    const { cp } = parts;
    this.base = `${cp.uid}\u0000${cp.namespace}\u0000${cp.name}\u0000`;
  }

  /**
   * A pass of the pipeline (`run` is handed the runner to run its stages with) whose stages are
   * answered from the results kept for them, and whose results are kept by what each read unless
   * it read the clock or the random source; `onUndeclared` hears of each kind a stage looked at
   * without declaring it (Stage.observes: a test's probe).
   */
  pass<T>(run: (runStage: StageRunner) => T, onUndeclared?: (stage: Stage, where: 'children' | 'related', kind: string) => void): T {
    this.begin();
    const out = run((stage, input, compute, track) => {
      const key = this.keyOf(stage);
      const kept = this.lookup(stage, key, input);
      if (kept) return { result: kept.result, unapplied: kept.unapplied ?? track(kept.result, input.now) };
      const reads: StageReads = { decided: new Map() };
      let opaque = key === undefined;
      const result = compute(recordingInput(stage, input, reads, () => (opaque = true), (where, kind) => onUndeclared?.(stage, where, kind)));
      let clockRead = false;
      const unapplied = track(result, () => {
        clockRead = true;
        return input.now();
      });
      if (!opaque && key !== undefined) this.keep(stage, key, reads, result, clockRead ? undefined : unapplied);
      return { result, unapplied };
    });
    this.end();
    return out;
  }

  /** Starts a call (once per pass): whether it may keep results in new places is decided for the call (admits). */
  begin(): void {
    this.admitting = memoOn(MEMO.stageResult) ? admits(this.base) : false;
    this.packed = memoOn(MEMO.stageResult) ? KEPT.peek(this.base) : undefined;
    this.unpacked = undefined;
    this.kept = undefined;
  }

  /**
   * Ends a call (once the pass has every stage's result): what it kept is packed with the
   * results it found, and replaces its ControlPlane's (a place it already holds), or takes a new
   * place when admitted.
   */
  end(): void {
    const { kept } = this;
    this.kept = undefined;
    if (kept === undefined || (!this.admitting && this.packed === undefined)) return;
    const all = new Map([...this.stages(), ...kept]);
    // The places of the results it found stay theirs: the same serialized text.
    const places = new Map([...(this.packed?.places ?? [])].filter(([stage]) => !kept.has(stage)));
    KEPT.set(this.base, { text: packAll(all), places });
  }

  /** This call's ControlPlane's kept results by stage (serialized), unpacked at the first look. */
  private stages(): Map<string, Uint8Array> {
    this.unpacked ??= this.packed === undefined ? new Map() : unpackAll(this.packed.text);
    return this.unpacked;
  }

  /** This call's key for `stage` (a digest of what it is made of): undefined when an object it reads has no digest. */
  keyOf(stage: Stage): string | undefined {
    let key = `${this.parts.cp.generation}\n${this.parts.common}`;
    for (const [index, kinds] of [[this.parts.children, stage.observes.children], [this.parts.related, stage.observes.related]] as const) {
      key += '\n';
      for (const kind of kinds) {
        const digest = index.kindDigest(kind);
        if (digest === undefined) return undefined;
        key += digest;
      }
    }
    return hash('sha256', key, 'base64');
  }

  /** The kept result of `stage` when `key` is its key and this call's values hold every value it read; else undefined. */
  lookup(stage: Stage, key: string | undefined, input: Pick<StageInput, 'decided' | 'rollout' | 'credential' | 'parentAnnotations'>): Kept | undefined {
    const kept = key !== undefined && memoOn(MEMO.stageResult) ? this.matching(stage, key, input) : undefined;
    countLookup(MEMO.stageResult, kept !== undefined);
    return kept;
  }

  private matching(stage: Stage, key: string, input: Pick<StageInput, 'decided' | 'rollout' | 'credential' | 'parentAnnotations'>): Kept | undefined {
    const { packed } = this;
    const bytes = packed === undefined ? undefined : this.stages().get(stage.name);
    if (packed === undefined || bytes === undefined) return undefined;
    const kept = deepFreeze(unpackValue<Kept>(bytes));
    if (kept.key !== key) return undefined;
    const { reads } = kept;
    if (reads.rollout !== undefined && reads.rollout !== exactKey(input.rollout)) return undefined;
    if (reads.credential !== undefined && reads.credential !== exactKey(input.credential)) return undefined;
    if (reads.annotations !== undefined && reads.annotations !== exactKey(input.parentAnnotations)) return undefined;
    for (const [type, was] of reads.decided) if (conditionKey(input.decided.get(type)) !== was) return undefined;
    let places = packed.places.get(stage.name);
    if (places === undefined) packed.places.set(stage.name, (places = kept.result.children.map(() => ({}))));
    kept.result.children.forEach((child, i) => standFor(child, places[i] ?? child));
    return kept;
  }

  keep(stage: Stage, key: string, reads: StageReads, result: StageResult, unapplied: Unapplied | undefined): void {
    if (!memoOn(MEMO.stageResult)) return;
    if (!this.admitting && this.packed === undefined) return;
    // The tracking looks its children up among the observed ones: kept only when they are of declared kinds.
    const declared = new Set(stage.observes.children.map(kindKey));
    const tracked = unapplied !== undefined && result.children.every((c) => declared.has(`${c.apiVersion}|${c.kind}`)) ? { unapplied } : {};
    (this.kept ??= new Map()).set(stage.name, packValue({ key, reads, result, ...tracked }));
  }
}

const kindKey = (k: KindInfo) => `${k.apiVersion}|${k.kind}`;

/**
 * The objects of the declared kinds of an index, as a stage sees them: the same answers as the
 * index for those kinds; a look at any other kind (or at all of them) answers as the index would
 * and calls `onUndeclared` with the kind (`*` for all).
 */
export class DeclaredIndex extends ObjectIndex {
  private readonly declared: ReadonlySet<string>;

  constructor(
    private readonly index: ObjectIndex,
    kinds: readonly KindInfo[],
    private readonly onUndeclared: (kind: string) => void,
  ) {
    super(undefined);
    this.declared = new Set(kinds.map(kindKey));
  }

  private check(kind: string): void {
    if (!this.declared.has(kind)) this.onUndeclared(kind);
  }

  override get(kind: KindInfo, namespace: string | undefined, name: string): KubeObject | undefined {
    this.check(kindKey(kind));
    return this.index.get(kind, namespace, name);
  }

  override getById(id: string): KubeObject | undefined {
    // identity(): apiVersion|kind|namespace|name.
    this.check(id.split('|', 2).join('|'));
    return this.index.getById(id);
  }

  override ofKind(kind: KindInfo): KubeObject[] {
    this.check(kindKey(kind));
    return this.index.ofKind(kind);
  }

  override all(): KubeObject[] {
    this.onUndeclared('*');
    return this.index.all();
  }

  override ids(): string[] {
    this.onUndeclared('*');
    return this.index.ids();
  }

  override entries(): [string, KubeObject][] {
    this.onUndeclared('*');
    return this.index.entries();
  }

  override kindDigest(kind: KindInfo): string | undefined {
    return this.index.kindDigest(kind);
  }
}

/**
 * `input` as `stage` sees it, recording into `reads` what it reads of the call's own values;
 * `onOpaque` is called when it reads one whose result cannot be kept (a call of the clock or the
 * random source, the previous conditions, the decided conditions other than by type, or an undeclared
 * kind; `onUndeclared` also hears of the last).
 */
export function recordingInput(
  stage: Pick<Stage, 'observes'>,
  input: StageInput,
  reads: StageReads,
  onOpaque: () => void,
  onUndeclared: (where: 'children' | 'related', kind: string) => void = () => undefined,
): StageInput {
  const undeclared = (where: 'children' | 'related') => (kind: string) => {
    onUndeclared(where, kind);
    onOpaque();
  };
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
    children: new DeclaredIndex(input.children, stage.observes.children, undeclared('children')),
    related: new DeclaredIndex(input.related, stage.observes.related, undeclared('related')),
    decided,
    get previous() {
      onOpaque();
      return input.previous;
    },
    get parentAnnotations() {
      reads.annotations = exactKey(input.parentAnnotations);
      return input.parentAnnotations;
    },
    get credential() {
      reads.credential = exactKey(input.credential);
      return input.credential;
    },
    // Both handed on freely (a helper may take them and never call them): what is opaque is a call.
    now: () => {
      onOpaque();
      return input.now();
    },
    random: (bytes: number) => {
      onOpaque();
      return input.random(bytes);
    },
    get rollout() {
      reads.rollout = exactKey(input.rollout);
      return input.rollout;
    },
  };
}

const conditionKey = (c: Condition | undefined): string | undefined => (c === undefined ? undefined : exactKey(c));

