// Nova (docs/architecture.md §2.13): two databases (`nova_api` as `apiDatabase` with its own DB
// credential `{cp}-nova-api-db-credentials`, `nova` as `database`; the nova operator derives
// cell0), the shared bus, the `service` and `admin` roles, the metadata API's shared secret (a
// Secret the hooks generate once, `{cp}-nova-metadata-secret`), and its CR created only once
// Placement is Ready. Admission requires Placement, Glance, Neutron and the bus beside it, as
// upstream's webhook does (C5C3/cobaltcore docs/reference/c5c3/controlplane-reconciler.md
// §reconcileNova, docs/reference/c5c3/controlplane-crd.md §ServiceNovaSpec and §Validation Rules
// @ 0002ae7e; docs/reference/nova/nova-crd.md §Spec @ 00163a22). Seed 002's
// `replicas: {api, scheduler, conductor}`, plus `metadata`. The projection:
// src/controlplane/services/nova.ts.
import { Type } from '@sinclair/typebox';
import { Int32 } from '../kube.js';
import { kind } from '../kind-info.js';
import { serviceFields } from '../service-fields.js';
import { serviceFacts } from './facts.js';

/** The metadata API's shared secret, generated once by the hooks. */
export const NOVA_METADATA_SECRET = { name: 'metadata-secret', key: 'shared_secret', bytes: 32 } as const;

const replicas = (what: string, fallback?: number) =>
  Type.Optional(Int32({ minimum: 1, description: `${what} replicas${fallback === undefined ? "; unset means the Nova operator's default" : ` (default ${fallback})`}.` }));

const schema = Type.Object(
  {
    ...serviceFields('Nova', 'nova'),
    replicas: Type.Optional(
      Type.Object(
        { api: replicas('nova-api'), conductor: replicas('nova-conductor', 1), metadata: replicas('nova-metadata', 1), scheduler: replicas('nova-scheduler', 1) },
        { description: 'Replicas per Nova process (seed 002 NovaReplicasSpec, plus the metadata API).' },
      ),
    ),
  },
  { description: 'Nova, projected into the {name}-nova Nova CR. Declared means managed; needs Placement, Glance, Neutron and spec.infrastructure.messaging.' },
);

export const nova = serviceFacts({
  name: 'nova',
  title: 'Nova',
  serviceType: 'compute',
  port: 8774,
  path: '/v2.1',
  kind: kind('nova.openstack.c5c3.io/v1alpha1', 'Nova', 'novas'),
  partKinds: [],
  databases: [
    { field: 'apiDatabase', name: 'nova_api', infix: 'api' },
    { field: 'database', name: 'nova', infix: '' },
  ],
  roles: ['service', 'admin'],
  messaging: true,
  requires: {
    services: [
      { name: 'placement', why: 'Nova claims every instance’s resources in Placement before it boots' },
      { name: 'glance', why: 'Nova reads the image of every instance it boots' },
      { name: 'neutron', why: 'Nova creates and binds a port for every instance' },
    ],
    messaging: 'the Nova CRD requires spec.messaging, and the ControlPlane derives its transport URL from the shared bus',
  },
  waitsFor: ['placement'],
  generatedSecrets: [NOVA_METADATA_SECRET],
  schema,
});
