// What the Keystone CR and every service CR say of the shared infrastructure, built once
// (keystone-spec.ts, services/descriptor.ts).
import type { Infrastructure } from './spec.js';

/** The object without its undefined properties (a CR spec carries only what is set). */
export function withoutUndefined(obj: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(obj).filter(([, v]) => v !== undefined));
}

/** `spec.cache` of a CR on the shared Memcached: its clusterRef, or the brownfield servers. */
export function cacheSpec(cache: Infrastructure['cache']): Record<string, unknown> {
  return withoutUndefined({
    clusterRef: cache.clusterRef ? { name: cache.clusterRef.name ?? '' } : undefined,
    servers: cache.servers,
    backend: cache.backend,
    replicas: cache.replicas,
  });
}
