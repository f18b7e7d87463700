// Placement (docs/architecture.md §2.13): the simplest full service leg. Its CR
// `{cp}-placement` (placement.openstack.c5c3.io/v1alpha1) takes only what every service shares.
import { Type } from '@sinclair/typebox';
import { serviceFields } from '../../api/service-fields.js';
import { kind } from '../../k8s/kind-info.js';
import { commonServiceSpec, defineService, type ServiceContext } from './descriptor.js';

export const placement = defineService({
  name: 'placement',
  title: 'Placement',
  serviceType: 'placement',
  port: 8778,
  path: '',
  kind: kind('placement.openstack.c5c3.io/v1alpha1', 'Placement', 'placements'),
  partKinds: [],
  databases: [{ field: 'database', name: 'placement', infix: '' }],
  schema: Type.Object(serviceFields('Placement', 'placement'), {
    description: 'Placement, projected into the {name}-placement Placement CR. Declared means managed.',
  }),
  crSpec: (ctx: ServiceContext): Record<string, unknown> => commonServiceSpec(placement, ctx),
});
