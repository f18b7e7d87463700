import t from 'tap';
import { isSensitiveKey, redactDeep, REDACTED } from '../src/logger.js';
import { testServer } from './support/server.js';
import { parentOf } from '../src/http/parent-of.js';

const SECRET = 'hunter2-very-secret-value';

t.test('sensitive keys', async (t) => {
  for (const key of ['data', 'stringData', 'password', 'adminPassword', 'clouds.yaml', 'application_credential_secret', 'token', 'Authorization']) {
    t.ok(isSensitiveKey(key), key);
  }
  for (const key of ['name', 'passwordSecretRef', 'secretName', 'cloudCredentialsRef', 'namespace', 'kind']) {
    t.notOk(isSensitiveKey(key), key);
  }
});

t.test('deep redaction keeps references readable and removes payloads', async (t) => {
  const secret = { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'x' }, data: { password: Buffer.from(SECRET).toString('base64') } };
  const out = redactDeep({ children: [secret], nested: { deeper: { password: SECRET, passwordSecretRef: { name: 'keystone-admin' } } } }) as any;
  t.equal(out.children[0].data, REDACTED);
  t.equal(out.children[0].metadata.name, 'x');
  t.equal(out.nested.deeper.password, REDACTED);
  t.same(out.nested.deeper.passwordSecretRef, { name: 'keystone-admin' });
});

t.test('no secret reaches a log line, at any depth', async (t) => {
  const { app, logs } = await testServer({ level: 'trace' });
  t.teardown(() => app.close());
  const b64 = Buffer.from(SECRET).toString('base64');
  app.log.info({ object: { kind: 'Secret', data: { value: b64 }, stringData: { 'clouds.yaml': SECRET } } }, 'a secret');
  app.log.debug({ a: { b: { c: { d: { e: { password: SECRET, credential: SECRET } } } } } }, 'deep');
  app.log.warn({ list: [{ token: SECRET }, { application_credential_secret: SECRET }] }, 'list');
  await app.inject({ method: 'POST', url: '/controlplane/customize', headers: { 'content-type': 'application/json', authorization: `Bearer ${SECRET}` }, payload: '{}' });
  t.ok(logs.length >= 4);
  for (const line of logs) {
    t.notMatch(line, SECRET, 'plain secret absent');
    t.notMatch(line, b64, 'base64 secret absent');
    t.doesNotThrow(() => JSON.parse(line), 'JSON line');
  }
});

t.test('one log line per request: a hook call at info, probes and metrics at debug', async (t) => {
  const { app, logs } = await testServer({ level: 'info' });
  t.teardown(() => app.close());
  for (const url of ['/healthz', '/readyz', '/metrics']) await app.inject({ method: 'GET', url });
  t.same(logs, [], 'no probe or scrape line at info');
  await app.inject({ method: 'POST', url: '/controlplane/customize', headers: { 'content-type': 'application/json' }, payload: '{"controller": {}, "parent": 7}' });
  t.equal(logs.length, 1, 'one line for a hook call');
  t.match(JSON.parse(logs[0]!), { level: 'info', hook: 'controlplane/customize', method: 'POST', path: '/controlplane/customize', statusCode: 400, durationMs: Number, msg: 'POST /controlplane/customize 400' });

  const debug = await testServer({ level: 'debug' });
  t.teardown(() => debug.app.close());
  await debug.app.inject({ method: 'GET', url: '/healthz?x=1' });
  t.equal(debug.logs.length, 1, 'probes are still there at debug');
  t.match(JSON.parse(debug.logs[0]!), { level: 'debug', path: '/healthz', statusCode: 200, msg: 'GET /healthz 200' });
});

t.test('parentOf: namespace/name of the parent (or the decorated object), only Kubernetes names, nothing else of the body', async (t) => {
  t.equal(parentOf({ parent: { metadata: { namespace: 'openstack', name: 'cp-1' } } }), 'openstack/cp-1');
  t.equal(parentOf({ object: { metadata: { namespace: 'ns', name: 'rotate.1' } } }), 'ns/rotate.1', "a DecoratorController's object");
  t.equal(parentOf({ parent: { metadata: { name: 'cluster-scoped' } } }), 'cluster-scoped');
  for (const body of [
    undefined, null, 7, 'x', {}, { parent: 7 }, { parent: { metadata: { name: 7 } } },
    { parent: { metadata: { namespace: 'ns', name: SECRET.toUpperCase() } } },
    { parent: { metadata: { namespace: 'ns', name: 'a\n{"level":60}' } } },
    { parent: { metadata: { namespace: 'bad/ns', name: 'x' } } },
    { parent: { metadata: { namespace: 'ns', name: 'x'.repeat(254) } } },
    { parent: { metadata: { namespace: 'n'.repeat(64), name: 'x' } } },
    JSON.parse('{"__proto__": {"metadata": {"name": "x"}}}'),
  ]) {
    t.equal(parentOf(body), undefined, JSON.stringify(body)?.slice(0, 80) ?? String(body));
  }
});

t.test('every hook log line names its parent: computed, answered from a kept answer, refused', async (t) => {
  const { app, logs } = await testServer({ level: 'info' });
  t.teardown(() => app.close());
  const parent = { apiVersion: 'c5c3.io/v1alpha1', kind: 'ControlPlane', metadata: { name: 'cp', namespace: 'openstack', uid: 'u' }, spec: { openStackRelease: '2025.2' } };
  const customize = async () => app.inject({ method: 'POST', url: '/controlplane/customize', payload: { controller: {}, parent } });
  // The same bytes three times: computed, computed and kept (it came before), then answered from the kept answer.
  for (let i = 0; i < 3; i++) t.equal((await customize()).statusCode, 200);
  const metrics = (await app.inject({ method: 'GET', url: '/metrics' })).body;
  t.match(metrics, /^c5c3_hooks_memo_lookups_total\{memo="answer",result="hit"\} 1$/m, 'the third call was answered from the kept answer, unparsed');
  const lines = logs.map((l) => JSON.parse(l));
  t.equal(lines.length, 3);
  for (const line of lines) t.match(line, { hook: 'controlplane/customize', parent: 'openstack/cp', statusCode: 200 });
  const rotation = { apiVersion: 'c5c3.io/v1alpha1', kind: 'CredentialRotation', metadata: { name: 'rotate', namespace: 'openstack' }, spec: {} };
  await app.inject({ method: 'POST', url: '/credentialrotation/customize', payload: { controller: {}, parent: rotation } });
  t.match(JSON.parse(logs.at(-1) ?? '{}'), { hook: 'credentialrotation/customize', parent: 'openstack/rotate' });
  await app.inject({ method: 'POST', url: '/controlplane/sync', payload: { controller: {}, parent: { ...parent, spec: 7 }, children: 'nope' } });
  t.match(JSON.parse(logs.at(-1) ?? '{}'), { statusCode: 400, parent: 'openstack/cp' }, 'a refused call too, when its body names the parent');
  await app.inject({ method: 'POST', url: '/controlplane/customize', payload: { controller: {}, parent: { metadata: { name: SECRET.toUpperCase(), namespace: 'openstack' } } } });
  const last = JSON.parse(logs.at(-1) ?? '{}');
  t.notOk('parent' in last, 'no parent field for a name Kubernetes would not admit');
  for (const line of logs) t.notMatch(line, SECRET.toUpperCase());
});

t.test('a hook call that fails on our side: its "hook failed" line names the parent too', async (t) => {
  // The clock breaks after the server is up: the hook call throws inside its handler (a 500). A
  // parent of its own: the kept answers of the test above (process-wide) would answer its bytes.
  let broken = false;
  const { app, logs } = await testServer({ level: 'info', clock: () => {
    if (broken) throw new Error(`clock broke near ${SECRET}`);
    return new Date('2026-11-21T12:00:00Z');
  } });
  t.teardown(() => app.close());
  await app.ready();
  broken = true;
  const parent = { apiVersion: 'c5c3.io/v1alpha1', kind: 'ControlPlane', metadata: { name: 'cp-broken', namespace: 'openstack', uid: 'u' }, spec: { openStackRelease: '2025.2' } };
  const res = await app.inject({ method: 'POST', url: '/controlplane/customize', payload: { controller: {}, parent } });
  t.equal(res.statusCode, 500);
  const failed = logs.map((l) => JSON.parse(l)).filter((l) => l.msg === 'hook failed');
  t.equal(failed.length, 1, 'the failure is logged once');
  t.match(failed[0], { level: 'error', parent: 'openstack/cp-broken' }, 'naming the parent');
  t.match(JSON.parse(logs.at(-1) ?? '{}'), { statusCode: 500, parent: 'openstack/cp-broken' }, 'as its request line does');
  for (const line of logs) t.notMatch(line, SECRET, 'never the error message');
});
