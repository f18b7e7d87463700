// Liveness and readiness: /healthz always ok while the process serves; /readyz 503 once shutdown
// began (`draining`), so the Service stops routing here before the server closes.
import fp from 'fastify-plugin';
import type { FastifyInstance } from 'fastify';

export const probesPlugin = fp(
  async (app: FastifyInstance, options: { draining: () => boolean }) => {
    app.get('/healthz', async () => ({ status: 'ok' }));
    app.get('/readyz', async (_request, reply) => (options.draining() ? reply.code(503).send({ status: 'shutting down' }) : { status: 'ok' }));
  },
  { name: 'c5c3-probes' },
);
