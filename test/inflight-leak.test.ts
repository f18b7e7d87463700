// The in-flight budget returns every byte it took, whichever way a hook call ends: answered,
// aborted mid-body, followed on its connection by bytes the HTTP parser rejects, a socket closed
// before the answer, a request timeout. Driven with raw sockets; the budget must read zero after
// each, and a body of the whole budget must be admitted (200) afterwards.
import t from 'tap';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { testServer } from './support/server.js';
import { fixtureControlPlane } from './support/shared.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const BUDGET = 64 * 1024;

/** Waits for `done` (an event, not a time; the bound only ends a test that would hang). */
async function until(done: () => boolean, ms = 60_000): Promise<void> {
  for (const deadline = Date.now() + ms; !done() && Date.now() < deadline; ) await sleep(5);
}

/** Writes `chunks` on one connection (a pause between them), then waits for the server to close it or `waitMs`. */
function raw(port: number, chunks: (string | Buffer)[], opts: { endAfter?: boolean; destroyAfterMs?: number } = {}) {
  return new Promise<string>((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    let got = '';
    socket.on('data', (d) => (got += d));
    socket.on('error', () => undefined);
    socket.on('close', () => resolve(got));
    socket.on('connect', async () => {
      for (const c of chunks) {
        socket.write(c);
        await sleep(20);
      }
      if (opts.destroyAfterMs !== undefined) setTimeout(() => socket.destroy(), opts.destroyAfterMs);
      else if (opts.endAfter) socket.end();
    });
  });
}

const head = (length: number, extra = '') =>
  `POST /controlplane/customize HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${length}\r\n${extra}\r\n`;

t.test('every path gives the budget back', async (t) => {
  const { app } = await testServer({ level: 'silent', maxInflightBytes: BUDGET, bodyLimit: BUDGET });
  t.teardown(() => app.close());
  await app.listen({ port: 0, host: '127.0.0.1' });
  const { port } = app.server.address() as AddressInfo;
  const valid = JSON.stringify({ controller: {}, parent: fixtureControlPlane('controlplane.yaml') });
  const padded = valid.slice(0, -1) + ',"pad":"' + 'x'.repeat(BUDGET - valid.length - 20) + '"}';
  t.ok(padded.length <= BUDGET && padded.length > BUDGET / 2, 'a body of about the whole budget');

  const reads = async (what: string) => {
    // The release may follow the socket's close by a tick (or more, on a busy machine).
    await until(() => app.c5c3.inflightBytes() === 0);
    t.equal(app.c5c3.inflightBytes(), 0, `${what}: the budget reads zero`);
    const res = await fetch(`http://127.0.0.1:${port}/controlplane/customize`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: padded });
    await res.arrayBuffer();
    t.equal(res.status, 200, `${what}: a body of the whole budget is admitted afterwards`);
  };

  await raw(port, [head(valid.length, 'Connection: close\r\n') + valid]);
  await reads('answered');
  await raw(port, [head(Buffer.byteLength(padded)) + padded + 'GARBAGE\r\n\r\n']);
  await reads('complete body followed by bytes the parser rejects');
  await raw(port, [head(2) + '{}zz\r\n\r\n']);
  await reads('2-byte body followed by garbage');
  await raw(port, [head(Buffer.byteLength(padded)), padded.slice(0, 1000)], { destroyAfterMs: 20 });
  await reads('closed mid-body');
  await raw(port, [head(Buffer.byteLength(padded)) + padded], { destroyAfterMs: 0 });
  await reads('closed right after the body, before the answer');
  app.server.setTimeout(200); // connections idle for 200 ms are closed by the server
  await raw(port, [head(Buffer.byteLength(padded)), padded.slice(0, 10)]);
  await reads('connection timeout mid-body');
  await raw(port, [head(2) + '{}' + head(Buffer.byteLength(padded)) + padded + 'GARBAGE\r\n\r\n']);
  await reads('pipelined calls followed by garbage');
});

t.test('readiness turns 503 while hook calls are refused and nothing is given back', async (t) => {
  // The budget's clock is stepped by the test: readiness reads how long refusals lasted, not the machine's speed.
  let now = 1_000_000;
  const { app } = await testServer({ level: 'silent', maxInflightBytes: BUDGET, bodyLimit: BUDGET, budgetStuckMs: 100, monotonicNow: () => now });
  t.teardown(() => app.close());
  await app.listen({ port: 0, host: '127.0.0.1' });
  const { port } = app.server.address() as AddressInfo;
  // A call that holds the budget: its headers, the body never finished.
  const socket = net.connect(port, '127.0.0.1');
  socket.on('error', () => undefined);
  socket.write(head(BUDGET));
  await until(() => app.c5c3.inflightBytes() !== 0);
  t.equal(app.c5c3.inflightBytes(), BUDGET, 'the budget is held');
  const refused = await fetch(`http://127.0.0.1:${port}/controlplane/customize`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
  t.equal(refused.status, 429, 'a second call is refused');
  now += 99;
  t.equal((await fetch(`http://127.0.0.1:${port}/readyz`)).status, 200, 'ready: refused for less than budgetStuckMs');
  now += 1;
  const ready = await fetch(`http://127.0.0.1:${port}/readyz`);
  t.equal(ready.status, 503, 'not ready once the budget stayed exhausted for budgetStuckMs');
  t.match(await ready.json(), { reason: /in-flight body budget exhausted/ });
  const metrics = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
  t.match(metrics, new RegExp(`c5c3_hooks_inflight_bytes ${BUDGET}`), '/metrics reports the bytes held');
  socket.destroy();
  await until(() => app.c5c3.inflightBytes() === 0);
  t.equal((await fetch(`http://127.0.0.1:${port}/readyz`)).status, 200, 'ready again once the bytes are back');
});
