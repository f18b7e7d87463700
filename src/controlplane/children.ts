// Building child objects in canonical form (docs/architecture.md §2.6): fixed names, the parent's namespace,
// our label, no status / ownerReferences / resourceVersion, fields in a fixed order.
import type { KindInfo } from '../k8s/kinds.js';
import type { KubeObject } from '../k8s/observed.js';
import type { ControlPlaneRef } from './ref.js';
import { CONTROLPLANE_LABEL } from './names.js';
import { labelValue } from '../k8s/labels.js';

export interface ChildMeta {
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
}

export function child(
  kind: KindInfo,
  cp: ControlPlaneRef,
  name: string,
  body: Record<string, unknown>,
  meta: ChildMeta = {},
): KubeObject {
  const metadata: KubeObject['metadata'] = {
    name,
    namespace: cp.namespace,
    labels: { [CONTROLPLANE_LABEL]: labelValue(cp.name), ...meta.labels },
  };
  if (meta.annotations && Object.keys(meta.annotations).length > 0) metadata.annotations = meta.annotations;
  return { apiVersion: kind.apiVersion, kind: kind.kind, metadata, ...body };
}

/** A copy of a string map with its keys sorted (stable output whatever the input order). */
export function sortedMap(map: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(map).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}
