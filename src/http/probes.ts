// Liveness and readiness: /healthz always ok while the process serves; /readyz 503 once shutdown
// began (`draining`), so the Service stops routing here before the server closes, or while the
// server cannot serve hook calls (`unready` says why: an in-flight budget that stays exhausted).
import fp from 'fastify-plugin';
import type { FastifyInstance } from 'fastify';

export const probesPlugin = fp(
  async (app: FastifyInstance, options: { draining: () => boolean; unready?: () => string | undefined }) => {
    app.get('/healthz', async () => ({ status: 'ok' }));
    app.get('/readyz', async (_request, reply) => {
      if (options.draining()) return reply.code(503).send({ status: 'shutting down' });
      const why = options.unready?.();
      return why === undefined ? { status: 'ok' } : reply.code(503).send({ status: 'not ready', reason: why });
    });
  },
  { name: 'c5c3-probes' },
);
