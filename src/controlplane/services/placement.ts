// Placement (docs/architecture.md §2.13): the simplest full service leg. Its CR
// `{cp}-placement` (placement.openstack.c5c3.io/v1alpha1) takes only what every service shares.
import { GVK } from '../../k8s/kinds.js';
import { CONDITION, REASON } from '../conditions.js';
import { commonServiceSpec, type ServiceDescriptor } from './descriptor.js';

export const placement: ServiceDescriptor = {
  name: 'placement',
  title: 'Placement',
  serviceType: 'placement',
  port: 8778,
  database: 'placement',
  kind: GVK.Placement,
  conditionType: CONDITION.Placement,
  reasons: { notManaged: REASON.PlacementNotManaged, waiting: REASON.WaitingForPlacement, ready: REASON.PlacementReady },
  crSpec: (ctx) => commonServiceSpec(placement, ctx),
};
