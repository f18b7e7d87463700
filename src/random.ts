// Random sources for the hooks: crypto in production; a seeded, repeatable one for replays,
// the simulator and tests (the same seed gives the same bytes, call after call).
import { createHash } from 'node:crypto';

/** A deterministic random source: every call returns new bytes, the same sequence every run. */
export function seededRandom(seed: string): (bytes: number) => Buffer {
  let counter = 0;
  return (bytes) => {
    const out = Buffer.alloc(bytes);
    for (let filled = 0; filled < bytes; filled += 32) {
      createHash('sha256').update(`${seed}:${counter++}`).digest().copy(out, filled);
    }
    return out;
  };
}
