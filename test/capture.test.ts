// CAPTURE_DIR: a whole simulated lifecycle captured by the server. Every file is sanitised (no
// secret value the hooks saw or generated, in any form) and replays to its recorded response
// when the replay is given the same clock and the same random bytes the call drew.
import t from 'tap';
import { mkdtempSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildServer, type HooksServer } from '../src/server.js';
import { seededRandom } from '../src/random.js';
import { Simulation } from '../src/sim/simulation.js';
import { PHASES, SCENARIOS, runPhase } from '../src/sim/scenarios.js';
import { Sanitizer } from '../src/capture/sanitize.js';
import { jsonDiff } from '../src/capture/json-diff.js';
import type { CapturedCall } from '../src/capture/capture.js';
import { managedCP } from './support/sync.js';
import type { Obj } from './support/shared.js';
import { leaks, secretValues } from './support/secrets.js';

const KEY = 'capture-test-key';

t.test('a captured lifecycle holds no secret and replays exactly', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'c5c3-capture-'));
  let sim: Simulation | undefined;
  let calls = 0;
  const draws: { call: number; bytes: Buffer }[] = [];
  const base = seededRandom('capture');
  const app: HooksServer = await buildServer({
    logger: false,
    clock: () => sim!.now,
    random: (n) => {
      const bytes = base(n);
      draws.push({ call: calls, bytes });
      return bytes;
    },
    capture: { dir, key: KEY },
  });
  app.addHook('onResponse', async () => {
    calls++;
  });
  const seen = new Set<string>();
  sim = new Simulation({
    app,
    onCall: (call) => {
      for (const s of secretValues(call.request)) seen.add(s);
      for (const s of secretValues(call.answer.body)) seen.add(s);
    },
  });
  const cp = sim.createControlPlane(managedCP());
  for (const name of ['converge', 'rotate-password', 'remint', ...SCENARIOS.aggregate!, 'delete']) t.same((await runPhase(sim, cp, PHASES[name]!)).problems, [], name);
  await app.close();

  const files = readdirSync(dir).sort();
  t.equal(files.length, calls, 'one file per hook call');
  t.ok(seen.size >= 6, `${seen.size} distinct secret values went through the hooks`);
  const all = files.map((f) => readFileSync(join(dir, f), 'utf8')).join('\n');
  t.same(leaks(all, seen), [], 'no secret value in any captured file');
  t.equal(statSync(join(dir, files[0]!)).mode & 0o777, 0o600, 'files are private to the user');

  const sanitizer = new Sanitizer(KEY);
  let replayed = 0;
  for (const [index, file] of files.entries()) {
    const call = JSON.parse(readFileSync(join(dir, file), 'utf8')) as CapturedCall;
    const tape = draws.filter((d) => d.call === index).map((d) => d.bytes);
    const clock = new Date(call.clock);
    const replay = await buildServer({ logger: false, clock: () => clock, random: () => tape.shift()! });
    const res = await replay.inject({ method: 'POST', url: call.hook, payload: call.request as object });
    await replay.close();
    const [, response] = sanitizer.sanitize(call.request, res.json());
    if (JSON.stringify(response) !== JSON.stringify(call.response)) t.fail(`${file} replays to a different response: ${jsonDiff(call.response, response).slice(0, 5).join("; ")}`);
    else replayed++;
  }
  t.equal(replayed, files.length, `all ${files.length} captured calls replay to their recorded response`);
});

t.test('sanitising is idempotent and keyed', async (t) => {
  const secret = { apiVersion: 'v1', kind: 'Secret', metadata: { name: 's', annotations: { h: 'a'.repeat(64) } }, data: { password: Buffer.from('hunter2').toString('base64') } };
  const [once] = new Sanitizer('k').sanitize(secret);
  const [twice] = new Sanitizer('k').sanitize(once);
  t.same(twice, once, 'a sanitised payload stays as it is');
  t.match(Buffer.from((once as Obj).data.password, 'base64').toString(), /^redacted-[0-9a-f]{16}$/);
  t.match((once as Obj).metadata.annotations.h, /^redacted-sha256-[0-9a-f]{16}$/, 'a hash of unknown origin is hidden');
  const [other] = new Sanitizer('other').sanitize(secret);
  t.not((other as Obj).data.password, (once as Obj).data.password, 'another key, other placeholders');
});
