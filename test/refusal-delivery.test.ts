// A refused call gets its answer even from a client that writes its whole body before reading:
// a 413 (over the body limit, declared or not) is sent once the rest of the body is read and
// dropped (closing with it unread made the client's write fail, EPIPE or a reset, before it read
// anything); a 429 of the in-flight budget keeps the connection, Node reading the body away.
import t from 'tap';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { testServer } from './support/server.js';

const LIMIT = 64 * 1024;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Writes `head` and `body` at once, ends its side, and reads only after `readAfterMs`: the status line, or what went wrong. */
function naive(port: number, head: string, body: Buffer, readAfterMs: number): Promise<string> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    let got = '';
    let error = '';
    socket.on('error', (e: NodeJS.ErrnoException) => (error = e.code ?? e.message));
    socket.on('close', () => resolve(got.split('\r\n')[0] || `nothing read${error ? ` (${error})` : ''}`));
    socket.on('connect', () => {
      socket.pause();
      setTimeout(() => {
        socket.on('data', (d) => (got += d));
        socket.resume();
      }, readAfterMs);
      socket.write(head);
      socket.end(body);
    });
  });
}

const declared = (length: number) => `POST /controlplane/sync HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${length}\r\n\r\n`;

t.test('413 and 429 reach a client that writes its whole body first', async (t) => {
  const { app } = await testServer({ level: 'silent', bodyLimit: LIMIT, maxInflightBytes: LIMIT });
  t.teardown(() => app.close());
  await app.listen({ port: 0, host: '127.0.0.1' });
  const { port } = app.server.address() as AddressInfo;
  const big = Buffer.alloc(128 * LIMIT, 0x20); // 8 MiB: more than the socket buffers hold
  for (const readAfterMs of [0, 100]) {
    t.equal(await naive(port, declared(big.length), big, readAfterMs), 'HTTP/1.1 413 Payload Too Large', `declared over the limit, read after ${readAfterMs} ms`);
    const chunked = Buffer.concat([Buffer.from(`${big.length.toString(16)}\r\n`), big, Buffer.from('\r\n0\r\n\r\n')]);
    const head = 'POST /controlplane/sync HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n';
    t.equal(await naive(port, head, chunked, readAfterMs), 'HTTP/1.1 413 Payload Too Large', `undeclared, over the limit, read after ${readAfterMs} ms`);
  }
  // The budget held by a call whose body never ends; a second call of the whole budget is refused.
  const hold = net.connect(port, '127.0.0.1');
  hold.on('error', () => undefined);
  hold.write(declared(LIMIT));
  for (const deadline = Date.now() + 60_000; app.c5c3.inflightBytes() === 0 && Date.now() < deadline; ) await sleep(5);
  t.equal(app.c5c3.inflightBytes(), LIMIT);
  const body = Buffer.alloc(LIMIT, 0x20);
  for (const readAfterMs of [0, 100]) t.equal(await naive(port, declared(body.length), body, readAfterMs), 'HTTP/1.1 429 Too Many Requests', `429, read after ${readAfterMs} ms`);
  hold.destroy();
});
