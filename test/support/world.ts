// A small model of what Metacontroller sends and applies, for sync tests: v2 request maps,
// observed children made from desired ones (last-applied annotation, controller-uid label,
// server fields) and child readiness set by the test.
import { CONTROLPLANE_CHILD_KINDS, GVK, type KindInfo } from '../../src/k8s/kinds.js';
import { LAST_APPLIED_ANNOTATION } from '../../src/k8s/observed.js';
import type { Obj } from './shared.js';

export const CONTROLLER_UID_LABEL = 'controller-uid';

const kindOf = (obj: Obj): KindInfo | undefined =>
  Object.values(GVK).find((k) => k.apiVersion === obj.apiVersion && k.kind === obj.kind);

/** Objects grouped the way a v2 hook receives them (group key → namespace/name → object). */
export function objectMap(objects: Obj[], groups: readonly KindInfo[] = []): Obj {
  const map: Obj = {};
  for (const g of groups) map[g.groupKey] = {};
  for (const o of objects) {
    const key = kindOf(o)?.groupKey ?? `${o.kind}.${o.apiVersion}`;
    map[key] ??= {};
    map[key][o.metadata.namespace ? `${o.metadata.namespace}/${o.metadata.name}` : o.metadata.name] = o;
  }
  return map;
}

export function syncRequest(parent: Obj, children: Obj[] = [], related: Obj[] = [], finalizing = false): Obj {
  return { controller: { kind: 'CompositeController', metadata: { name: 'c5c3-controlplane' } }, parent, children: objectMap(children, CONTROLPLANE_CHILD_KINDS), related: objectMap(related), finalizing };
}

export function readyCondition(ready: boolean, reason = ready ? 'Ready' : 'NotReady'): Obj {
  return { type: 'Ready', status: ready ? 'True' : 'False', reason, message: ready ? 'ready' : 'not ready', lastTransitionTime: '2026-01-01T00:00:00Z' };
}

/**
 * The live object Metacontroller would leave after applying `desired` for the parent `uid`:
 * namespace defaulted, controller-uid label added, the last-applied annotation, server fields.
 */
export function applied(desired: Obj, parent: Obj, status?: Obj): Obj {
  const sent = structuredClone(desired);
  sent.metadata.namespace ??= parent.metadata.namespace;
  sent.metadata.labels = { ...sent.metadata.labels, [CONTROLLER_UID_LABEL]: parent.metadata.uid };
  const live = structuredClone(sent);
  live.metadata.annotations = { ...live.metadata.annotations, [LAST_APPLIED_ANNOTATION]: JSON.stringify(sent) };
  live.metadata.uid = `uid-${desired.kind}-${desired.metadata.name}`;
  live.metadata.resourceVersion = '1';
  live.metadata.generation = 1;
  live.metadata.creationTimestamp = '2026-01-01T00:00:00Z';
  live.metadata.ownerReferences = [{ apiVersion: parent.apiVersion, kind: parent.kind, name: parent.metadata.name, uid: parent.metadata.uid, controller: true, blockOwnerDeletion: true }];
  if (status) live.status = status;
  return live;
}

/** Applies a response: every returned child becomes live (status from `statusOf`), the rest is gone. */
export function applyResponse(children: Obj[], parent: Obj, statusOf: (child: Obj) => Obj | undefined, previous: Obj[] = []): Obj[] {
  return children.map((c) => {
    const before = previous.find((p) => p.kind === c.kind && p.apiVersion === c.apiVersion && p.metadata.name === c.metadata.name);
    if (before?.metadata.deletionTimestamp) return before; // never updated while Terminating
    return applied(c, parent, statusOf(c) ?? before?.status);
  });
}

export const clusterSecretStore = (ready = true): Obj => ({
  apiVersion: 'external-secrets.io/v1',
  kind: 'ClusterSecretStore',
  metadata: { name: 'openbao-cluster-store', uid: 'uid-store' },
  spec: {},
  status: { conditions: [readyCondition(ready, ready ? 'Valid' : 'InvalidProviderConfig')] },
});

/** Every child Ready. */
export const allReady = (): Obj => ({ conditions: [readyCondition(true)] });
