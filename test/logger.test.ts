import t from 'tap';
import { isSensitiveKey, redactDeep, REDACTED } from '../src/logger.js';
import { testServer } from './support/server.js';

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
