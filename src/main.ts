// Process entry point: configuration from the environment, listen, graceful shutdown.
import { ConfigError, loadConfig } from './config.js';
import { buildServer, closeGracefully } from './server.js';

/** Shutdown: how long connections accepted before the listener closed may take to send their request. */
const SHUTDOWN_GRACE_MS = 2000;
import { serverOptionsFrom } from './server-options.js';

async function main(): Promise<void> {
  let config;
  try {
    config = loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`c5c3-hooks: configuration error: ${err.message}\n`);
      process.exit(2);
    }
    throw err;
  }
  const fixedClock = config.clock;
  const app = await buildServer(serverOptionsFrom(config));
  if (fixedClock || config.randomSeed) {
    app.log.warn({ clock: fixedClock?.toISOString(), randomSeed: config.randomSeed !== undefined }, 'replay mode: CLOCK/RANDOM_SEED pin the hooks; never run this way in a cluster');
  }
  if (config.capture) app.log.info({ dir: config.capture.dir }, 'capturing every hook call (sanitised)');

  let stopping = false;
  const shutdown = async (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    // Not ready first, so the Service stops routing here (every answer now closes its connection,
    // so keep-alive clients reconnect elsewhere); then stop accepting, give connections already
    // accepted their answer, let in-flight requests finish, close what has no answer coming (a
    // stalled upload among them: server.ts closeGracefully), and exit cleanly.
    app.c5c3.draining = true;
    app.log.info({ signal, delaySeconds: config.shutdownDelaySeconds }, 'shutting down');
    if (config.shutdownDelaySeconds > 0) {
      await new Promise((resolve) => setTimeout(resolve, config.shutdownDelaySeconds * 1000));
    }
    try {
      const closed = await closeGracefully(app, SHUTDOWN_GRACE_MS);
      app.log.info({ closedConnections: closed }, 'shut down');
      process.exit(0);
    } catch (err) {
      app.log.error({ err }, 'shutdown failed');
      process.exit(1);
    }
  };
  process.once('SIGTERM', (signal) => void shutdown(signal));
  process.once('SIGINT', (signal) => void shutdown(signal));

  await app.listen({ port: config.port, host: config.host });
}

main().catch((err) => {
  process.stderr.write(`c5c3-hooks: fatal: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
