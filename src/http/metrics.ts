// The Prometheus scrape (/metrics) and the per-hook request duration, observed on every response.
import fp from 'fastify-plugin';
import type { FastifyInstance } from 'fastify';
import { outcomeOf, type Metrics } from '../metrics.js';
import { hookOf } from './hook-of.js';

export const metricsPlugin = fp(
  async (app: FastifyInstance, options: { metrics: Metrics }) => {
    const { metrics } = options;
    app.addHook('onResponse', async (request, reply) => {
      const hook = hookOf(request);
      if (hook) metrics.hookDuration.observe({ hook, outcome: outcomeOf(reply.statusCode) }, reply.elapsedTime / 1000);
    });
    app.get('/metrics', async (_request, reply) => reply.type(metrics.registry.contentType).send(await metrics.registry.metrics()));
  },
  { name: 'c5c3-metrics' },
);
