// Placement's CR `{cp}-placement` (placement.openstack.c5c3.io/v1alpha1): only what every service
// shares (facts: src/api/services/placement.ts).
import { placement } from '../../api/services/placement.js';
import { commonServiceSpec, type ServiceProjection } from './projection.js';

export const placementProjection: ServiceProjection = {
  crSpec: (ctx) => commonServiceSpec(placement, ctx),
};
