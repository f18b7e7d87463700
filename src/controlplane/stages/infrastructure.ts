// Stage 1, reconcileInfrastructure → InfrastructureReady.
// Managed mode provisions the MariaDB and the Memcached named by the clusterRefs; brownfield
// provisions nothing. A same-named object that exists without our controller reference is
// adopted: read from `related`, never emitted (DESIGN §4.6).
import { GVK } from '../../k8s/kinds.js';
import type { KubeObject } from '../../k8s/observed.js';
import { isReadyAsDesired, readinessDetail } from '../../k8s/readiness.js';
import { at, isObject, isObjectName, stringAt } from '../../k8s/read.js';
import { CONDITION, REASON, REQUEUE, type Reason } from '../conditions.js';
import { child } from '../children.js';
import { complete, waiting, type Stage, type StageInput, type StageResult } from '../stage.js';
import { invalidSpec } from './invalid-spec.js';

/** Seed: replicas 3, galera, 100Gi at creation (never shrunk afterwards, DESIGN §9.9). */
export const MARIADB_REPLICAS = 3;
export const MARIADB_STORAGE_SIZE = '100Gi';

interface Backing {
  label: string;
  /** The seed's reason while this backing service is not Ready. */
  waitingReason: Reason;
  name: string;
  /** The object whose readiness counts: our child, or the adopted pre-existing one. */
  observed: KubeObject | undefined;
  desired: KubeObject | undefined;
}

function mariadb(input: StageInput, name: string): Backing {
  const owned = input.children.get(GVK.MariaDB, input.cp.namespace, name);
  if (!owned) {
    const adopted = input.related.get(GVK.MariaDB, input.cp.namespace, name);
    if (adopted) return { label: `MariaDB ${name}`, waitingReason: REASON.WaitingForDatabase, name, observed: adopted, desired: undefined };
  }
  const size = stringAt(owned, 'spec', 'storage', 'size') ?? MARIADB_STORAGE_SIZE;
  const desired = child(GVK.MariaDB, input.cp, name, {
    spec: { replicas: MARIADB_REPLICAS, galera: { enabled: true }, storage: { size } },
  });
  return { label: `MariaDB ${name}`, waitingReason: REASON.WaitingForDatabase, name, observed: owned, desired };
}

function memcached(input: StageInput, name: string, replicas: number): Backing {
  const owned = input.children.get(GVK.Memcached, input.cp.namespace, name);
  if (!owned) {
    const adopted = input.related.get(GVK.Memcached, input.cp.namespace, name);
    if (adopted) return { label: `Memcached ${name}`, waitingReason: REASON.WaitingForCache, name, observed: adopted, desired: undefined };
  }
  const desired = child(GVK.Memcached, input.cp, name, { spec: { replicas } });
  return { label: `Memcached ${name}`, waitingReason: REASON.WaitingForCache, name, observed: owned, desired };
}

function modeErrors(spec: unknown): string[] {
  const errors: string[] = [];
  const db = at(spec, 'infrastructure', 'database');
  if (isObject(db) && isObject(db.clusterRef) === (db.host !== undefined)) {
    errors.push('spec.infrastructure.database: exactly one of clusterRef or host must be set');
  }
  if (isObject(db) && isObject(db.clusterRef) && !isObjectName(db.clusterRef.name)) {
    errors.push('spec.infrastructure.database.clusterRef.name: must be a valid object name');
  }
  const cache = at(spec, 'infrastructure', 'cache');
  const servers = at(cache, 'servers');
  if (isObject(cache) && isObject(cache.clusterRef) === (Array.isArray(servers) && servers.length > 0)) {
    errors.push('spec.infrastructure.cache: exactly one of clusterRef or servers must be set');
  }
  if (isObject(cache) && isObject(cache.clusterRef) && !isObjectName(cache.clusterRef.name)) {
    errors.push('spec.infrastructure.cache.clusterRef.name: must be a valid object name');
  }
  return errors;
}

export const infrastructureStage: Stage = {
  name: 'Infrastructure',
  conditionType: CONDITION.Infrastructure,
  reads: ['spec.infrastructure'],
  interval: REQUEUE.infra,
  run(input): StageResult {
    const errors = modeErrors(input.spec);
    if (errors.length > 0) return invalidSpec(errors, REQUEUE.infra);

    const infra = input.spec.infrastructure!;
    const backing: Backing[] = [];
    const dbName = infra.database?.clusterRef?.name;
    if (dbName) backing.push(mariadb(input, dbName));
    const cacheName = infra.cache?.clusterRef?.name;
    if (cacheName) backing.push(memcached(input, cacheName, infra.cache!.replicas ?? 3));

    // Both managed children are ensured before readiness is gated (seed: no half-provisioned plane).
    const children = backing.flatMap((b) => (b.desired ? [b.desired] : []));
    const notReady = backing.filter((b) => !isReadyAsDesired(b.observed, b.desired));
    if (notReady.length === 0) {
      const message =
        backing.length === 0
          ? 'Brownfield database and cache: nothing to provision'
          : `${backing.map((b) => b.label).join(' and ')} Ready`;
      return { condition: { status: 'True', reason: REASON.InfrastructureReady, message }, outcome: complete(), children };
    }
    return {
      condition: {
        status: 'False',
        reason: notReady[0]!.waitingReason,
        message: notReady.map((b) => readinessDetail(b.label, b.observed, b.desired)).join('; '),
      },
      outcome: waiting(REQUEUE.infra),
      children,
    };
  },
};

