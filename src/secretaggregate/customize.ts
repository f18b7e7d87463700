// POST /secretaggregate/customize: the source Secrets by name, in the SecretAggregate's namespace,
// and the target's name (to see a Secret of that name that is not ours). Never a rule without
// names: that would relate every Secret of the namespace. Metacontroller caches the answer per
// parent generation, so it depends on the spec only.
import type { CustomizeHookResponse, SecretAggregateParent } from '../api/hooks.js';
import { GVK } from '../k8s/kinds.js';
import { at, isObjectName } from '../k8s/read.js';

export function customizeSecretAggregate(parent: SecretAggregateParent): CustomizeHookResponse {
  const spec = parent.spec;
  const sources = at(spec, 'sources');
  const candidates = [
    ...(Array.isArray(sources) ? sources.map((s) => at(s, 'secretRef', 'name')) : []),
    at(spec, 'target', 'name') ?? at(spec, 'targetSecretName'),
  ];
  const names = [...new Set(candidates.filter(isObjectName))];
  return { relatedResources: names.length > 0 ? [{ ...GVK.Secret.rule, namespace: parent.metadata.namespace, names }] : [] };
}
