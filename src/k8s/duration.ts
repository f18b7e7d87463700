// Go-style durations made of whole h/m/s components (24h, 1440m, 1h30m, 90s), as the CRDs' CEL
// rules accept them: the total in seconds, or undefined for anything else.
const UNIT_SECONDS = { h: 3600, m: 60, s: 1 } as const;
const isUnit = (u: string | undefined): u is keyof typeof UNIT_SECONDS => u === 'h' || u === 'm' || u === 's';

export function durationSeconds(text: unknown): number | undefined {
  if (typeof text !== 'string' || text.length > 32 || !/^([0-9]+(h|m|s))+$/.test(text)) return undefined;
  let seconds = 0;
  for (const [, amount, unit] of text.matchAll(/([0-9]+)(h|m|s)/g)) {
    if (!isUnit(unit)) return undefined;
    seconds += Number(amount) * UNIT_SECONDS[unit];
  }
  return seconds;
}
