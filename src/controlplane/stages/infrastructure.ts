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
import { findCondition } from '../../k8s/conditions.js';
import { at } from '../../k8s/read.js';
import { carries } from '../../k8s/carries.js';
import { isTerminating } from '../../k8s/observed.js';
import { secretString } from '../../k8s/secret.js';
import { TRANSPORT_URL_KEY, rabbitmqName } from '../names.js';
import { invalidSpec } from './invalid-spec.js';

/** Seed: replicas 3, galera, 100Gi at creation (never shrunk afterwards, docs/architecture.md §2.3). */
export const MARIADB_REPLICAS = 3;
export const MARIADB_STORAGE_SIZE = '100Gi';

interface Backing {
  label: string;
  /** Readiness other than Ready at the current generation (the RabbitmqCluster's AllReplicasReady). */
  ready?: (observed: KubeObject | undefined, desired: KubeObject | undefined) => boolean;
  detail?: string;
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

/**
 * The cluster-operator's RabbitmqCluster reports no Ready condition: it is ready when
 * AllReplicasReady is True for its current generation (status.observedGeneration) and it carries
 * what we asked.
 */
function rabbitmqReady(observed: KubeObject | undefined, desired: KubeObject | undefined): boolean {
  if (!observed || isTerminating(observed)) return false;
  if (desired && !carries(observed, desired, ['spec'])) return false;
  const reported = at(observed, 'status', 'observedGeneration');
  if (typeof reported === 'number' && reported !== at(observed, 'metadata', 'generation')) return false;
  return findCondition(observed, 'AllReplicasReady')?.status === 'True';
}

/** Managed messaging (docs/architecture.md §2.3): the RabbitmqCluster {cp}-rabbitmq, adopted when it exists unowned. */
function rabbitmq(input: StageInput, replicas: number): Backing {
  const name = rabbitmqName(input.cp.name);
  const label = `RabbitmqCluster ${name}`;
  const owned = input.children.get(GVK.RabbitmqCluster, input.cp.namespace, name);
  const base = { label, waitingReason: REASON.WaitingForMessaging, name, ready: rabbitmqReady };
  if (!owned) {
    const adopted = input.related.get(GVK.RabbitmqCluster, input.cp.namespace, name);
    if (adopted) return { ...base, observed: adopted, desired: undefined };
  }
  return { ...base, observed: owned, desired: child(GVK.RabbitmqCluster, input.cp, name, { spec: { replicas } }) };
}

/** Brownfield messaging: the user's Secret must hold the bus URL (never read beyond its presence). */
function messagingSecret(input: StageInput, ref: { name: string; key?: string }): Backing {
  const key = ref.key ?? TRANSPORT_URL_KEY;
  const secret = input.related.get(GVK.Secret, input.cp.namespace, ref.name);
  const has = secretString(secret, key) !== undefined;
  return {
    label: `Messaging Secret ${ref.name}`,
    waitingReason: REASON.WaitingForMessaging,
    name: ref.name,
    observed: secret,
    desired: undefined,
    ready: () => has,
    detail: secret ? `Messaging Secret ${ref.name} has no key ${key}` : `Messaging Secret ${ref.name} does not exist`,
  };
}

/** The message bus when declared: managed, brownfield, or the problem (a spec that bypassed the CRD's CEL rule). */
function messaging(input: StageInput): Backing | string | undefined {
  const m = input.spec.infrastructure?.messaging;
  if (!m) return undefined;
  const problem = 'spec.infrastructure.messaging: exactly one of replicas (managed) or secretRef (brownfield) must be set';
  if (m.secretRef) return m.replicas === undefined ? messagingSecret(input, m.secretRef) : problem;
  return m.replicas !== undefined ? rabbitmq(input, m.replicas) : problem;
}

const isBackingReady = (b: Backing) => (b.ready ? b.ready(b.observed, b.desired) : isReadyAsDesired(b.observed, b.desired));
const backingDetail = (b: Backing) => (b.detail ?? readinessDetail(b.label, b.observed, b.desired));

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
    const bus = messaging(input);
    if (typeof bus === 'string') return invalidSpec([bus], REQUEUE.infra);
    if (bus) backing.push(bus);

    // Both managed children are ensured before readiness is gated (seed: no half-provisioned plane).
    const children = backing.flatMap((b) => (b.desired ? [b.desired] : []));
    const notReady = backing.filter((b) => !isBackingReady(b));
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
        message: notReady.map(backingDetail).join('; '),
      },
      outcome: waiting(REQUEUE.infra),
      children,
    };
  },
};

