// No secret value leaves the process except in the Secrets the hooks own: distinctive secrets are
// planted everywhere a request can carry them (Secret data among children and related objects, a
// 20 KB CA bundle, the admin password, the minted application-credential secret inside
// clouds.yaml, and children's condition messages quoting them raw, base64, and base64 of a text
// holding them at every offset), then every log line (trace level up), /metrics, the error bodies,
// the status of sync and finalize answers and the captured files are scanned for each value, its
// base64 and every base64 core (base64Cores: the value at offset 0, 1 or 2 of an encoded text).
import t from 'tap';
import { createHash } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { testServer, post } from './support/server.js';
import { converge, managedCP } from './support/sync.js';
import { ADMIN_PASSWORD, b64, clusterSecretStore, healthy, isOrc, orcStatus, secret, surroundings, syncRequest, type StatusOf } from './support/world.js';
import { secretValues } from './support/secrets.js';
import { base64Cores, MIN_SECRET_LENGTH } from '../src/capture/secret-values.js';

// A CA bundle of about 24 KB (pseudo-random base64 lines, as a real one): the size that made the
// RegExp of all secret values too large for V8 (every sync and finalize answered 500).
const CA_BUNDLE = `-----BEGIN CERTIFICATE-----\n${Array.from({ length: 380 }, (_, i) => createHash('sha512').update(`ca-${i}`).digest('base64').slice(0, 64)).join('\n')}\n-----END CERTIFICATE-----\n`;
const PLANTED = 'Planted-Secret-Value-7f3Kq';

/** Every way a secret may show: itself, its base64, and its base64 at each offset. */
function forms(secrets: Iterable<string>): { what: string; needle: string }[] {
  const out: { what: string; needle: string }[] = [];
  for (const s of secrets) {
    if (s.length < MIN_SECRET_LENGTH) continue;
    out.push({ what: `a ${s.length}-character secret`, needle: s }, { what: `base64 of a ${s.length}-character secret`, needle: b64(s) });
    base64Cores(s).forEach((core, shift) => out.push({ what: `base64 of a ${s.length}-character secret at offset ${shift}`, needle: core }));
  }
  return out;
}

const leaksIn = (text: string, needles: { what: string; needle: string }[]) => needles.filter((n) => text.includes(n.needle)).map((n) => n.what);

t.test('secrets planted everywhere never reach logs, metrics, error bodies, status or captures', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'c5c3-leak-'));
  const { app, logs } = await testServer({ level: 'trace', capture: { dir, key: 'leak-test-key' } });
  const cp = managedCP();
  const base = [clusterSecretStore(), secret(cp.metadata.namespace, 'ca-bundle', { 'ca.crt': CA_BUNDLE, token: PLANTED })];
  const world = await converge(app, cp, base);
  const secrets = new Set([...secretValues([world.children, world.related]), ADMIN_PASSWORD, CA_BUNDLE, PLANTED]);
  const acSecret = [...secrets].find((s) => s.includes('application_credential_secret'));
  t.ok(acSecret, 'the minted application-credential clouds.yaml is among the secrets');
  const quoted = [...secrets].flatMap((s) => [s, b64(s), b64(`user:${s}`), b64(`ab:${s}`), b64(`x:${s}`)]).join(' | ');
  const message = `backend said: ${quoted}`;
  const failing: StatusOf = (child, generation) =>
    isOrc(child) ? orcStatus(generation, { available: false, reason: 'UnrecoverableError', message }) : { conditions: [{ type: 'Ready', status: 'False', reason: 'Failed', message }] };
  const children = world.children.map((c) => ({ ...c, status: failing(c, c.metadata.generation ?? 1) ?? healthy(c) }));
  const related = surroundings(world.parent, children, base);
  const needles = forms(secrets);

  const answers: string[] = [];
  for (const finalizing of [false, true]) {
    const res = await post(app, finalizing ? '/controlplane/finalize' : '/controlplane/sync', syncRequest(world.parent, children, related, finalizing));
    t.equal(res.status, 200, `${finalizing ? 'finalize' : 'sync'} answers 200 (a 20 KB secret value does not break redaction)`);
    answers.push(JSON.stringify(res.json?.status ?? res.body));
  }
  t.match(answers[0], /\[redacted\]/, 'a child message quoting secrets reached the status, redacted');
  // Error bodies: secrets in places the schema refuses.
  const refused = [
    await post(app, '/controlplane/sync', { ...syncRequest(world.parent, children, related), finalizing: ADMIN_PASSWORD }),
    await post(app, '/controlplane/sync', { ...syncRequest(world.parent, children, related), parent: { ...world.parent, kind: CA_BUNDLE } }),
    await post(app, '/controlplane/sync', `{"parent": "${PLANTED}`),
    await post(app, '/controlplane/sync', JSON.stringify({ token: PLANTED }), { 'content-type': 'text/plain' }),
  ];
  t.same(refused.map((r) => r.status), [400, 400, 400, 415], 'refused with 4xx');
  const metrics = (await app.inject({ method: 'GET', url: '/metrics' })).body;
  await app.close();
  const captured = readdirSync(dir).map((f) => readFileSync(join(dir, f), 'utf8'));
  t.ok(captured.length >= 2, `the calls were captured (${captured.length} files)`);

  t.same(leaksIn(logs.join('\n'), needles), [], `no secret in ${logs.length} log lines`);
  t.same(leaksIn(metrics, needles), [], 'no secret in /metrics');
  t.same(leaksIn(refused.map((r) => r.body).join('\n'), needles), [], 'no secret in error bodies');
  t.same(leaksIn(answers.join('\n'), needles), [], 'no secret in the status of sync and finalize');
  t.same(leaksIn(captured.join('\n'), needles), [], 'no secret in the captured files');
});

t.test('an error of ours is logged without its message (it may quote a secret): type and stack frames', async (t) => {
  const { app, logs } = await testServer({ level: 'trace' });
  t.teardown(() => app.close());
  // What V8 threw when the pattern of all secret values was too large: the pattern, values and all.
  app.post('/boom', async () => {
    throw new SyntaxError(`Invalid regular expression: /${PLANTED}|${b64(PLANTED)}/: Regular expression too large`);
  });
  const res = await post(app, '/boom', {});
  t.equal(res.status, 500);
  const failed = logs.filter((l) => l.includes('hook failed'));
  t.equal(failed.length, 1, 'the failure is logged');
  t.match(failed[0], /"type":"SyntaxError"/, 'by its type');
  t.match(failed[0], /at /, 'with its stack frames');
  t.same(leaksIn(logs.join('\n') + res.body, forms([PLANTED])), [], 'never its message');
});
