// Stage 1, reconcileInfrastructure → InfrastructureReady.
// Managed mode provisions the MariaDB and the Memcached named by the clusterRefs; brownfield
// provisions nothing. A same-named object that exists without our controller reference is
// adopted: read from `related`, never emitted (docs/architecture.md §2.3).
import { GVK } from '../../k8s/kinds.js';
import type { KubeObject } from '../../k8s/observed.js';
import { isReadyAsDesired, readinessDetail } from '../../k8s/readiness.js';
import { stringAt } from '../../k8s/read.js';
import { CONDITION, REASON, REQUEUE, type Reason } from '../conditions.js';
import { child } from '../children.js';
import { complete, waiting, type Stage, type StageInput, type StageResult } from '../stage.js';
import { invalidSpec } from './invalid-spec.js';

/** Seed: replicas 3, galera, 100Gi at creation (never shrunk afterwards, docs/architecture.md §2.3). */
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

export const infrastructureStage: Stage = {
  name: 'Infrastructure',
  conditionType: CONDITION.Infrastructure,
  reads: ['spec.infrastructure'],
  interval: REQUEUE.infra,
  run(input): StageResult {
    const resolved = input.resolved.infrastructure;
    if (!resolved.ok) return invalidSpec(resolved.errors, REQUEUE.infra);

    const { database, cache } = resolved.value;
    const backing: Backing[] = [];
    const dbName = database.clusterRef?.name;
    if (dbName) backing.push(mariadb(input, dbName));
    const cacheName = cache.clusterRef?.name;
    if (cacheName) backing.push(memcached(input, cacheName, cache.replicas ?? 3));

    // Both managed children are ensured before readiness is gated (seed: no half-provisioned plane).
    const children = backing.flatMap((b) => (b.desired ? [b.desired] : []));
    const notReady = backing.filter((b) => !isReadyAsDesired(b.observed, b.desired));
    const first = notReady[0];
    if (first === undefined) {
      const message =
        backing.length === 0
          ? 'Brownfield database and cache: nothing to provision'
          : `${backing.map((b) => b.label).join(' and ')} Ready`;
      return { condition: { status: 'True', reason: REASON.InfrastructureReady, message }, outcome: complete(), children };
    }
    return {
      condition: {
        status: 'False',
        reason: first.waitingReason,
        message: notReady.map((b) => readinessDetail(b.label, b.observed, b.desired)).join('; '),
      },
      outcome: waiting(REQUEUE.infra),
      children,
    };
  },
};

