// docs/architecture.md §2.11: one ControlPlane per namespace. With every ControlPlane of the namespace
// related, all but the oldest (creationTimestamp, then name) are parked.
import { GVK } from '../k8s/kinds.js';
import type { ObjectIndex } from '../k8s/observed.js';
import { stringAt } from '../k8s/read.js';

export interface Peer {
  name: string;
  creationTimestamp: string;
}

/** The incumbent of the namespace when `self` is not it; undefined when `self` may run. */
export function incumbentOver(self: Peer, namespace: string, related: ObjectIndex): string | undefined {
  const peers: Peer[] = [self];
  for (const other of related.ofKind(GVK.ControlPlane)) {
    if (other.metadata.namespace !== namespace || other.metadata.name === self.name) continue;
    peers.push({ name: other.metadata.name, creationTimestamp: stringAt(other, 'metadata', 'creationTimestamp') ?? '' });
  }
  peers.sort((a, b) =>
    a.creationTimestamp !== b.creationTimestamp
      ? a.creationTimestamp < b.creationTimestamp ? -1 : 1
      : a.name < b.name ? -1 : a.name > b.name ? 1 : 0,
  );
  const oldest = peers[0];
  return oldest === undefined || oldest.name === self.name ? undefined : oldest.name;
}
