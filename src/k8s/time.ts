// Times read back from objects (docs/architecture.md §1.4): an annotation anyone can write
// (`c5c3.io/superseded-at`), a child's spec (`spec.resource.expiresAt`), a status. Every such text
// is read here, and only what a CRD's `format: date-time` admits is a time: RFC 3339 with a
// four-digit year and a real calendar date (`Date.parse` alone takes `+275760-09-13T00:00:00.000Z`,
// the last time a Date can hold, so one day more threw a RangeError, a 500 on every sync; and
// `2026-02-30`, a date-only text, a space for the `T`). What the service writes from such times is
// formatted within the same range (`formatSeconds`), so no status it computes is refused.
//
// The one module of the hooks that makes instants (test/house-rules.test.ts): the hooks read the
// clock only by calling the `now` their context hands down (routes.ts HookContext), so whether an
// answer read it is known by whether it was called (http/kept-answers.ts); an instant made
// anywhere else would read the clock unseen.

const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(\.\d{1,9})?([Zz]|[+-](\d{2}):(\d{2}))$/;

/** The earliest and latest second a date-time of a CRD admits (a four-digit year), ms. */
export const FIRST_TIME_MS = Date.parse('0000-01-01T00:00:00Z');
export const LAST_TIME_MS = Date.parse('9999-12-31T23:59:59Z');

const daysIn = (year: number, month: number) =>
  month === 2 ? (year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : 28) : [4, 6, 9, 11].includes(month) ? 30 : 31;

/** `raw` as ms since the epoch when it is an RFC 3339 date-time a CRD admits; else undefined. */
export function readTime(raw: unknown): number | undefined {
  if (typeof raw !== 'string' || raw.length > 40) return undefined;
  const m = RFC3339.exec(raw);
  if (!m) return undefined;
  const [year, month, day, hour, minute, second] = m.slice(1, 7).map(Number) as [number, number, number, number, number, number];
  if (month < 1 || month > 12 || day < 1 || day > daysIn(year, month) || hour > 23 || minute > 59 || second > 59) return undefined;
  if (m[9] !== undefined && (Number(m[9]) > 23 || Number(m[10]) > 59)) return undefined;
  const ms = Date.parse(raw);
  return Number.isNaN(ms) ? undefined : ms;
}

/** The system clock: the instant a server answers its hook calls at (server.ts; a replay sets its own), and the name of its captures. */
export function systemNow(): Date {
  return new Date();
}

/**
 * An RFC 3339 time at whole seconds (what the API server stores for a date-time), within what a
 * CRD's date-time admits: a time past 9999-12-31T23:59:59Z (or before year 0) is written as that
 * bound, never as the six-digit year `toISOString` would give, nor a throw.
 */
export function formatSeconds(ms: number): string {
  const bounded = Number.isNaN(ms) ? LAST_TIME_MS : Math.min(LAST_TIME_MS, Math.max(FIRST_TIME_MS, ms));
  return new Date(Math.floor(bounded / 1000) * 1000).toISOString().replace('.000Z', 'Z');
}
