// Sanitising by value: a secret quoted in a child's condition message, a clouds.yaml with a numeric
// password, an unlisted auth field (`passcode`), a list-valued secret. None reaches a captured
// file (raw or base64), and the capture still replays to its recorded answer; the ControlPlane
// status never repeats a child's message with a secret value in it.
import t from 'tap';
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { Sanitizer } from '../src/capture/sanitize.js';
import { ValueReplacer, MIN_SECRET_LENGTH, base64Cores } from '../src/capture/secret-values.js';
import type { CapturedCall } from '../src/capture/capture.js';
import { post, testServer, FIXED_NOW } from './support/server.js';
import { conditionOf, converge, managedCP } from './support/sync.js';
import { ADMIN_PASSWORD, secret, syncRequest } from './support/world.js';
import type { Obj } from './support/shared.js';

const b64 = (s: string) => Buffer.from(s).toString('base64');
const contains = (text: string, value: string) => text.includes(value) || text.includes(b64(value)) || text.includes(JSON.stringify(value).slice(1, -1));

const NUMERIC = 73914628;
const PASSCODE = 'otp-passcode-556677';
const LISTED = ['list-secret-alpha', 'list-secret-beta'];
const oddClouds = stringify({
  clouds: {
    numeric: { auth: { auth_url: 'http://k/v3', username: 'admin', password: NUMERIC, project_name: 'admin' } },
    totp: { auth: { auth_url: 'http://k/v3', username: 'admin', passcode: PASSCODE } },
    listed: { auth: { auth_url: 'http://k/v3', secrets: LISTED } },
  },
});
const SECRETS = [ADMIN_PASSWORD, String(NUMERIC), PASSCODE, ...LISTED];

t.test('capture: secrets by value, wherever they stand; the status: no secret from a child message', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'c5c3-values-'));
  const { app } = await testServer({ capture: { dir, key: 'k' } });
  t.teardown(() => app.close());
  const world = await converge(app, managedCP());
  await app.c5c3.capture!.flush();
  const before = new Set(readdirSync(dir));

  // MariaDB says why it is not Ready, quoting the admin password (an operator echoing a DSN).
  const children = world.children.map((c) =>
    c.kind === 'MariaDB'
      ? { ...c, status: { conditions: [{ type: 'Ready', status: 'False', reason: 'Failed', message: `cannot connect as root:${ADMIN_PASSWORD}@db (dsn ${b64(ADMIN_PASSWORD)})`, lastTransitionTime: '2026-01-01T00:00:00Z' }] } }
      : c,
  );
  const related = [...world.related, secret(world.parent.metadata.namespace, 'odd-clouds', { 'clouds.yaml': oddClouds })];
  const res = await post(app, '/controlplane/sync', syncRequest(world.parent, children, related));
  t.equal(res.status, 200);
  const infra = conditionOf(res.json.status, 'InfrastructureReady');
  t.match(infra, { status: 'False', message: /cannot connect as root:\[redacted\]@db \(dsn \[redacted\]\)/ }, 'the child message is kept, its secret redacted');
  t.notOk(contains(JSON.stringify(res.json.status), ADMIN_PASSWORD), 'no secret in the status');

  await app.c5c3.capture!.flush();
  const [file] = readdirSync(dir).filter((f) => !before.has(f));
  const text = readFileSync(join(dir, file!), 'utf8');
  for (const s of SECRETS) t.notOk(contains(text, s), `a ${s.length}-character secret is in no form in the capture`);
  t.match(text, /cannot connect as root:redacted-[0-9a-f]{16}@db/, 'the request message carries the placeholder');

  // Replay: the sanitised request answers the sanitised response, byte for byte.
  const call = JSON.parse(text) as CapturedCall;
  const { app: replay } = await testServer({ clock: () => new Date(call.clock), random: () => { throw new Error('no random draw expected'); } });
  const again = await post(replay, call.hook, call.request);
  await replay.close();
  const [, response] = new Sanitizer('k').sanitize(call.request, again.json);
  t.equal(JSON.stringify(response), JSON.stringify(call.response), 'replays to the recorded response');
  t.equal(call.clock, FIXED_NOW.toISOString());
});

t.test('Sanitizer: clouds.yaml numeric, unlisted and list-valued auth secrets, identifiers kept', async (t) => {
  const request = { related: [secret('ns', 's', { 'clouds.yaml': oddClouds }), { kind: 'ConfigMap', apiVersion: 'v1', data: { note: `the passcode is ${PASSCODE}; numeric ${NUMERIC}; ${LISTED[1]}` } }] };
  const [out] = new Sanitizer('k').sanitize(request) as Obj[];
  const text = JSON.stringify(out);
  for (const s of SECRETS.slice(1)) t.notOk(contains(text, s), `a ${s.length}-character secret is gone`);
  const doc = Buffer.from(out!.related[0].data['clouds.yaml'], 'base64').toString();
  t.match(doc, /auth_url: http:\/\/k\/v3/, 'identifiers stay');
  t.match(doc, /username: admin/);
  t.match(doc, /passcode: redacted-[0-9a-f]{16}/);
  t.match(out!.related[1].data.note, /^the passcode is redacted-[0-9a-f]{16}; numeric redacted-[0-9a-f]{16}; redacted-[0-9a-f]{16}$/);
  const [twice] = new Sanitizer('k').sanitize(out);
  t.same(twice, out, 'idempotent');
});

t.test('ValueReplacer: longest first, base64 (at every offset) too, short values never inside text', async (t) => {
  const r = new ValueReplacer([['secret-long-value', 'X'], ['secret-long', 'Y'], ['abc', 'Z']]);
  t.equal(r.apply('a secret-long-value and secret-long'), 'a X and Y');
  t.equal(r.apply(`b64 ${b64('secret-long-value')}`), `b64 ${b64('X')}`);
  t.equal(r.apply('abcdef'), 'abcdef', `values under ${MIN_SECRET_LENGTH} characters are not replaced inside words`);
  t.equal(r.apply('abc'), 'Z', `values under ${MIN_SECRET_LENGTH} characters are replaced where they stand whole`);
  for (const prefix of ['', 'u', 'us', 'user:']) {
    const encoded = b64(`${prefix}secret-long-value and more`);
    const out = r.apply(encoded);
    t.not(out, encoded, `base64 of a text holding the value at offset ${prefix.length}: replaced`);
    for (const core of base64Cores('secret-long-value')) t.notOk(out.includes(core), `offset ${prefix.length}: no core of the value left`);
  }
});

t.test('redactConditionMessages: new condition objects, the request never changed', async (t) => {
  const { redactionFor } = await import('../src/redaction.js');
  const redactConditionMessages = <R>(response: R, request: unknown): R => redactionFor(request)?.answer(response) ?? response;
  const kept = { type: 'InfrastructureReady', status: 'False', reason: 'X', message: `said ${ADMIN_PASSWORD}`, lastTransitionTime: '2026-01-01T00:00:00Z' };
  const request = { children: {}, related: { 'Secret.v1': { 'ns/p': secret('ns', 'p', { password: ADMIN_PASSWORD }) } } };
  const out = redactConditionMessages({ status: { conditions: [kept] }, children: [] }, request as never);
  t.equal((out.status as Obj).conditions[0].message, 'said [redacted]');
  t.equal(kept.message, `said ${ADMIN_PASSWORD}`, 'the condition object of the request is untouched');
});
