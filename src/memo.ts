// A small bounded memo for pure functions of their input (clouds.yaml rendering and parsing, the
// secret values a Secret holds). Not state: the same input gets the same answer whether or not it
// was remembered, so a hook stays a pure function of its request; the memo only saves recomputing
// what the previous calls (a converged ControlPlane's sync every few seconds) already computed.
// Bounded by entry count, and optionally by the characters of its keys; the least recently used
// entry goes first. Values are shared between callers, so they are frozen (callers only read
// them). Entries live only in this process's memory: never logged, never exported as metrics.
export class BoundedMemo<V> {
  private readonly entries = new Map<string, V>();
  private bytes = 0;

  private readonly maxKey: number;
  private readonly maxKeyBytes: number;

  /**
   * At most `limit` entries. `maxKey`: a key longer than this is computed every time, never
   * looked up or kept (nothing large is held for one caller). `maxKeyBytes`: the keys held, in
   * characters, in all (a memo of many texts is bounded by what it holds, not only by how many).
   */
  constructor(
    private readonly limit: number,
    bounds: { maxKey?: number; maxKeyBytes?: number } = {},
  ) {
    this.maxKey = bounds.maxKey ?? Infinity;
    this.maxKeyBytes = bounds.maxKeyBytes ?? Infinity;
  }

  /** The value for `key`, computing (and remembering) it when not remembered. */
  get(key: string, compute: () => V): V {
    if (key.length > this.maxKey) return compute();
    const hit = this.entries.get(key);
    if (hit !== undefined || this.entries.has(key)) {
      // Most recently used last: re-insert.
      this.entries.delete(key);
      this.entries.set(key, hit as V);
      return hit as V;
    }
    const value = compute();
    if (key.length > this.maxKeyBytes) return value;
    this.entries.set(key, value);
    this.bytes += key.length;
    for (const oldest of this.entries.keys()) {
      if (this.entries.size <= this.limit && this.bytes <= this.maxKeyBytes) break;
      this.entries.delete(oldest);
      this.bytes -= oldest.length;
    }
    return value;
  }

  get size(): number {
    return this.entries.size;
  }

  /** The characters of the remembered keys, in all. */
  get keyBytes(): number {
    return this.bytes;
  }
}

/** `value` frozen through (objects and arrays, depth first): what a memo hands out is shared. */
export function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}
