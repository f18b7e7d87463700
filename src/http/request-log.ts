// One log line per request, never the body: a hook call at info, with the parent it is for
// (parent-of.ts), probes and scrapes (~36 a minute per pod) at debug, anything else (404, 405, …) at info.
import fp from 'fastify-plugin';
import type { FastifyInstance } from 'fastify';
import { hookOf } from './hook-of.js';
import { parentOfRequest } from './parent-of.js';

const QUIET_PATHS = new Set(['/healthz', '/readyz', '/metrics']);

export const requestLogPlugin = fp(
  async (app: FastifyInstance) => {
    app.addHook('onResponse', async (request, reply) => {
      const hook = hookOf(request);
      const path = request.url.split('?')[0] ?? request.url;
      const line = { method: request.method, path, statusCode: reply.statusCode, durationMs: Math.round(reply.elapsedTime * 10) / 10 };
      const message = `${request.method} ${path} ${reply.statusCode}`;
      if (!hook && QUIET_PATHS.has(path)) request.log.debug(line, message);
      else if (!hook) request.log.info(line, message);
      else {
        const parent = parentOfRequest(request);
        request.log.info(parent === undefined ? { hook, ...line } : { hook, parent, ...line }, message);
      }
    });
  },
  { name: 'c5c3-request-log' },
);
