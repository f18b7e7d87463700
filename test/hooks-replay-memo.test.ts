// hooks/: every captured payload replays alike when its body is remembered (src/json-body.ts),
// three calls in a row through one server (split from hooks-replay.test.ts: each file stays well
// inside the per-file timeout on a busy machine).
import t from 'tap';
import { relative } from 'node:path';
import { HOOKS_KEY } from '../src/cli/hook-payloads.js';
import { Sanitizer } from '../src/capture/sanitize.js';
import { post, testServer } from './support/server.js';
import { HOOKS_DIR, payloadFiles, read } from './support/hooks.js';

t.test('every file replays alike when its body is remembered (parsed once, shared, frozen: src/json-body.ts)', async (t) => {
  // A text's parsed body is kept from its second sighting on, frozen through, and read from the
  // memo after: of three calls in a row at least two answer from the frozen body. A hook that tried
  // to change its request would be answered from a copy (src/http/hooks.ts) and say so in the log.
  for (const file of payloadFiles()) {
    const call = read(file);
    const clock = new Date(call.clock);
    const { app, logs } = await testServer({ clock: () => clock, randomSeed: call.randomSeed, level: 'info' });
    const name = relative(HOOKS_DIR, file);
    try {
      for (const n of [1, 2, 3]) {
        const res = await post(app, call.hook, JSON.stringify(call.request));
        t.equal(res.status, 200, `${name}: call ${n}`);
        t.same(new Sanitizer(HOOKS_KEY).sanitize(call.request, res.json)[1], call.response, `${name}: call ${n}`);
      }
      t.same(logs.filter((l) => l.includes('private copy')), [], `${name}: no hook changed its request`);
    } finally {
      await app.close();
    }
  }
});

