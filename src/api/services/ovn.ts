// OVN as Neutron reads it (docs/architecture.md §2.13): an existing OVNCentral
// (ovn.openstack.c5c3.io/v1alpha1) in the ControlPlane's namespace, named by
// services.neutron.ovn.centralRef, never created, changed or deleted by the ControlPlane; its
// condition OVNReady and reasons are upstream's (C5C3/cobaltcore
// docs/reference/c5c3/controlplane-reconciler.md §reconcileOVN @ 0002ae7e). When it serves:
// src/controlplane/services/ovn.ts.
import { kind } from '../kind-info.js';
import type { ReferenceFacts } from './facts.js';

export const ovn = {
  title: 'OVN',
  kind: kind('ovn.openstack.c5c3.io/v1alpha1', 'OVNCentral', 'ovncentrals'),
  refPath: ['ovn', 'centralRef', 'name'],
  reasons: { notManaged: 'OVNNotManaged', notFound: 'OVNCentralNotFound', waiting: 'WaitingForOVNCentral', pending: 'OVNEndpointsPending', ready: 'OVNCentralReady' },
} as const satisfies ReferenceFacts<'OVN'>;
