// A client that stops sending in the middle of a request (issue 41, finding 1): headers declaring
// 8 MiB, three body bytes, silence. Under the deployed settings (manifests/deployment.yaml) the
// in-flight budget holds those 8 MiB while the request is received, so every other hook call is
// refused (429) meanwhile. The time to receive a request (headers and body) is bounded
// (src/server.ts REQUEST_TIMEOUT_MS, Node's requestTimeout/headersTimeout), so the stall costs its
// own connection only: it is answered 408 and closed, the budget is given back, hook calls are
// answered again, readiness never turns, and SIGTERM ends the process. Real sockets against the
// built server as a process; each step waits for an event (a socket closing, the budget reading
// zero, the process exiting), never for a time. The bound on each wait only ends a test that would
// otherwise hang (before the fix, each of them did).
import t from 'tap';
import net from 'node:net';
import { productionEnv, inflightBytes, serve } from './support/process.js';
import { fixtureControlPlane } from './support/shared.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** Far beyond the bound (10 s, checked every second), even on a busy machine. */
const HANG = 90_000;

async function until(what: string, done: () => Promise<boolean> | boolean): Promise<void> {
  for (const deadline = Date.now() + HANG; !(await done()); await sleep(50)) {
    if (Date.now() > deadline) throw new Error(`${what}: not within ${HANG / 1000} s`);
  }
}

interface Stall {
  /** Everything the server sent on this connection. */
  received: () => string;
  closed: Promise<void>;
  isClosed: () => boolean;
}

/** A connection that sends `head`, then `drip` (one byte every `everyMs`, forever) or nothing. */
function stall(port: number, head: string, drip?: { everyMs: number }): Stall {
  const socket = net.connect(port, '127.0.0.1');
  let got = '';
  let isClosed = false;
  socket.on('data', (d) => (got += d));
  socket.on('error', () => undefined);
  const closed = new Promise<void>((resolve) => socket.on('close', () => resolve()));
  void closed.then(() => (isClosed = true));
  socket.on('connect', () => {
    socket.write(head);
    if (drip) {
      const timer = setInterval(() => socket.write('x'), drip.everyMs);
      socket.on('close', () => clearInterval(timer));
    }
  });
  return { received: () => got, closed, isClosed: () => isClosed };
}

const post = (length: number) => `POST /controlplane/customize HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${length}\r\n\r\n`;
const DECLARED = 8 * 1024 * 1024;

async function call(port: number, path: string, body?: unknown): Promise<number> {
  const res = await fetch(`http://127.0.0.1:${port}${path}`, body === undefined ? {} : { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  await res.arrayBuffer();
  return res.status;
}

const customize = { controller: {}, parent: fixtureControlPlane('controlplane.yaml') };

t.test('the deployed settings: a stall holds what it declared only while it may still arrive', async (t) => {
  const env = productionEnv();
  t.equal(env.BODY_LIMIT, '8Mi', 'deployed body limit');
  t.equal(env.MAX_INFLIGHT_BYTES, '8Mi', 'deployed in-flight budget: one body of the limit');
  const { port } = await serve(t, env);

  const body = stall(port, post(DECLARED) + '{"c');
  await until('the stalled call takes the budget', async () => (await inflightBytes(port)) === DECLARED);
  t.equal(await call(port, '/controlplane/customize', customize), 429, 'meanwhile another hook call is refused: the stall holds the whole budget');
  const drip = stall(port, post(1000), { everyMs: 500 });
  const headers = stall(port, 'POST /controlplane/customize HTTP/1.1\r\nHost: x\r\n');

  for (const [what, s] of [['the stalled body', body], ['a body dripping one byte every 500 ms', drip], ['headers never finished', headers]] as const) {
    await Promise.race([s.closed, until(`${what}: closed by the server`, () => s.isClosed())]);
    t.match(s.received(), /HTTP\/1\.1 408 Request Timeout\r\n[^]*$/, `${what}: answered 408 and closed (a body arriving while the budget was held was refused 429 first)`);
  }
  await until('the budget is given back', async () => (await inflightBytes(port)) === 0);
  t.equal(await inflightBytes(port), 0, 'nothing of the budget is held');
  t.equal(await call(port, '/controlplane/customize', customize), 200, 'hook calls are answered again');
  t.equal(await call(port, '/readyz'), 200, 'ready');
  t.equal(await call(port, '/healthz'), 200, 'alive');
});

t.test('SIGTERM with stalled clients: the process exits 0', async (t) => {
  const { port, child, exited, logged, output } = await serve(t, productionEnv());
  const stalls = [stall(port, post(DECLARED) + '{"c'), stall(port, post(1000), { everyMs: 500 }), stall(port, 'POST /controlplane/customize HTTP/1.1\r\nHost: x\r\n')];
  await until('the stalled call takes the budget', async () => (await inflightBytes(port)) === DECLARED);
  // Node stops checking the receive bound once its server closes (httpServerPreClose): the
  // shutdown itself closes the connections with no answer coming.
  child.kill('SIGTERM');
  await logged(/shutting down/);
  let code: unknown;
  await Promise.race([exited.then(([c]) => (code = c)), until('the process exits', () => code !== undefined)]);
  t.equal(code, 0, 'exit code 0');
  for (const s of stalls) await s.closed;
  t.ok(stalls.every((s) => s.isClosed()), 'every stalled connection was closed');
  t.match(output(), /"closedConnections":\d+.*"msg":"shut down"/, 'the shutdown closed what had no answer coming and finished');
});
