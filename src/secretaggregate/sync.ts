// POST /secretaggregate/sync (CompositeController): the target Secret, merged from the source
// Secrets in spec order, all their keys or the selected ones. The target is published only whole:
// while a source or a selected key is missing, two sources provide the same key, or the result
// would not fit in a Secret or in what Metacontroller can apply, the observed target is returned exactly as it is (its last content)
// and Ready says why. A Secret of the target's name that is not ours is never touched. An owned
// Secret of another name (the target before a rename) is released only by the response that
// publishes the new target, and never while the spec names it as a source. No message carries a value: they name Secrets and keys.
import type { CompositeHookResponse, SecretAggregateParent, SecretAggregateSyncRequest } from '../api/hooks.js';
import { decideCondition, previousConditions, type ConditionDecision } from '../k8s/conditions.js';
import { assertKeepsObserved, keepObserved } from '../k8s/invariant.js';
import { GVK } from '../k8s/kinds.js';
import { identity, isTerminating, ObjectIndex, type KubeObject } from '../k8s/observed.js';
import { at } from '../k8s/read.js';
import { labelValue } from '../k8s/labels.js';
import { aggregate, MAX_SECRET_BYTES } from './aggregate.js';
import { appliedAnnotationBytes, TOTAL_ANNOTATION_BYTES } from '../k8s/apply-limits.js';
import { listed, READY, REASON } from './conditions.js';
import { readSpec, type AggregateSpec } from './spec.js';

/** Label on the target: the SecretAggregate it belongs to (for people; selection uses controller-uid). */
export const SECRETAGGREGATE_LABEL = 'c5c3.io/secretaggregate';

interface Verdict {
  ready: ConditionDecision;
  /** The target to publish; undefined = keep every observed child as it is. */
  target?: KubeObject;
}

function decide(sa: SecretAggregateParent, spec: AggregateSpec, owned: ObjectIndex, related: ObjectIndex): Verdict {
  const ns = sa.metadata.namespace;
  const observedTarget = owned.get(GVK.Secret, ns, spec.target);
  const foreign = related.get(GVK.Secret, ns, spec.target);
  const wait = (reason: string, message: string): Verdict => ({ ready: { status: 'False', reason, message } });
  const keeping = observedTarget
    ? `Secret ${spec.target} keeps its last content`
    : `Secret ${spec.target} is created once every source is complete`;

  if (!observedTarget && foreign && !controlledBy(foreign, sa)) {
    return wait(REASON.TargetNotOwned, `Secret ${spec.target} exists and is not owned by SecretAggregate ${sa.metadata.name}: it is never overwritten; delete it or choose another target.name`);
  }
  const result = aggregate(spec.sources, (name) => related.get(GVK.Secret, ns, name));
  if (result.missing.length > 0) return wait(REASON.WaitingForSource, `Waiting for the sources: ${listed(result.missing)}; ${keeping}`);
  if (result.conflicts.length > 0) {
    const named = result.conflicts.map((c) => `key ${c.key} from ${c.sources.map((i) => `sources[${i}] (Secret ${spec.sources[i]!.name})`).join(' and ')}`);
    return wait(REASON.KeyConflict, `Two sources provide the same key: ${listed(named)}. Select keys so that every key has one source; ${keeping}`);
  }
  if (result.bytes > MAX_SECRET_BYTES) {
    return wait(REASON.TargetTooLarge, `The aggregate would hold ${result.bytes} bytes, more than a Secret can (${MAX_SECRET_BYTES}); ${keeping}`);
  }
  if (observedTarget && isTerminating(observedTarget)) {
    return wait(REASON.WaitingForTarget, `Secret ${spec.target} is being deleted; it is created again once it is gone`);
  }
  const target = {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: spec.target, namespace: ns, labels: { [SECRETAGGREGATE_LABEL]: labelValue(sa.metadata.name) } },
    type: 'Opaque',
    data: result.data,
  };
  // Metacontroller copies the whole target into its last-applied annotation (k8s/apply-limits.ts):
  // past the API server's annotation limit it could never be created or updated.
  const annotationBytes = appliedAnnotationBytes(target, sa.metadata.uid ?? UID_PLACEHOLDER);
  if (annotationBytes > TOTAL_ANNOTATION_BYTES) {
    return wait(
      REASON.TargetTooLarge,
      `The aggregate (${result.bytes} bytes) cannot be applied: Metacontroller copies the whole Secret into its last-applied annotation, ${annotationBytes} bytes of annotations, more than the API server admits (${TOTAL_ANNOTATION_BYTES}); ${keeping}`,
    );
  }
  const count = Object.keys(result.data).length;
  const secrets = new Set(spec.sources.map((s) => s.name)).size;
  return {
    ready: { status: 'True', reason: REASON.Aggregated, message: `Secret ${spec.target} holds ${count} ${count === 1 ? 'key' : 'keys'} from ${secrets} ${secrets === 1 ? 'Secret' : 'Secrets'}` },
    target,
  };
}

/** A uid as long as the API server's (a UUID), when a request does not carry the parent's. */
const UID_PLACEHOLDER = '00000000-0000-0000-0000-000000000000';

/** Whether `obj` names `owner` as its controller (Metacontroller may list it in related before children). */
function controlledBy(obj: KubeObject, owner: SecretAggregateParent): boolean {
  const refs = at(obj, 'metadata', 'ownerReferences');
  const uid = owner.metadata.uid;
  return uid !== undefined && Array.isArray(refs) && refs.some((r) => at(r, 'controller') === true && at(r, 'uid') === uid);
}

export function syncSecretAggregate(request: SecretAggregateSyncRequest, context: { now: () => Date }): CompositeHookResponse {
  const sa = request.parent;
  const generation = sa.metadata.generation ?? 0;
  const owned = new ObjectIndex(request.children, request.parent.metadata.namespace);
  const related = new ObjectIndex(request.related, request.parent.metadata.namespace);
  const reading = readSpec(sa.spec);
  const verdict: Verdict = reading.spec
    ? decide(sa, reading.spec, owned, related)
    : { ready: { status: 'False', reason: REASON.InvalidSpec, message: `The spec is invalid: ${listed(reading.errors)}` } };

  // Published: every other owned Secret (a previous target) is released, unless the spec now
  // reads it as a source. Otherwise all are kept. Only Secrets: anything else a request claims
  // as a child is returned as it is.
  const desired = verdict.target ? [verdict.target] : [];
  const sources = new Set(reading.spec?.sources.map((s) => s.name));
  const previousTargets = verdict.target ? owned.ofKind(GVK.Secret).filter((o) => o.metadata.name !== verdict.target!.metadata.name && !sources.has(o.metadata.name)) : [];
  const released = new Set(previousTargets.map(identity));
  const children = keepObserved(desired, owned, released);
  assertKeepsObserved(children, owned, released);

  const previous = previousConditions(sa.status).get(READY);
  return {
    status: { conditions: [decideCondition(READY, verdict.ready, previous, generation, context.now)], observedGeneration: generation },
    children,
  };
}
