// The event-loop guard reads an interval in which the delay histogram took no sample (the process
// was not scheduled, or the interval was shorter than the histogram's resolution) as no news, not
// as an infinitely blocked loop: an idle server with a fine sample interval never answers 429.
import t from 'tap';
import { testServer, post } from './support/server.js';
import { fixtureControlPlane } from './support/shared.js';
import { EventLoopGuard } from '../src/http/event-loop.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

t.test('an interval without a sample keeps the last reading; it never reads as Infinity', async (t) => {
  // A cumulative histogram, as perf_hooks keeps it (nanoseconds).
  const values: number[] = [];
  const source = {
    get count() {
      return values.length;
    },
    get mean() {
      return values.length === 0 ? NaN : values.reduce((a, v) => a + v, 0) / values.length;
    },
  };
  const record = (...ms: number[]) => values.push(...ms.map((v) => v * 1e6));
  const guard = new EventLoopGuard(source, 10);
  guard.sample();
  t.equal(guard.delayMs, 0, 'no sample yet: no delay');
  record(10, 10, 610);
  guard.sample();
  t.equal(guard.delayMs, 200, 'an interval with a blocked tick reads as its mean delay (less the resolution)');
  guard.sample();
  t.equal(guard.delayMs, 200, 'an interval without a sample: the last reading stands (not Infinity)');
  t.ok(Number.isFinite(guard.delayMs));
  record(12, 12);
  guard.sample();
  t.equal(guard.delayMs, 2, 'only this interval counts: a free loop reads free again');
});

t.test('an idle server sampling as often as the histogram resolves never answers 429', async (t) => {
  const { app } = await testServer({ level: 'silent', overload: { maxEventLoopDelayMs: 1000, sampleIntervalMs: 10 } });
  t.teardown(() => app.close());
  const body = { controller: {}, parent: fixtureControlPlane('controlplane.yaml') };
  const statuses = new Map<number, number>();
  // 40 calls spread over about a second: many sampling intervals, some without a histogram sample.
  for (let i = 0; i < 40; i++) {
    const status = (await post(app, '/controlplane/customize', body)).status;
    statuses.set(status, (statuses.get(status) ?? 0) + 1);
    await sleep(25);
  }
  t.same([...statuses.keys()], [200], `every call answered 200 (${JSON.stringify(Object.fromEntries(statuses))})`);
});
