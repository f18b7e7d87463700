// What the hooks need to know of a Kubernetes kind, and how one is described: a leaf module, so
// the services' descriptors (src/controlplane/services/) can name their kinds without importing
// the kind table (kinds.ts), which lists them.

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
