// Go-style durations as the CRDs' CEL rules accept them (k8s/duration.ts): whole h/m/s components.
import t from 'tap';
import { durationSeconds } from '../src/k8s/duration.js';

t.test('durationSeconds reads whole h/m/s components and nothing else', async (t) => {
  t.equal(durationSeconds('24h'), 86_400);
  t.equal(durationSeconds('1h30m'), 5_400);
  t.equal(durationSeconds('90s'), 90);
  t.equal(durationSeconds('15m'), 900);
  t.equal(durationSeconds('1h1m1s'), 3_661);
  t.equal(durationSeconds('007m'), 420);
  for (const bad of ['', 'h', '15', '1.5h', '15M', '-1h', '1h ', ' 1h', '1d', '1hm', 'm15', '1'.repeat(32) + 's', 15, null, undefined]) {
    t.equal(durationSeconds(bad), undefined, `${JSON.stringify(bad)} is not a duration`);
  }
});

t.test('durationSeconds agrees with the CRD pattern on random text', async (t) => {
  const pattern = /^([0-9]+(h|m|s))+$/;
  const byPattern = (text: string) => {
    if (text.length > 32 || !pattern.test(text)) return undefined;
    let seconds = 0;
    for (const [, amount, unit] of text.matchAll(/([0-9]+)(h|m|s)/g)) seconds += Number(amount) * { h: 3600, m: 60, s: 1 }[unit as 'h' | 'm' | 's'];
    return seconds;
  };
  let seed = 7;
  const next = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648);
  const alphabet = ['0', '1', '5', '9', 'h', 'm', 's', 'd', '.', ' '];
  let disagreements = 0;
  for (let n = 0; n < 20_000; n++) {
    const text = Array.from({ length: Math.floor(next() * 36) }, () => alphabet[Math.floor(next() * alphabet.length)]).join('');
    if (durationSeconds(text) !== byPattern(text)) disagreements++;
  }
  t.equal(disagreements, 0);
});
