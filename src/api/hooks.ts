// Metacontroller v2 hook envelopes (reference/metacontroller.md §1.3–§3).
//
// Requests are validated loosely: unknown fields are allowed everywhere (a newer Metacontroller
// must not break us), and only what the hooks read is typed. A request that fails these schemas
// is answered 400 and Metacontroller retries without applying anything.
//
// Responses are what Metacontroller decodes in strict mode (the v2 default): no top-level key
// other than the ones below may appear, so these schemas are closed at the top level.
import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { CONTROLPLANE } from './controlplane.js';
import { CREDENTIALROTATION } from './credentialrotation.js';
import { SECRETAGGREGATE } from './secretaggregate.js';

const Timestamp = Type.Union([Type.String(), Type.Null()]);
const Labels = Type.Record(Type.String(), Type.String());

/** The ObjectMeta fields the hooks read, typed; everything else passes through. */
const metaFields = {
  name: Type.String({ minLength: 1 }),
  uid: Type.Optional(Type.String()),
  generation: Type.Optional(Type.Integer({ minimum: 0 })),
  creationTimestamp: Type.Optional(Timestamp),
  deletionTimestamp: Type.Optional(Timestamp),
  labels: Type.Optional(Labels),
  annotations: Type.Optional(Labels),
};
export const ObjectMeta = Type.Object({ ...metaFields, namespace: Type.Optional(Type.String()) });
/** Metadata of a namespaced parent: the namespace is required (every child lives there). */
export const NamespacedObjectMeta = Type.Object({ ...metaFields, namespace: Type.String({ minLength: 1 }) });

/** Any Kubernetes object: apiVersion, kind and a named metadata; the rest is free-form. */
export const KubeObject = Type.Object({
  apiVersion: Type.String({ minLength: 1 }),
  kind: Type.String({ minLength: 1 }),
  metadata: ObjectMeta,
});

/** A namespaced object of one c5c3.io kind, as a parent (the spec is checked by the hook itself). */
function Parent(names: { apiVersion: string; kind: string }) {
  return Type.Object({
    apiVersion: Type.Literal(names.apiVersion),
    kind: Type.Literal(names.kind),
    metadata: NamespacedObjectMeta,
    spec: Type.Optional(Type.Unknown()),
    status: Type.Optional(Type.Unknown()),
  });
}

export const ControlPlaneParent = Parent(CONTROLPLANE);
export const CredentialRotationParent = Parent(CREDENTIALROTATION);
export const SecretAggregateParent = Parent(SECRETAGGREGATE);

/** `children` / `related` / `attachments`: group key (Kind.group/version) → object key → object. */
export const ObjectMap = Type.Record(Type.String(), Type.Record(Type.String(), KubeObject));

const Controller = Type.Optional(Type.Object({}));

/** v2 CompositeController sync / finalize request. */
export function CompositeHookRequest<P extends TSchema>(parent: P) {
  return Type.Object({
    controller: Controller,
    parent,
    children: ObjectMap,
    related: Type.Optional(ObjectMap),
    finalizing: Type.Optional(Type.Boolean()),
  });
}

/** v2 CompositeController sync / finalize response. */
export const CompositeHookResponse = Type.Object(
  {
    status: Type.Object({}),
    children: Type.Array(KubeObject),
    resyncAfterSeconds: Type.Optional(Type.Number({ minimum: 0 })),
    finalized: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);

/** v2 DecoratorController sync / finalize request (the target is called `object`). */
export function DecoratorHookRequest<P extends TSchema>(object: P) {
  return Type.Object({
    controller: Controller,
    object,
    attachments: Type.Optional(ObjectMap),
    related: Type.Optional(ObjectMap),
    finalizing: Type.Optional(Type.Boolean()),
  });
}

const NullableLabels = Type.Record(Type.String(), Type.Union([Type.String(), Type.Null()]));

/** v2 DecoratorController sync / finalize response. */
export const DecoratorHookResponse = Type.Object(
  {
    labels: Type.Optional(Type.Union([NullableLabels, Type.Null()])),
    annotations: Type.Optional(Type.Union([NullableLabels, Type.Null()])),
    status: Type.Union([Type.Object({}), Type.Null()]),
    attachments: Type.Array(KubeObject),
    resyncAfterSeconds: Type.Optional(Type.Number({ minimum: 0 })),
    finalized: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);

/** Customize request (Composite and Decorator alike call the object `parent`). */
export function CustomizeHookRequest<P extends TSchema>(parent: P) {
  return Type.Object({ controller: Controller, parent });
}

const LabelSelector = Type.Object(
  {
    matchLabels: Type.Optional(Labels),
    matchExpressions: Type.Optional(
      Type.Array(
        Type.Object(
          {
            key: Type.String(),
            operator: Type.String(),
            values: Type.Optional(Type.Array(Type.String())),
          },
          { additionalProperties: false },
        ),
      ),
    ),
  },
  { additionalProperties: false },
);

/** One related-resource rule (§3). `names` excludes both selectors; `namespace` excludes namespaceSelector. */
export const RelatedResourceRule = Type.Object(
  {
    apiVersion: Type.String({ minLength: 1 }),
    resource: Type.String({ minLength: 1 }),
    labelSelector: Type.Optional(LabelSelector),
    namespaceSelector: Type.Optional(LabelSelector),
    namespace: Type.Optional(Type.String()),
    names: Type.Optional(Type.Array(Type.String({ minLength: 1 }), { minItems: 1 })),
  },
  { additionalProperties: false },
);

export const CustomizeHookResponse = Type.Object(
  { relatedResources: Type.Array(RelatedResourceRule) },
  { additionalProperties: false },
);

/** The request of each hook route: the one schema that validates it and types its handler. */
export const ControlPlaneHookRequest = CompositeHookRequest(ControlPlaneParent);
export const ControlPlaneCustomizeRequest = CustomizeHookRequest(ControlPlaneParent);
export const CredentialRotationSyncRequest = DecoratorHookRequest(CredentialRotationParent);
export const CredentialRotationCustomizeRequest = CustomizeHookRequest(CredentialRotationParent);
export const SecretAggregateSyncRequest = CompositeHookRequest(SecretAggregateParent);
export const SecretAggregateCustomizeRequest = CustomizeHookRequest(SecretAggregateParent);

export type KubeObject = Static<typeof KubeObject> & Record<string, unknown>;
export type ObjectMap = Static<typeof ObjectMap>;
export type RelatedResourceRule = Static<typeof RelatedResourceRule>;
export type CustomizeHookResponse = Static<typeof CustomizeHookResponse>;
export type CompositeHookResponse = Static<typeof CompositeHookResponse>;
export type DecoratorHookResponse = Static<typeof DecoratorHookResponse>;
export type ControlPlaneParent = Static<typeof ControlPlaneParent>;
export type CredentialRotationParent = Static<typeof CredentialRotationParent>;
export type SecretAggregateParent = Static<typeof SecretAggregateParent>;
/** A ControlPlane sync or finalize request (the same envelope; `finalizing` tells them apart). */
export type ControlPlaneHookRequest = Static<typeof ControlPlaneHookRequest>;
export type ControlPlaneCustomizeRequest = Static<typeof ControlPlaneCustomizeRequest>;
export type CredentialRotationSyncRequest = Static<typeof CredentialRotationSyncRequest>;
export type CredentialRotationCustomizeRequest = Static<typeof CredentialRotationCustomizeRequest>;
export type SecretAggregateSyncRequest = Static<typeof SecretAggregateSyncRequest>;
export type SecretAggregateCustomizeRequest = Static<typeof SecretAggregateCustomizeRequest>;
