// The server under benchmark: the production server, configured exactly as src/main.ts configures
// a deployed one from the environment, which bench.mjs takes from manifests/deployment.yaml
// (logging at info, the overload guard on, NODE_OPTIONS), its log lines going to stdout, which
// bench.mjs points at a file. Six routes exist only here:
// - POST /bench/echo parses the body like a hook route and serialises it back;
// - POST /bench/floor parses the body like a hook route and answers a fixed object, set with
//   PUT /bench/floor (bench.mjs sets the hook's own answer to the same body: the same-size floor);
//   both parse every body (the hook routes' parser): the floor is what reading the input costs;
// - POST /bench/partial-floor answers the same fixed object after reading only what a reading that
//   parses no object it has seen before would read when every child was seen before: the body
//   scanned with the observed objects' spans noted (the hook parser's scan), the digest of every
//   observed object's text, and JSON.parse of the body with each child's text taken out (the
//   controller, the parent, the related objects): the lower bound of that design (issue 43);
// - GET /bench/usage reports this process's resident set size and CPU time;
// - PUT /bench/memos { off: [memo, …] } switches those memos off and every other on (memo.ts);
// - PUT /bench/forget empties every memo (memo.ts BoundedMemo.forgetAll): a restarted hook server.
// Over IPC: { profile: 'start' } and { profile: 'stop', file } run the V8 CPU profiler (no start-up).
import { Session } from 'node:inspector/promises';
import { writeFileSync } from 'node:fs';
import { loadConfig } from '../dist/config.js';
import { buildServer } from '../dist/server.js';
import { serverOptionsFrom } from '../dist/server-options.js';
import { parseJsonBody } from '../dist/json-body.js';
import { BoundedMemo, MEMO, switchMemo } from '../dist/memo.js';
import { hash } from 'node:crypto';
import { MAX_JSON_DEPTH, scanJson } from '../dist/k8s/json-depth.js';

/** The body with every child's text replaced by {} parsed, after the digests of every observed object. */
function parseAllButChildren(_request, body, done) {
  const text = typeof body === 'string' ? body : body.toString('utf8');
  const parts = { tops: [], groups: [] };
  if (scanJson(text, MAX_JSON_DEPTH, parts).deeperAt >= 0) return done(new Error('too deep'));
  const kept = [];
  let from = 0;
  for (const group of parts.groups) {
    for (const entry of group.entries) {
      if (entry.start < 0) continue;
      hash('sha256', text.slice(entry.start, entry.end), 'base64');
      if (group.top !== '"children"') continue;
      kept.push(text.slice(from, entry.start), '{}');
      from = entry.end;
    }
  }
  kept.push(text.slice(from));
  try {
    done(null, JSON.parse(kept.join('')));
  } catch (err) {
    done(err);
  }
}

const config = loadConfig(process.env);
const app = await buildServer(serverOptionsFrom(config));
let floor = {};
await app.register(async (reading) => {
  reading.removeContentTypeParser('application/json');
  reading.addContentTypeParser('application/json', { parseAs: 'string' }, parseJsonBody);
  reading.put('/bench/floor', async (request) => {
    floor = request.body;
    return { ok: true };
  });
  reading.post('/bench/floor', async () => floor);
  reading.post('/bench/echo', async (request) => request.body);
});
await app.register(async (partial) => {
  partial.removeContentTypeParser('application/json');
  partial.addContentTypeParser('application/json', { parseAs: 'string' }, parseAllButChildren);
  partial.post('/bench/partial-floor', async () => floor);
});
app.put('/bench/memos', async (request) => {
  for (const memo of Object.values(MEMO)) switchMemo(memo, !request.body.off.includes(memo));
  return { ok: true };
});
// A hook server restarted: every memo emptied (the compiled code stays warm).
app.put('/bench/forget', async () => {
  BoundedMemo.forgetAll();
  return { ok: true };
});
app.get('/bench/usage', async () => {
  const cpu = process.cpuUsage();
  return { rss: process.memoryUsage().rss, cpuMicros: cpu.user + cpu.system };
});
await app.listen({ port: 0, host: '127.0.0.1' });

const session = new Session();
session.connect();
process.on('message', async (message) => {
  if (message?.profile === 'start') {
    await session.post('Profiler.enable');
    await session.post('Profiler.setSamplingInterval', { interval: 200 });
    await session.post('Profiler.start');
    process.send({ profile: 'started' });
  } else if (message?.profile === 'stop') {
    const { profile } = await session.post('Profiler.stop');
    writeFileSync(message.file, JSON.stringify(profile));
    process.send({ profile: 'stopped' });
  }
});
process.send?.({ port: app.server.address().port, logLevel: config.logLevel, maxEventLoopDelayMs: config.maxEventLoopDelayMs });
process.on('disconnect', () => app.close().then(() => process.exit(0)));
