// Placement: the simplest full service leg (docs/architecture.md §2.13); its CR `{cp}-placement`
// takes only what every service shares (src/controlplane/services/placement.ts).
import { Type } from '@sinclair/typebox';
import { kind } from '../kind-info.js';
import { serviceFields } from '../service-fields.js';
import { serviceFacts } from './facts.js';

export const placement = serviceFacts({
  name: 'placement',
  title: 'Placement',
  serviceType: 'placement',
  port: 8778,
  path: '',
  kind: kind('placement.openstack.c5c3.io/v1alpha1', 'Placement', 'placements'),
  partKinds: [],
  databases: [{ field: 'database', name: 'placement', infix: '' }],
  roles: ['service'],
  messaging: false,
  requires: { services: [] },
  waitsFor: [],
  schema: Type.Object(serviceFields('Placement', 'placement'), {
    description: 'Placement, projected into the {name}-placement Placement CR. Declared means managed.',
  }),
});
