// The server options of a deployed process, from its configuration: main.ts starts the service
// with them, and `npm run bench` starts the server it measures with the very same ones.
import type { Config } from './config.js';
import type { ServerOptions } from './server.js';

export function serverOptionsFrom(config: Config): ServerOptions {
  const fixedClock = config.clock;
  return {
    logLevel: config.logLevel,
    bodyLimit: config.bodyLimit,
    maxInflightBytes: config.maxInflightBytes,
    tls: config.tls,
    capture: config.capture,
    clock: fixedClock ? () => fixedClock : undefined,
    randomSeed: config.randomSeed,
    overload: { maxEventLoopDelayMs: config.maxEventLoopDelayMs },
  };
}
