// Neutron (docs/architecture.md §2.13): the common leg on the shared bus, gated on the OVNCentral
// it names (ovn.ts, condition OVNReady), and, while Nova is declared or its CR still exists, a
// second account, `neutron-nova`: the credentials Neutron notifies Nova with (its CR's
// `spec.nova`), with the `service` and `admin` roles Nova needs to find the instance
// (C5C3/cobaltcore docs/reference/c5c3/controlplane-reconciler.md §reconcileNeutron and §Built-in
// service registrations @ 0002ae7e; docs/reference/neutron/neutron-crd.md §NovaNotifierUserSpec
// @ 0e1be3bb). The projection: src/controlplane/services/neutron.ts.
import { Type } from '@sinclair/typebox';
import { kind } from '../kind-info.js';
import { serviceFields } from '../service-fields.js';
import { serviceFacts } from './facts.js';
import { ovn } from './ovn.js';

/** The key of Neutron's notifier account for Nova (user `neutron-nova`). */
export const NEUTRON_NOTIFIER = 'nova';

export const neutron = serviceFacts({
  name: 'neutron',
  title: 'Neutron',
  serviceType: 'network',
  port: 9696,
  path: '',
  kind: kind('neutron.openstack.c5c3.io/v1alpha1', 'Neutron', 'neutrons'),
  partKinds: [],
  databases: [{ field: 'database', name: 'neutron', infix: '' }],
  roles: ['service'],
  messaging: true,
  requires: { services: [], messaging: 'the Neutron CRD requires spec.messaging, and the ControlPlane derives its transport URL from the shared bus' },
  waitsFor: [],
  reference: ovn,
  extraAccounts: [{ key: NEUTRON_NOTIFIER, roles: ['service', 'admin'], secretRefPath: ['spec', 'nova', 'serviceUser', 'secretRef', 'name'], whileService: 'nova' }],
  schema: Type.Object(
    {
      ...serviceFields('Neutron', 'neutron'),
      ovn: Type.Object(
        {
          centralRef: Type.Object(
            { name: Type.String({ minLength: 1, maxLength: 253, description: 'The OVNCentral (ovn.openstack.c5c3.io) in the ControlPlane namespace.' }) },
            { description: 'The existing OVNCentral Neutron programs; it is read, never created or changed.' },
          ),
        },
        { description: 'The OVN control plane Neutron uses.' },
      ),
    },
    { description: 'Neutron, projected into the {name}-neutron Neutron CR. Declared means managed; needs spec.infrastructure.messaging.' },
  ),
});
