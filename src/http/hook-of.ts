// The hook a request is for (its route's `config.hook`), or undefined for probes, metrics and
// unknown paths.
import type { FastifyRequest } from 'fastify';

export function hookOf(request: FastifyRequest): string | undefined {
  const config: unknown = request.routeOptions.config;
  if (typeof config !== 'object' || config === null || !('hook' in config)) return undefined;
  return typeof config.hook === 'string' ? config.hook : undefined;
}
