// A small bounded memo for pure functions of their input (the kept answers: MEMO). Not state: the same input gets
// the same answer whether or not it was remembered, so a hook stays a pure function of its request;
// the memo only saves recomputing what the previous calls (a converged ControlPlane's resyncs)
// already computed. Bounded by entry count, by what its keys and values weigh, and by one budget for
// every memo of the process (MEMO_BUDGET_BYTES); the least recently used entry goes first (approximately:
// see get). Values are shared between callers, so they are frozen (callers only read them). Entries
// live only in this process's memory: never logged, never exported as metrics (their sizes are).
import { deflateRawSync } from 'node:zlib';

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
} as const;
export type MemoName = (typeof MEMO)[keyof typeof MEMO];

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
 * characters and its values' weights, `maxKeyBytes`), beside each memo's own bound: the service's
 * one memo, the kept answers, is bounded at 32 MiB (kept-answers.ts; a fleet of 3,072 compute
 * clouds keeps about 18 MiB), so this is the ceiling a memory test sizes against and a test lowers
 * (setMemoBudget). When a put takes the sum over the budget, the memo that puts gives up its
 * oldest entries (the entry it put last among them when it holds nothing else).
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
   * Forgets what every memo of the process remembers: the memo state of a fresh process, so a test can compare a warm answer with a
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
  /** Dropped under memory pressure (memoryPressure), counted under this name. */
  readonly shedAs: MemoName | undefined;

  /**
   * At most `limit` entries. `maxKey`: a key longer than this is computed every time, never
   * looked up or kept (nothing large is held for one caller). `maxKeyBytes`: the keys held, in
   * characters, in all (a memo of many texts is bounded by what it holds, not only by how many),
   * and with them what `weigh` says each value takes (a memo of large values: its bytes). `shed`: a memo that grows
   * with the fleet, given back under memory pressure (memoryPressure) and counted under this name.
   */
  constructor(
    private readonly limit: number,
    bounds: { maxKey?: number; maxKeyBytes?: number; weigh?: (value: V) => number; shed?: MemoName } = {},
  ) {
    this.maxKey = bounds.maxKey ?? Infinity;
    this.maxKeyBytes = bounds.maxKeyBytes ?? Infinity;
    this.weigh = bounds.weigh;
    this.shedAs = bounds.shed;
    if (bounds.shed !== undefined && !SHEDS.has(bounds.shed)) SHEDS.set(bounds.shed, 0);
    ALL_MEMOS.add(this as BoundedMemo<unknown>);
  }

  /** Drops every entry. */
  forget(): void {
    this.entries.clear();
    heldBytes -= this.bytes;
    this.bytes = 0;
  }

  /** Drops the oldest entry. */
  private evictOldest(): void {
    for (const [oldest, entry] of this.entries) {
      this.entries.delete(oldest);
      this.bytes -= entry.size;
      heldBytes -= entry.size;
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
    const hit = key.length > this.maxKey ? undefined : this.hit(key);
    if (hit !== undefined) return hit.value;
    if (key.length > this.maxKey) return compute();
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
    while (heldBytes > budget && this.entries.size > 0) this.evictOldest();
    return this.entries.has(key);
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
 * `value` frozen through (objects and arrays, depth first): for a value shared by its readers (a
 * spec reading, a parsed last-applied annotation). A frozen part is taken as frozen through. Plain
 * loops, no array per object: a whole request body goes through here.
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
 * A text that tells apart every two JSON-like values (a canonical form compared: clouds-yaml.ts):
 * JSON.stringify writes Infinity, -Infinity and NaN all as `null` (and JSON.parse turns 1e400 into
 * Infinity), -0 as `0`, and leaves out undefined properties, so two values it writes alike may
 * differ. Here a number is written by String() (-0 as `-0`: distinct, and not JSON, so
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
