// Which release upgrades OpenStack supports (docs/architecture.md §6.1): one release forward
// (2025.1 → 2025.2, 2025.2 → 2026.1), or a skip-level upgrade between SLURP releases, the `.1`
// releases (2024.1 → 2025.1 → 2026.1). Staying on a release (an image override without a release
// change) is allowed. Everything else is refused with a reason that names the path.
import { REASON, type Reason } from '../conditions.js';

export interface Release {
  year: number;
  /** 1 or 2: OpenStack ships two releases a year. */
  cycle: 1 | 2;
}

/** `YYYY.1` or `YYYY.2`; undefined for anything else (2025.3 is not an OpenStack release). */
export function parseRelease(text: unknown): Release | undefined {
  if (typeof text !== 'string') return undefined;
  const m = /^(\d{4})\.([12])$/.exec(text);
  return m ? { year: Number(m[1]), cycle: m[2] === '1' ? 1 : 2 } : undefined;
}

/** Releases in order: consecutive releases have consecutive ordinals. */
const ordinal = (r: Release) => r.year * 2 + (r.cycle - 1);
export const isSlurp = (r: Release) => r.cycle === 1;

export type PathCheck =
  | { ok: true; kind: 'same' | 'forward' | 'skip-level' }
  | { ok: false; reason: Reason; message: string };

export function checkPath(from: string, to: string): PathCheck {
  const a = parseRelease(from);
  const b = parseRelease(to);
  const path = `${from} → ${to}`;
  if (!a || !b) {
    const bad = [a ? undefined : from, b ? undefined : to].filter((x) => x !== undefined).map((x) => JSON.stringify(x));
    return { ok: false, reason: REASON.UnparsableRelease, message: `upgrade ${path} refused: ${bad.join(' and ')} is not an OpenStack release (YYYY.1 or YYYY.2)` };
  }
  const step = ordinal(b) - ordinal(a);
  if (step === 0) return { ok: true, kind: 'same' };
  if (step === 1) return { ok: true, kind: 'forward' };
  if (step < 0) return { ok: false, reason: REASON.DowngradeRefused, message: `upgrade ${path} refused: a downgrade is not supported` };
  if (isSlurp(a) && isSlurp(b) && b.year === a.year + 1) return { ok: true, kind: 'skip-level' };
  return {
    ok: false,
    reason: REASON.UnsupportedSkipLevel,
    message: `upgrade ${path} refused: skipping releases is supported only from one SLURP release to the next (YYYY.1 → YYYY+1.1)`,
  };
}

const fromOrdinal = (n: number): string => `${Math.floor(n / 2)}.${(n % 2) + 1}`;

/** The release one forward (2025.1 → 2025.2 → 2026.1); undefined for an unparsable one. */
export function nextRelease(text: string): string | undefined {
  const r = parseRelease(text);
  return r ? fromOrdinal(ordinal(r) + 1) : undefined;
}

/** The release one back (2025.2 → 2025.1 → 2024.2); undefined for an unparsable one. */
export function previousRelease(text: string): string | undefined {
  const r = parseRelease(text);
  return r ? fromOrdinal(ordinal(r) - 1) : undefined;
}
