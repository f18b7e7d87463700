// Go-style durations made of whole h/m/s components (24h, 1440m, 1h30m, 90s), as the CRDs' CEL
// rules accept them: the total in seconds, or undefined for anything else.
const UNIT_SECONDS = { h: 3600, m: 60, s: 1 } as const;
const isUnit = (u: string | undefined): u is keyof typeof UNIT_SECONDS => u === 'h' || u === 'm' || u === 's';

export function durationSeconds(text: unknown): number | undefined {
  // One pass, no regular expression: ([0-9]+(h|m|s))+, at most 32 characters.
  if (typeof text !== 'string' || text.length === 0 || text.length > 32) return undefined;
  let seconds = 0;
  let digitsFrom = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c !== undefined && c >= '0' && c <= '9') continue;
    if (!isUnit(c) || i === digitsFrom) return undefined;
    seconds += Number(text.slice(digitsFrom, i)) * UNIT_SECONDS[c];
    digitsFrom = i + 1;
  }
  return digitsFrom === text.length ? seconds : undefined;
}
