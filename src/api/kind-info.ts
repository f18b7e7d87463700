// What the hooks need to know of a Kubernetes kind, and how one is described: a leaf of the API
// layer, so the services' facts (src/api/services/) can name their kinds, and the kind table
// (src/k8s/kinds.ts) list them.

export interface KindInfo<K extends string = string> {
  apiVersion: string;
  kind: K;
  resource: string;
  /** `Kind.group/version`, or `Kind.version` for the core group. */
  groupKey: string;
  /** The `apiVersion` + `resource` pair of a customize rule or a childResources entry. */
  rule: { apiVersion: string; resource: string };
}

export function kind<const K extends string>(apiVersion: string, kindName: K, resource: string): KindInfo<K> {
  return { apiVersion, kind: kindName, resource, groupKey: `${kindName}.${apiVersion}`, rule: { apiVersion, resource } };
}

/** A kind of a service's parts, and the field of a part's spec that names its CR (`glanceRef`). */
export type PartKind<K extends string = string> = KindInfo<K> & { ref: string };

/** A part kind: `kind(...)` and the reference field. */
export const partKind = <K extends string>(info: KindInfo<K>, ref: string): PartKind<K> => ({ ...info, ref });
