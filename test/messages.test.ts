// What an operator reads: every condition message of every recorded situation (hooks/) is a
// sentence, and a refused request names what was expected.
import t from 'tap';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT, fixtureControlPlane } from './support/shared.js';
import { testServer, post } from './support/server.js';

function conditionMessages(): Map<string, string> {
  const out = new Map<string, string>();
  const dir = join(REPO_ROOT, 'hooks');
  for (const hook of readdirSync(dir, { withFileTypes: true }).filter((d) => d.isDirectory())) {
    for (const file of readdirSync(join(dir, hook.name))) {
      const call = JSON.parse(readFileSync(join(dir, hook.name, file), 'utf8'));
      for (const c of call.response?.status?.conditions ?? []) if (c.message) out.set(c.message, `${hook.name}/${file} ${c.type}`);
    }
  }
  return out;
}

t.test('every condition message is a sentence', async (t) => {
  const messages = conditionMessages();
  t.ok(messages.size > 40, `${messages.size} distinct messages`);
  for (const [message, where] of messages) {
    t.match(message, /^[A-Z]/, `${where}: starts with a capital: ${message}`);
    t.notMatch(message, /\bwaiting for (Secret|\w+) \S+ (does not|has no|is being)\b/i, `${where}: "waiting for" is followed by what is awaited, not a clause: ${message}`);
  }
});

t.test('a refused request names what was expected (and never the value sent)', async (t) => {
  const { app } = await testServer();
  t.teardown(() => app.close());
  const parent = fixtureControlPlane('controlplane.yaml');
  // Validation stops at the first error (a body's errors must not cost work without bound).
  const res = await post(app, '/controlplane/sync', { controller: {}, parent: { ...parent, kind: 'Secret-s3cr3t' }, children: {}, related: {} });
  t.equal(res.status, 400);
  t.match(res.json.message, /body\.parent\.kind: must be "ControlPlane"/);
  t.notMatch(res.json.message, /s3cr3t/, 'the value sent is not repeated');
  t.notMatch(res.json.message, /must be equal to constant/);
  const typed = await post(app, '/controlplane/sync', { controller: {}, parent, children: {}, related: {}, finalizing: 'no' });
  t.equal(typed.status, 400);
  t.match(typed.json.message, /body\.finalizing: must be a boolean, got a string/);
  t.notMatch(typed.json.message, /"no"/, 'the value sent is not repeated');
});
