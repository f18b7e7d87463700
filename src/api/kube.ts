// Schema building blocks shared by the c5c3.io APIs and the hook envelopes.
//
// Every schema here is plain JSON Schema (TypeBox builds it) restricted to what a Kubernetes
// structural schema allows: no anyOf/oneOf, no patternProperties, no $ref. Kubernetes-only
// keywords (x-kubernetes-*) ride along as schema options; Ajv is told about them in
// ./validate.ts, and the CRD generator (src/crd) copies them verbatim.
import { Type, type TSchema, type SchemaOptions, type TUnsafe } from '@sinclair/typebox';

/** One CEL rule of `x-kubernetes-validations`. */
export interface CelRule {
  rule: string;
  message: string;
  /** Set for rules that only make sense on update (they read `oldSelf`). */
  reason?: 'FieldValueInvalid' | 'FieldValueForbidden' | 'FieldValueRequired' | 'FieldValueDuplicate';
  /** The rule runs on create too, `oldSelf` an optional (`oldSelf.hasValue()`: an update). */
  optionalOldSelf?: boolean;
}

/** Options accepted by every builder: JSON Schema options plus the Kubernetes extensions. */
export interface KubeOptions extends SchemaOptions {
  'x-kubernetes-validations'?: CelRule[];
  'x-kubernetes-map-type'?: 'atomic' | 'granular';
  'x-kubernetes-list-type'?: 'atomic' | 'set' | 'map';
  'x-kubernetes-list-map-keys'?: string[];
  'x-kubernetes-preserve-unknown-fields'?: boolean;
}

/** A string limited to `values` (`enum`, which a structural schema allows, not `anyOf` of consts). */
export function StringEnum<const T extends readonly string[]>(
  values: T,
  options: KubeOptions = {},
): TUnsafe<T[number]> {
  return Type.Unsafe<T[number]>({ ...options, type: 'string', enum: [...values] });
}

/** `map[string]string`: an object whose values are strings (`additionalProperties`). */
export function StringMap(options: KubeOptions = {}): TUnsafe<Record<string, string>> {
  return Type.Unsafe<Record<string, string>>({
    ...options,
    type: 'object',
    additionalProperties: { type: 'string' },
  });
}

/** An object whose content is not described (e.g. `metadata`, which the API server owns). */
export function OpaqueObject(options: KubeOptions = {}): TUnsafe<Record<string, unknown>> {
  return Type.Unsafe<Record<string, unknown>>({ ...options, type: 'object' });
}

export const Int32 = (options: KubeOptions = {}) => Type.Integer({ ...options, format: 'int32' });
export const Int64 = (options: KubeOptions = {}) => Type.Integer({ ...options, format: 'int64' });

/** Attach CEL rules to a schema. */
export function cel(...rules: CelRule[]): KubeOptions {
  return { 'x-kubernetes-validations': rules };
}

/** metav1.Condition, exactly as controller-gen renders it. */
export const Condition = Type.Object(
  {
    lastTransitionTime: Type.String({
      format: 'date-time',
      description: 'Last time the condition changed status.',
    }),
    message: Type.String({ maxLength: 32768, description: 'Human-readable detail.' }),
    observedGeneration: Type.Optional(
      Int64({ minimum: 0, description: 'The .metadata.generation the condition was set for.' }),
    ),
    reason: Type.String({
      maxLength: 1024,
      minLength: 1,
      pattern: '^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$',
      description: 'CamelCase identifier of the reason for the last transition.',
    }),
    status: StringEnum(['True', 'False', 'Unknown'] as const, { description: 'True, False or Unknown.' }),
    type: Type.String({
      maxLength: 316,
      pattern:
        '^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])$',
      description: 'Condition type, CamelCase.',
    }),
  },
  { description: 'One aspect of the current state of the object (metav1.Condition).' },
);

/** A list of conditions keyed by type (listType=map), as metav1 renders it. */
export const Conditions = (description: string) =>
  Type.Array(Condition, {
    description,
    'x-kubernetes-list-type': 'map',
    'x-kubernetes-list-map-keys': ['type'],
  } as KubeOptions);

/** Reference to a Secret (and optionally one key of it). */
export const SecretRef = (description: string, keyOptions: KubeOptions = {}, options: KubeOptions = {}) =>
  Type.Object(
    {
      key: Type.Optional(Type.String({ description: 'Key inside the Secret.', ...keyOptions })),
      name: Type.String({ description: 'Name of the Secret.' }),
    },
    { description, ...options },
  );

/** corev1.LocalObjectReference: `name` defaults to "" and the object is atomic. */
export const LocalObjectReference = (description: string) =>
  Type.Object(
    { name: Type.Optional(Type.String({ default: '', description: 'Name of the referent.' })) },
    { description, 'x-kubernetes-map-type': 'atomic' } as KubeOptions,
  );

/** A top-level custom resource: TypeMeta, free metadata (the API server owns it), spec, status. */
export function CustomResource<S extends TSchema, T extends TSchema>(spec: S, status: T, description: string, options: KubeOptions = {}) {
  return Type.Object(
    {
      apiVersion: Type.Optional(Type.String()),
      kind: Type.Optional(Type.String()),
      metadata: Type.Optional(OpaqueObject()),
      spec: Type.Optional(spec),
      status: Type.Optional(status),
    },
    { description, ...options },
  );
}

export type { TSchema };
