// Saturation: hook calls are answered 429 with Retry-After (Metacontroller requeues at once on a
// 429 without it), probes and metrics still answer, and the server recovers once the load is gone.
import t from 'tap';
import { request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { testServer, post } from './support/server.js';
import { fixtureControlPlane } from './support/shared.js';

const body = () => ({ controller: {}, parent: fixtureControlPlane('controlplane.yaml') });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

// Waits for an event, not a time: the bound only ends a test that would otherwise hang (a CPU-bound
// process beside the suite makes every step slower, never the outcome different).
async function until<T>(what: string, probe: () => Promise<T | undefined>, ms = 60_000): Promise<T> {
  for (const deadline = Date.now() + ms; Date.now() < deadline; await sleep(5)) {
    const got = await probe();
    if (got !== undefined) return got;
  }
  throw new Error(`timed out waiting for ${what}`);
}

t.test('a server built without overload options (tests, simulation, gen, replay) never answers 429', async (t) => {
  const { app } = await testServer();
  t.teardown(() => app.close());
  t.equal((await post(app, '/controlplane/customize', body())).status, 200);
  // Longer than the production threshold (1000 ms) and sample interval (500 ms) together.
  for (let round = 0; round < 3; round++) {
    const busyUntil = Date.now() + 1600;
    while (Date.now() < busyUntil) {
      // blocked, as a simulation driving hundreds of calls in one go blocks it
    }
    t.equal((await post(app, '/controlplane/customize', body())).status, 200, `answered after a ${1600} ms stall`);
    await sleep(20);
  }
});

t.test('a blocked event loop: 429 with Retry-After on hooks, 200 on probes, then recovery', async (t) => {
  const { app } = await testServer({ overload: { maxEventLoopDelayMs: 20, sampleIntervalMs: 25, retryAfterSeconds: 3 } });
  t.teardown(() => app.close());
  t.equal((await post(app, '/controlplane/customize', body())).status, 200, 'answered before');
  const stall = () => {
    const busyUntil = Date.now() + 300;
    while (Date.now() < busyUntil) {
      // a CPU-bound stall, as a burst of heavy requests causes
    }
  };
  const overloaded = await until('a 429', async () => {
    // Two stalls, each followed by one turn of the loop: whichever of the delay histogram's timer
    // and the guard's sampling timer runs first after a stall, the guard's last reading covers one
    // of them (a single stall read within one 25 ms interval was missed now and then under Node 24).
    stall();
    await sleep(1);
    stall();
    await sleep(1);
    const res = await post(app, '/controlplane/customize', body());
    if (res.status !== 429) return undefined;
    const health = await app.inject({ method: 'GET', url: '/healthz' });
    return { res, health: health.statusCode };
  });
  t.equal(overloaded.res.headers['retry-after'], '3', 'Retry-After is set');
  t.match(overloaded.res.json, { error: 'Too Many Requests', message: /overloaded.*retry after 3 s/ });
  t.equal(overloaded.health, 200, 'liveness still answers');
  const recovered = await until('recovery', async () => {
    const res = await post(app, '/controlplane/customize', body());
    return res.status === 200 ? res : undefined;
  });
  t.equal(recovered.status, 200, 'answers again once the loop is free');
  const metrics = await app.inject({ method: 'GET', url: '/metrics' });
  t.match(metrics.body, /c5c3_hooks_overloaded_total\{hook="controlplane\/customize"\} [1-9]/);
});

t.test('real saturation over HTTP: only 200 or 429 with Retry-After, never an error, then 200', async (t) => {
  const { app } = await testServer({ level: 'silent', overload: { maxEventLoopDelayMs: 5, sampleIntervalMs: 10 } });
  t.teardown(() => app.close());
  await app.listen({ port: 0, host: '127.0.0.1' });
  const { port } = app.server.address() as AddressInfo;
  const cp = fixtureControlPlane('controlplane.yaml');
  cp.status = { padding: 'x'.repeat(256 * 1024) };
  const payload = JSON.stringify({ controller: {}, parent: cp });
  const call = () =>
    new Promise<{ status: number; retryAfter?: string }>((resolve, reject) => {
      const req = request({ host: '127.0.0.1', port, method: 'POST', path: '/controlplane/customize', headers: { 'content-type': 'application/json' } }, (res) => {
        res.resume();
        res.on('end', () => resolve({ status: res.statusCode ?? 0, retryAfter: res.headers['retry-after'] as string | undefined }));
      });
      req.on('error', reject);
      req.end(payload);
    });
  let saw429 = false;
  for (let wave = 0; wave < 20 && !saw429; wave++) {
    const answers = await Promise.all(Array.from({ length: 200 }, call));
    for (const a of answers) {
      if (a.status === 429) {
        saw429 = true;
        if (a.retryAfter !== '5') t.fail(`429 without Retry-After 5: ${a.retryAfter}`);
      } else if (a.status !== 200) t.fail(`unexpected ${a.status}`);
    }
  }
  t.ok(saw429, 'saturation produced 429s');
  const recovered = await until('recovery', async () => ((await call()).status === 200 ? true : undefined));
  t.ok(recovered, 'recovers');
});
