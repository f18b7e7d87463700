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
