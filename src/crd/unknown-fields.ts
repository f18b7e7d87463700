// The fields of an object its CRD's structural schema does not know, as the API server finds them
// (k8s.io/apiextensions-apiserver pkg/apiserver/schema/pruning: an object schema's `properties`
// are what is kept, `additionalProperties` a map's values, `items` a list's, and
// `x-kubernetes-preserve-unknown-fields` keeps what is below; an embedded resource and the root
// keep apiVersion, kind and metadata). The API server prunes them, and with field validation
// Strict (kubectl's default) refuses the object naming each one: so does `npm run simulate`.
type Json = unknown;
type Schema = Record<string, unknown>;
const isObject = (v: Json): v is Record<string, Json> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** ObjectMeta's fields (k8s.io/apimachinery pkg/apis/meta/v1 types.go, their JSON names). */
const OBJECT_META_FIELDS: ReadonlySet<string> = new Set([
  'name', 'generateName', 'namespace', 'selfLink', 'uid', 'resourceVersion', 'generation', 'creationTimestamp',
  'deletionTimestamp', 'deletionGracePeriodSeconds', 'labels', 'annotations', 'ownerReferences', 'finalizers', 'managedFields',
]);

const key = (path: string, k: string) => (path === '' ? k : `${path}.${k}`);

function metadataUnknown(value: Json, path: string, out: string[]): void {
  if (!isObject(value)) return;
  for (const k of Object.keys(value)) if (!OBJECT_META_FIELDS.has(k)) out.push(key(path, k));
}

function walk(schema: Schema, value: Json, path: string, out: string[], resource: boolean, depth: number): void {
  if (depth > 64) return;
  if (Array.isArray(value)) {
    if (isObject(schema.items)) value.forEach((v, i) => walk(schema.items as Schema, v, `${path}[${i}]`, out, schema['x-kubernetes-embedded-resource'] === true, depth + 1));
    return;
  }
  if (!isObject(value)) return;
  const properties = isObject(schema.properties) ? (schema.properties as Record<string, Schema>) : undefined;
  const additional = schema.additionalProperties;
  const preserve = schema['x-kubernetes-preserve-unknown-fields'] === true;
  const embedded = resource || schema['x-kubernetes-embedded-resource'] === true;
  for (const [k, v] of Object.entries(value)) {
    const at = key(path, k);
    if (embedded && k === 'metadata' && !properties?.metadata?.properties) {
      metadataUnknown(v, at, out);
      continue;
    }
    if (embedded && (k === 'apiVersion' || k === 'kind')) continue;
    const sub = properties !== undefined && Object.hasOwn(properties, k) ? properties[k] : isObject(additional) ? (additional as Schema) : undefined;
    if (sub !== undefined) walk(sub, v, at, out, false, depth + 1);
    else if (!preserve && additional !== true) out.push(at);
  }
}

/** Every field of `object` (a whole resource) its CRD version's `openAPIV3Schema` does not know, as `spec.a[0].b`. */
export function unknownFields(openAPIV3Schema: Schema, object: Json): string[] {
  const out: string[] = [];
  walk(openAPIV3Schema, object, '', out, true, 0);
  return out;
}
