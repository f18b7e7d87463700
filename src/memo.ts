// A small bounded memo for pure functions of their input (kept answers, clouds.yaml
// rendering and parsing, the secret values a Secret holds, …: MEMO). Not state: the same input gets
// the same answer whether or not it was remembered, so a hook stays a pure function of its request;
// the memo only saves recomputing what the previous calls (a converged ControlPlane's resyncs)
// already computed. Bounded by entry count, by what its keys and values weigh, and with every other
// memo by one budget (MEMO_BUDGET_BYTES); the least recently used entry goes first (approximately:
// see get). Values are shared between callers, so they are frozen (callers only read them). Entries
// live only in this process's memory: never logged, never exported as metrics (their sizes are).
import { deflateRawSync } from 'node:zlib';
import { MAX_JSON_DEPTH } from './k8s/json-depth.js';

interface Entry<V> {
  value: V;
  /** When the entry was last put at the newest end: puts so far, and what they took of `maxKeyBytes` so far (their sizes). */
  put: number;
  charsPut: number;
  /** What it takes of the `maxKeyBytes` budget: its key's characters and what `weigh` said of its value. */
  size: number;
}

/**
 * The memos an operator can watch in /metrics (c5c3_hooks_memo_lookups_total{memo,result}), named
 * once: whether each pays in their cluster shows as its hits against its misses.
 */
export const MEMO = {
  /** Answers to hook calls by their path and their body's digest, when they read neither clock nor random (http/kept-answers.ts). */
  answer: 'answer',
  /** Parsed last-applied annotations (k8s/observed.ts). */
  lastApplied: 'last_applied',
  /** clouds.yaml rendered and parsed (controlplane/credential/clouds-yaml.ts). */
  cloudsYaml: 'clouds_yaml',
  /** Secret values of captured documents (capture/secret-values.ts). */
  secretValues: 'secret_values',
  /** The needles of a request's secret values, and what was found clean of them (redaction.ts). */
  redaction: 'redaction',
} as const;
export type MemoName = (typeof MEMO)[keyof typeof MEMO];

/**
 * How many ControlPlanes one replica's content memos are sized for: the values they keep (a spec
 * read, a clouds.yaml rendered or parsed, a Secret value decoded, the redaction needles of a
 * ControlPlane's Secrets) stay the same while a ControlPlane is converged, so each is found again
 * on its next resync however many others resynced in between, as long as the memo holds the
 * whole fleet. Each memo is also bounded by the characters of its keys (memory, whatever the fleet).
 */
export const FLEET_MEMO_CONTROLPLANES = 1024;

/** Hits and misses of each named memo since the process started (counts only: never keys or values). */
const LOOKUPS = new Map<MemoName, { hit: number; miss: number }>(Object.values(MEMO).map((name) => [name, { hit: 0, miss: 0 }]));

/**
 * Memos switched off: none in service. The benchmark's memo table (bench/server.mjs) switches one
 * off at a time to measure what it saves; a memo switched off computes every lookup (a miss) and
 * keeps nothing new.
 */
const SWITCHED_OFF = new Set<MemoName>();

export function switchMemo(memo: MemoName, on: boolean): void {
  if (on) SWITCHED_OFF.delete(memo);
  else SWITCHED_OFF.add(memo);
}

export function memoOn(memo: MemoName): boolean {
  return !SWITCHED_OFF.has(memo);
}

/** Count one lookup of `memo`: answered from memory (`hit`) or computed. */
export function countLookup(memo: MemoName, hit: boolean): void {
  const counts = LOOKUPS.get(memo)!;
  if (hit) counts.hit++;
  else counts.miss++;
}

/** The lookups counted so far, by memo (metrics.ts reads them when scraped). */
export function memoLookups(): ReadonlyMap<MemoName, { readonly hit: number; readonly miss: number }> {
  return LOOKUPS;
}

/** Every memo of the process and their ghost lists (module singletons), so a test can start them afresh. */
const ALL_MEMOS = new Set<BoundedMemo<unknown>>();
const ALL_SIGHTINGS = new Set<Sightings>();

/**
 * One budget for what every memo of the process holds, in bytes as each weighs it (its keys'
 * characters and its values' weights, `maxKeyBytes`): each memo's own bound keeps it to its share,
 * and this keeps the sum of the shares (about 60 MiB) from being held at once, which only traffic
 * that fills every memo with large entries does: a fleet of 3,072 compute clouds keeps about
 * 18 MiB of answers (kept-answers.ts), the memo that holds the most. When a put takes the sum over
 * the budget, the memo fullest for its share gives up its oldest entries.
 */
export const MEMO_BUDGET_BYTES = 64 * 1024 * 1024;
let budget = MEMO_BUDGET_BYTES;
/** What every memo holds, in all (BoundedMemo.keyBytes summed). */
let heldBytes = 0;

/** What every memo of the process holds, in bytes as they weigh it. */
export function memoBytes(): number {
  return heldBytes;
}

/** Sets the budget (a test's: a small one shows who gives way); the service's is MEMO_BUDGET_BYTES. */
export function setMemoBudget(bytes: number): void {
  budget = bytes;
}

/**
 * Memory before speed. The memos that grow with the fleet (those built with `shed`) hold nothing
 * while the hook bodies in flight take more than half the in-flight budget (inflight.ts reports it through `memoryPressure`): those calls need the
 * heap for their parsed bodies and answers, and the budget's worst case (test/long/memory.test.ts)
 * is measured with these memos empty. Coming under pressure drops what they hold (counted by memo:
 * c5c3_hooks_memo_sheds_total); under it nothing new is kept. A memo only saves recomputing: the
 * answers stay the same, only the next calls cost more.
 */
/** The budgets over half (a process runs one server; a test may run several): under pressure while any is. */
let pressedBudgets = 0;
const SHEDS = new Map<MemoName, number>();

export function memoryPressure(pressed: boolean): void {
  const was = pressedBudgets > 0;
  pressedBudgets = Math.max(0, pressedBudgets + (pressed ? 1 : -1));
  if (was || pressedBudgets === 0) return;
  for (const memo of ALL_MEMOS) {
    if (memo.shedAs === undefined || memo.size === 0) continue;
    memo.forget();
    SHEDS.set(memo.shedAs, (SHEDS.get(memo.shedAs) ?? 0) + 1);
  }
}

/** How often each memo was dropped under memory pressure since the process started (metrics.ts). */
export function memoSheds(): ReadonlyMap<MemoName, number> {
  return SHEDS;
}

export class BoundedMemo<V> {
  /**
   * Forgets what every memo of the process remembers (each evicted key is reported to its
   * `onEvict`): the memo state of a fresh process, so a test can compare a warm answer with a
   * fresh one. Never called by the service.
   */
  static forgetAll(): void {
    for (const memo of ALL_MEMOS) memo.forget();
    for (const sightings of ALL_SIGHTINGS) sightings.forget();
  }

  /** In the order they were put: oldest first. */
  private readonly entries = new Map<string, Entry<V>>();
  private bytes = 0;
  private puts = 0;
  private charsPut = 0;

  private readonly maxKey: number;
  private readonly maxKeyBytes: number;
  private readonly weigh: ((value: V) => number) | undefined;
  private readonly onEvict: ((key: string) => void) | undefined;
  private readonly name: MemoName | undefined;
  /** Dropped under memory pressure (memoryPressure), counted under this name. */
  readonly shedAs: MemoName | undefined;

  /**
   * At most `limit` entries. `maxKey`: a key longer than this is computed every time, never
   * looked up or kept (nothing large is held for one caller). `maxKeyBytes`: the keys held, in
   * characters, in all (a memo of many texts is bounded by what it holds, not only by how many),
   * and with them what `weigh` says each value takes (a memo of large values: its bytes).
   * `onEvict`: told of each key the bounds push out. `name`: the lookups through `get` are
   * counted under it (countLookup); a key over `maxKey` counts as a miss. `shed`: a memo that grows
   * with the fleet, given back under memory pressure (memoryPressure) and counted under this name.
   */
  constructor(
    private readonly limit: number,
    bounds: { maxKey?: number; maxKeyBytes?: number; weigh?: (value: V) => number; onEvict?: (key: string) => void; name?: MemoName; shed?: MemoName } = {},
  ) {
    this.maxKey = bounds.maxKey ?? Infinity;
    this.maxKeyBytes = bounds.maxKeyBytes ?? Infinity;
    this.weigh = bounds.weigh;
    this.onEvict = bounds.onEvict;
    this.name = bounds.name;
    this.shedAs = bounds.shed;
    if (bounds.shed !== undefined && !SHEDS.has(bounds.shed)) SHEDS.set(bounds.shed, 0);
    ALL_MEMOS.add(this as BoundedMemo<unknown>);
  }

  /** Drops every entry (each reported to `onEvict`). */
  forget(): void {
    const keys = [...this.entries.keys()];
    this.entries.clear();
    heldBytes -= this.bytes;
    this.bytes = 0;
    for (const key of keys) this.onEvict?.(key);
  }

  /** Drops the oldest entry (reported to `onEvict`). */
  private evictOldest(): void {
    for (const [oldest, entry] of this.entries) {
      this.entries.delete(oldest);
      this.bytes -= entry.size;
      heldBytes -= entry.size;
      this.onEvict?.(oldest);
      return;
    }
  }

  /**
   * The value for `key`, computing (and remembering) it when not remembered. A hit moves its entry
   * to the newest end only once it may have fallen into the older half (half the entry limit or
   * half the key budget put after it): a move (delete and set) costs about nine lookups, and an
   * entry in the newer half is not among the next to go (only a single key of half the budget
   * could push it out, and then it is computed again).
   */
  get(key: string, compute: () => V): V {
    const off = this.name !== undefined && !memoOn(this.name);
    const hit = key.length > this.maxKey || off ? undefined : this.hit(key);
    if (this.name !== undefined) countLookup(this.name, hit !== undefined);
    if (hit !== undefined) return hit.value;
    if (key.length > this.maxKey || off) return compute();
    const value = compute();
    this.set(key, value);
    return value;
  }

  /** The value remembered for `key`, if any (for a memo whose values are never undefined). */
  peek(key: string): V | undefined {
    return key.length > this.maxKey ? undefined : this.hit(key)?.value;
  }

  /**
   * Remember `value` for `key` (not when the key is over `maxKey` or the whole key budget, nor for
   * a memo that sheds while under memory pressure): whether it was kept.
   */
  set(key: string, value: V): boolean {
    if (key.length > this.maxKey || (pressedBudgets > 0 && this.shedAs !== undefined)) return false;
    const size = key.length + (this.weigh?.(value) ?? 0);
    if (size > this.maxKeyBytes || size > budget) return false;
    const old = this.entries.get(key);
    if (old !== undefined) {
      this.entries.delete(key);
      this.bytes -= old.size;
      heldBytes -= old.size;
    }
    this.entries.set(key, this.stamp({ value, put: 0, charsPut: 0, size }));
    this.bytes += size;
    heldBytes += size;
    while (this.entries.size > this.limit || this.bytes > this.maxKeyBytes) this.evictOldest();
    while (heldBytes > budget) {
      const most = BoundedMemo.fullest();
      if (most === undefined) break;
      most.evictOldest();
    }
    return this.entries.has(key);
  }

  /** The memo that holds the most for its share, what it holds over what it may hold: the one that gives way when the budget is over. */
  private static fullest(): BoundedMemo<unknown> | undefined {
    let most: BoundedMemo<unknown> | undefined;
    const fullness = (m: BoundedMemo<unknown>) => m.bytes / Math.min(m.maxKeyBytes, budget);
    for (const memo of ALL_MEMOS) if (memo.bytes > 0 && (most === undefined || fullness(memo) > fullness(most))) most = memo;
    return most;
  }

  private hit(key: string): Entry<V> | undefined {
    const hit = this.entries.get(key);
    if (hit !== undefined && (this.puts - hit.put >= this.limit / 2 || this.charsPut - hit.charsPut >= this.maxKeyBytes / 2)) {
      this.entries.delete(key);
      this.entries.set(key, hit);
      this.stamp(hit);
    }
    return hit;
  }

  private stamp(entry: Entry<V>): Entry<V> {
    entry.put = ++this.puts;
    entry.charsPut = this.charsPut += entry.size;
    return entry;
  }

  get size(): number {
    return this.entries.size;
  }

  /** The characters of the remembered keys, and what `weigh` said of their values, in all. */
  get keyBytes(): number {
    return this.bytes;
  }
}

/**
 * A ghost list: what a memo was last asked about, without its value, so the memo can give a new
 * place only to what comes again while it would still have been kept (a memo of least recently
 * used first out, asked about more than it holds in turn, pushes every entry out before it comes
 * again, and pays for keeping each for no hit). At most `limit` ids, the least recently seen go
 * first. Ids only, never values; forgotten with the memos (BoundedMemo.forgetAll).
 */
export class Sightings {
  /** The ids, least recently seen first. */
  private readonly last = new Set<string>();

  constructor(private readonly limit: number) {
    ALL_SIGHTINGS.add(this);
  }

  /** Notes a sighting of `id` now: whether it was among the last `limit` seen. */
  seen(id: string): boolean {
    const was = this.last.delete(id);
    this.last.add(id);
    if (this.last.size > this.limit) this.last.delete(this.last.values().next().value!);
    return was;
  }

  forget(): void {
    this.last.clear();
  }
}

/**
 * `data` deflated (fast), into one buffer of its own size, as a memo keeps it: zlib hands back a
 * view of a 16 KiB chunk, and a small copy would take a slice of the shared pool (keeping either whole).
 */
export function deflateOwn(data: string | Uint8Array): Buffer {
  const deflated = deflateRawSync(data, { level: 1 });
  const own = Buffer.allocUnsafeSlow(deflated.length);
  deflated.copy(own);
  return own;
}

/**
 * What a JSON-like value (a parsed text) holds of the heap, in bytes, as V8 lays out what
 * JSON.parse builds on 64 bits without pointer compression (Node's default): an object 24 bytes and
 * 8 a property, at least 56 (the slack JSON.parse leaves in a small object), and beyond 32
 * properties also its keys and a dictionary entry each (an object of many distinct keys); an array
 * 32 and 8 an element; a string 16 and its characters (two bytes each when one needs it); a number
 * that is no small integer 16 (a heap number where it is boxed; counted so wherever it is). The
 * text a value was parsed from does not say what it weighs: `[{},…]` takes about 20 times its
 * characters (test/memo-weight.test.ts measures the estimate against the heap). Walks at most
 * MAX_JSON_DEPTH levels (what the hooks parse is no deeper: k8s/json-depth.ts).
 */
export function heapBytes(value: unknown, depth = 0): number {
  switch (typeof value) {
    case 'string':
      return stringBytes(value);
    case 'number':
      return Number.isInteger(value) && value >= -(2 ** 30) && value < 2 ** 30 ? 0 : 16;
    case 'object': {
      if (value === null || depth > MAX_JSON_DEPTH) return 0;
      if (Array.isArray(value)) {
        let bytes = 32 + 8 * value.length;
        for (let i = 0; i < value.length; i++) bytes += heapBytes(value[i], depth + 1);
        return bytes;
      }
      let properties = 0;
      let bytes = 0;
      for (const k in value) {
        if (!Object.prototype.hasOwnProperty.call(value, k)) continue;
        properties++;
        bytes += heapBytes((value as Record<string, unknown>)[k], depth + 1);
      }
      if (properties > 32) for (const k in value) if (Object.prototype.hasOwnProperty.call(value, k)) bytes += 16 + stringBytes(k);
      return bytes + Math.max(56, 24 + 8 * properties);
    }
    default:
      return 0;
  }
}

/** A string's bytes: its header and its characters, two bytes each once one is outside Latin-1. */
function stringBytes(s: string): number {
  return 16 + (/[^\u0000-\u00ff]/.test(s) ? 2 : 1) * s.length;
}

/**
 * `value` frozen through (objects and arrays, depth first): what a memo hands out is shared. A
 * frozen part is taken as frozen through (memos share their frozen answers). Plain loops, no
 * array per object: a whole request body goes through here.
 */
export function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    if (Array.isArray(value)) for (let i = 0; i < value.length; i++) deepFreeze(value[i]);
    else for (const k in value) if (Object.prototype.hasOwnProperty.call(value, k)) deepFreeze((value as Record<string, unknown>)[k]);
  }
  return value;
}

/**
 * A text that tells apart every two JSON-like values a memo may be asked about: JSON.stringify
 * writes Infinity, -Infinity and NaN all as `null` (and JSON.parse turns 1e400 into Infinity),
 * -0 as `0`, and leaves out undefined properties, so a memo keyed by it answered one request with
 * another's answer. Here a number is written by String() (-0 as `-0`: distinct, and not JSON, so
 * no string or other value writes the same), undefined as `undefined`, strings and keys quoted by
 * JSON.stringify; otherwise the same text as JSON.stringify, in the same order. Recursion is
 * bounded by the nesting bound of request bodies (k8s/json-depth.ts).
 */
export function exactKey(value: unknown): string {
  switch (typeof value) {
    case 'string':
      return JSON.stringify(value);
    case 'number':
      return Object.is(value, -0) ? '-0' : String(value);
    case 'boolean':
      return value ? 'true' : 'false';
    case 'undefined':
      return 'undefined';
    case 'bigint':
      return `${value}n`;
    case 'object': {
      if (value === null) return 'null';
      if (Array.isArray(value)) {
        let out = '[';
        for (let i = 0; i < value.length; i++) out += (i > 0 ? ',' : '') + exactKey(value[i]);
        return `${out}]`;
      }
      let out = '{';
      let first = true;
      for (const k in value) {
        if (!Object.prototype.hasOwnProperty.call(value, k)) continue;
        out += `${first ? '' : ','}${JSON.stringify(k)}:${exactKey((value as Record<string, unknown>)[k])}`;
        first = false;
      }
      return `${out}}`;
    }
    default:
      return `<${typeof value}>`;
  }
}
