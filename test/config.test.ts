import t from 'tap';
import { DEFAULT_BODY_LIMIT, loadConfig } from '../src/config.js';

t.test('defaults', async (t) => {
  const c = loadConfig({});
  t.equal(c.port, 8080);
  t.equal(c.host, '0.0.0.0');
  t.equal(c.logLevel, 'info');
  t.equal(c.bodyLimit, DEFAULT_BODY_LIMIT);
  t.ok(c.bodyLimit >= 8 * 1024 * 1024, 'at least 8 MiB');
  t.equal(c.tls, undefined);
  t.equal(c.shutdownDelaySeconds, 0);
  t.equal(c.maxEventLoopDelayMs, 1000);
  t.same([c.capture, c.clock, c.randomSeed], [undefined, undefined, undefined], 'no capture, wall clock, crypto random');
});

t.test('capture and replay settings', async (t) => {
  const c = loadConfig({ CAPTURE_DIR: '/tmp/cap', CAPTURE_KEY: 'k', CLOCK: '2026-11-21T12:00:00Z', RANDOM_SEED: 'seed' });
  t.same(c.capture, { dir: '/tmp/cap', key: 'k' });
  t.equal(c.clock?.toISOString(), '2026-11-21T12:00:00.000Z');
  t.equal(c.randomSeed, 'seed');
  const keyless = loadConfig({ CAPTURE_DIR: '/tmp/cap' }).capture!;
  t.ok(Buffer.isBuffer(keyless.key) && keyless.key.length === 32, 'a random key per process when none is given');
});

t.test('values', async (t) => {
  const c = loadConfig({ PORT: '9443', HOST: '127.0.0.1', LOG_LEVEL: 'debug', BODY_LIMIT: '16Mi', SHUTDOWN_DELAY_SECONDS: '5', MAX_EVENT_LOOP_DELAY_MS: '0' });
  t.same([c.port, c.host, c.logLevel, c.bodyLimit, c.shutdownDelaySeconds, c.maxEventLoopDelayMs], [9443, '127.0.0.1', 'debug', 16 * 1024 * 1024, 5, 0]);
  t.equal(loadConfig({ BODY_LIMIT: '10485760' }).bodyLimit, 10485760);
});

t.test('bad values are configuration errors that name the variable', async (t) => {
  for (const [env, name] of [
    [{ PORT: 'http' }, 'PORT'],
    [{ PORT: '70000' }, 'PORT'],
    [{ LOG_LEVEL: 'verbose' }, 'LOG_LEVEL'],
    [{ BODY_LIMIT: 'lots' }, 'BODY_LIMIT'],
    [{ BODY_LIMIT: '10' }, 'BODY_LIMIT'],
    [{ TLS_CERT_FILE: '/tmp/cert.pem' }, 'TLS_CERT_FILE and TLS_KEY_FILE'],
    [{ TLS_CERT_FILE: '/nonexistent/cert', TLS_KEY_FILE: '/nonexistent/key' }, 'TLS_CERT_FILE'],
    [{ CLOCK: 'yesterday' }, 'CLOCK'],
    [{ MAX_EVENT_LOOP_DELAY_MS: '-1' }, 'MAX_EVENT_LOOP_DELAY_MS'],
    [{ CLOCK: '2026-13-45T99:00:00Z' }, 'CLOCK'],
    [{ CAPTURE_KEY: 'k' }, 'CAPTURE_KEY'],
  ] as [NodeJS.ProcessEnv, string][]) {
    t.throws(() => loadConfig(env), { name: 'ConfigError', message: new RegExp(name) }, JSON.stringify(env));
  }
});
