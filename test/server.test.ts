import t from 'tap';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'node:https';
import { fixtureControlPlane, readYamlDocs, REPO_ROOT } from './support/shared.js';
import { post, testServer } from './support/server.js';
import { HOOK_ROUTES } from '../src/routes.js';
import { MEMO, memoBytes } from '../src/memo.js';

const cpRequest = () => ({ controller: {}, parent: fixtureControlPlane('controlplane.yaml') });


/** The memos emptied under memory pressure (memo.ts memoryPressure): every one. */
const SHEDDING: string[] = Object.values(MEMO);
t.test('health, readiness and draining', async (t) => {
  const { app } = await testServer();
  t.teardown(() => app.close());
  t.equal((await app.inject({ method: 'GET', url: '/healthz' })).statusCode, 200);
  t.equal((await app.inject({ method: 'GET', url: '/readyz' })).statusCode, 200);
  app.c5c3.draining = true;
  const ready = await app.inject({ method: 'GET', url: '/readyz' });
  t.equal(ready.statusCode, 503, 'not ready while shutting down');
  t.equal((await app.inject({ method: 'GET', url: '/healthz' })).statusCode, 200, 'still alive while draining');
});

t.test('exactly the hook routes the Metacontroller objects name exist; others are 404', async (t) => {
  const named = readdirSync(join(REPO_ROOT, 'metacontroller'))
    .flatMap((f) => readYamlDocs(join(REPO_ROOT, 'metacontroller', f)))
    .flatMap((c) => Object.values(c.spec.hooks as Record<string, { webhook: { path: string } }>).map((h) => h.webhook.path));
  t.same(HOOK_ROUTES.map((r) => r.path).sort(), [...named].sort());
  t.same(named.sort(), [
    '/controlplane/customize', '/controlplane/finalize', '/controlplane/sync',
    '/credentialrotation/customize', '/credentialrotation/sync',
    '/secretaggregate/customize', '/secretaggregate/sync',
  ]);
  const { app } = await testServer();
  t.teardown(() => app.close());
  for (const path of ['/credentialrotation/finalize', '/secretaggregate/finalize']) {
    const res = await post(app, path, {});
    t.equal(res.status, 404, `${path}: no such hook`);
    t.same(Object.keys(res.json).sort(), ['error', 'message']);
  }
});

t.test('malformed requests get 400 with a JSON {error, message} naming the problem', async (t) => {
  const { app } = await testServer();
  t.teardown(() => app.close());
  const valid = cpRequest();
  const cases: [string, unknown, RegExp][] = [
    ['not JSON', 'this is not json', /not valid JSON/],
    ['truncated JSON', JSON.stringify(valid).slice(0, 200), /not valid JSON/],
    ['empty body', '', /empty|JSON/i],
    ['JSON array', '[]', /body: must be an object, got an array/],
    ['missing parent', { controller: {} }, /body\.parent: is required/],
    ['null parent', { parent: null }, /body\.parent: must be an object, got null/],
    ['parent without metadata', { parent: { apiVersion: 'c5c3.io/v1alpha1', kind: 'ControlPlane' } }, /body\.parent\.metadata: is required/],
    ['name of the wrong type', { parent: { ...valid.parent, metadata: { ...valid.parent.metadata, name: 42 } } }, /body\.parent\.metadata\.name: must be a string, got a number/],
    ['missing namespace', { parent: { ...valid.parent, metadata: { name: 'x' } } }, /body\.parent\.metadata\.namespace: is required/],
    ['wrong kind', { parent: { ...valid.parent, kind: 'Secret' } }, /body\.parent\.kind/],
    ['wrong apiVersion', { parent: { ...valid.parent, apiVersion: 'c5c3.io/v9' } }, /body\.parent\.apiVersion/],
    // `__proto__`/`constructor` are ordinary own keys (valid Secret keys): no pollution, and this
    // parent is refused for what it lacks.
    ['prototype pollution', '{"parent": {"__proto__": {"polluted": true}}}', /body\.parent\.apiVersion: is required/],
    ['constructor pollution', '{"parent": {"constructor": {"prototype": {"polluted": true}}}}', /body\.parent\.apiVersion: is required/],
  ];
  for (const [name, body, message] of cases) {
    const res = await post(app, '/controlplane/customize', body);
    t.equal(res.status, 400, `${name}: 400`);
    t.same(Object.keys(res.json ?? {}).sort(), ['error', 'message'], `${name}: error body shape`);
    t.match(res.json?.message, message, `${name}: message`);
  }
  t.equal(({} as Record<string, unknown>).polluted, undefined, 'Object.prototype untouched');
});

t.test('wrong content type is 415, a body over the limit is 413', async (t) => {
  const { app } = await testServer({ bodyLimit: 4096 });
  t.teardown(() => app.close());
  const wrongType = await post(app, '/controlplane/customize', JSON.stringify(cpRequest()), { 'content-type': 'application/xml' });
  t.equal(wrongType.status, 415);
  t.match(wrongType.json.message, /content-type/i);
  const big = cpRequest();
  (big.parent.metadata as Record<string, unknown>).annotations = { big: 'x'.repeat(8192) };
  const tooLarge = await post(app, '/controlplane/customize', big);
  t.equal(tooLarge.status, 413);
  t.same(Object.keys(tooLarge.json).sort(), ['error', 'message']);
});

t.test('the default body limit takes 8 MiB hook bodies', async (t) => {
  const { app } = await testServer();
  t.teardown(() => app.close());
  const big = cpRequest();
  (big.parent as Record<string, unknown>).status = { padding: 'x'.repeat(7 * 1024 * 1024) };
  const res = await post(app, '/controlplane/customize', big);
  t.equal(res.status, 200);
});

t.test('metrics: Node defaults and the hook histogram labelled by hook and outcome only', async (t) => {
  const { app } = await testServer();
  t.teardown(() => app.close());
  await post(app, '/controlplane/customize', cpRequest());
  await post(app, '/controlplane/customize', { parent: null });
  const res = await app.inject({ method: 'GET', url: '/metrics' });
  t.equal(res.statusCode, 200);
  t.match(res.headers['content-type'], /text\/plain/);
  const text = res.body;
  t.match(text, /process_cpu_user_seconds_total/, 'Node default metrics');
  t.match(text, /c5c3_hooks_request_duration_seconds_count\{hook="controlplane\/customize",outcome="success"\} 1/);
  t.match(text, /c5c3_hooks_request_duration_seconds_count\{hook="controlplane\/customize",outcome="client_error"\} 1/);
  t.match(text, /^c5c3_hooks_inflight_bytes 0$/m, 'the in-flight budget, given back');
  t.match(text, /^c5c3_hooks_ready 1$/m, 'readiness');
  t.match(text, new RegExp(`^c5c3_hooks_memo_bytes ${memoBytes()}$`, 'm'), 'what the memos hold, as they weigh it');
  for (const memo of SHEDDING) t.match(text, new RegExp(`^c5c3_hooks_memo_sheds_total\\{memo="${memo}"\\} \\d+$`, 'm'), `${memo}: its sheds series from the start`);
  for (const line of text.split('\n').filter((l) => l.startsWith('c5c3_hooks_') && !l.startsWith('c5c3_hooks_inflight_bytes ') && !l.startsWith('c5c3_hooks_memo_bytes ') && !l.startsWith('c5c3_hooks_ready '))) {
    const labels = [...line.matchAll(/(\w+)="/g)].map((m) => m[1]).filter((l) => l !== 'le');
    if (line.startsWith('c5c3_hooks_controlplane_conditions_total{')) {
      // ControlPlane answers by condition: bounded by the types and reasons of conditions.ts (test/monitoring.test.ts).
      t.same(labels, ['condition', 'status', 'reason'], `no per-object labels: ${line.split(' ')[0]}`);
    } else if (line.startsWith('c5c3_hooks_memo_lookups_total{')) {
      // The memo counters: one series per memo (memo.ts MEMO, a fixed set) and result.
      t.same(labels, ['memo', 'result'], `no per-object labels: ${line.split(' ')[0]}`);
      t.ok((Object.values(MEMO) as string[]).includes(/memo="([^"]+)"/.exec(line)![1]!), `a memo of MEMO: ${line.split(' ')[0]}`);
    } else if (line.startsWith('c5c3_hooks_memo_sheds_total{')) {
      // The memos emptied under memory pressure: one series per such memo, there from the start.
      t.same(labels, ['memo'], `no per-object labels: ${line.split(' ')[0]}`);
      t.ok(SHEDDING.includes(/memo="([^"]+)"/.exec(line)![1]!), `a memo that sheds: ${line}`);
    } else if (line.startsWith('c5c3_hooks_build_info{')) {
      // The build: one series per process, its version and Node's (test/monitoring.test.ts).
      t.same(labels, ['version', 'node'], `no per-object labels: ${line.split(' ')[0]}`);
    } else {
      t.same(labels, ['hook', 'outcome'], `no per-object labels: ${line.split(' ')[0]}`);
    }
  }
  t.notMatch(text, /controlplane-keystone|openstack/, 'no object names in metrics');
});

t.test('HTTPS when a key pair is configured', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'c5c3-tls-'));
  execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '1', '-subj', '/CN=localhost', '-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem')], { stdio: 'ignore' });
  const { app } = await testServer({ tls: { cert: readFileSync(join(dir, 'cert.pem')), key: readFileSync(join(dir, 'key.pem')) } });
  t.teardown(() => app.close());
  await app.listen({ port: 0, host: '127.0.0.1' });
  const port = (app.server.address() as { port: number }).port;
  const body = await new Promise<string>((resolve, reject) => {
    request({ host: '127.0.0.1', port, path: '/healthz', ca: readFileSync(join(dir, 'cert.pem')), servername: 'localhost' }, (res) => {
      let data = '';
      res.on('data', (c) => (data += c));
      res.on('end', () => resolve(`${res.statusCode} ${data}`));
    })
      .on('error', reject)
      .end();
  });
  t.equal(body, '200 {"status":"ok"}');
});
