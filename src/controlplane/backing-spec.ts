// What the Keystone CR and every service CR say of the shared infrastructure (database, cache), built once
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

/**
 * `spec.database` of a CR on the shared MariaDB: its clusterRef or host/port, the CR's own
 * database name, the credential (the user's brownfield Secret, else `ownSecret`'s `password`
 * key), and the TLS block as the CR's schema spells it.
 */
export function databaseSpec(
  infrastructure: Pick<Infrastructure, 'database' | 'databaseSecretRef'>,
  own: { database: string | undefined; secret: string; tls: unknown },
): Record<string, unknown> {
  const db = infrastructure.database;
  const ref = infrastructure.databaseSecretRef;
  return withoutUndefined({
    clusterRef: db.clusterRef ? { name: db.clusterRef.name ?? '' } : undefined,
    host: db.host,
    port: db.port,
    database: own.database,
    secretRef: ref ? withoutUndefined({ name: ref.name, key: ref.key }) : { name: own.secret, key: 'password' },
    tls: own.tls,
  });
}
