// The ControlPlane as every part of the hooks refers to it: name, namespace, uid, generation.
import type { ControlPlaneParent } from '../api/hooks.js';

/** The parent as the stages see it. */
export interface ControlPlaneRef {
  name: string;
  namespace: string;
  uid: string;
  generation: number;
}

export function controlPlaneRef(parent: ControlPlaneParent): ControlPlaneRef {
  const m = parent.metadata;
  return { name: m.name, namespace: m.namespace, uid: m.uid ?? '', generation: m.generation ?? 0 };
}
