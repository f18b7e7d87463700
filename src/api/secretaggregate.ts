// The SecretAggregate API (c5c3.io/v1alpha1, docs/architecture.md §5): the single source of
// truth for its CRD and for the validation the SecretAggregate hooks apply to a parent.
//
// The reference CRD (crds/c5c3.io/secretaggregates.yaml) was a types-only placeholder with one
// field, `spec.targetSecretName`. It is kept, deprecated, as another way to name the target, so an
// object written against the placeholder keeps its value (an unknown field would be pruned) and
// everything the reference accepts is still accepted: `sources` and `target` are therefore not
// required by the schema; the sync hook reports a missing one as `InvalidSpec`.
import { Type, type Static } from '@sinclair/typebox';
import { cel, Conditions, CustomResource, Int64, LocalObjectReference, type KubeOptions } from './kube.js';
import { SECRETAGGREGATE } from './group.js';

/** DNS-1123 subdomain, the name of a Secret. */
export const SECRET_NAME_PATTERN = '^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$';
/** A key of a Secret's `data` (validation.IsConfigMapKey). */
export const SECRET_KEY_PATTERN = '^[-._a-zA-Z0-9]+$';

/** Bounds that keep the CEL rules below cheap enough for the API server's cost estimate. */
export const LIMITS = { sources: 32, keys: 256, name: 253 } as const;

export const SecretSource = Type.Object(
  {
    keys: Type.Optional(
      Type.Array(Type.String({ minLength: 1, maxLength: LIMITS.name, pattern: SECRET_KEY_PATTERN }), {
        maxItems: LIMITS.keys,
        description:
          'Keys to take from the source; every one must be present. Empty or absent: all keys the source has.',
        'x-kubernetes-list-type': 'set',
      } as KubeOptions),
    ),
    secretRef: LocalObjectReference('The source Secret, in the namespace of the SecretAggregate.'),
  },
  {
    description: 'One Secret to aggregate.',
    ...cel({ rule: "has(self.secretRef.name) && self.secretRef.name != ''", message: 'secretRef.name must name a Secret' }),
  },
);

export const SecretTarget = Type.Object(
  {
    name: Type.String({
      minLength: 1,
      maxLength: LIMITS.name,
      pattern: SECRET_NAME_PATTERN,
      description: 'Name of the aggregated Secret (owned by the SecretAggregate).',
    }),
  },
  { description: 'The output Secret.' },
);

export const SecretAggregateSpec = Type.Object(
  {
    sources: Type.Optional(
      Type.Array(SecretSource, {
        maxItems: LIMITS.sources,
        description:
          'Secrets to aggregate, in order. A key that two sources provide is a conflict: nothing is ' +
          'published until the sources (or their `keys`) are disjoint.',
      }),
    ),
    target: Type.Optional(SecretTarget),
    targetSecretName: Type.Optional(
      Type.String({
        description: 'Deprecated (the placeholder of the types-only API): use target.name. Read only when target is absent.',
      }),
    ),
  },
  {
    description: 'Desired state of a SecretAggregate.',
    ...cel(
      {
        rule: '!has(self.target) || !has(self.sources) || self.sources.all(s, s.secretRef.name != self.target.name)',
        message: 'the target Secret cannot also be a source',
      },
      {
        rule: '!has(self.target) || !has(self.targetSecretName) || self.targetSecretName == self.target.name',
        message: 'targetSecretName is deprecated and, when set with target.name, must equal it',
      },
    ),
  },
);

export const SecretAggregateStatus = Type.Object(
  {
    conditions: Type.Optional(Conditions('The Ready condition of the aggregate.')),
    observedGeneration: Type.Optional(Int64({ description: 'The .metadata.generation last reconciled.' })),
  },
  { description: 'Observed state of a SecretAggregate.' },
);

export const SecretAggregate = CustomResource(
  SecretAggregateSpec,
  SecretAggregateStatus,
  'SecretAggregate merges several Secrets of its namespace into one owned Secret.',
);

export { SECRETAGGREGATE };

export type SecretAggregateSpec = Static<typeof SecretAggregateSpec>;
