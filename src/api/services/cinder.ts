// Cinder (docs/architecture.md §2.13): the common leg on the shared bus, the `service` and `admin`
// roles, and one CinderBackend per services.cinder.backends[] entry, named as the entry (upstream's
// name budget: the cinder operator refuses a backend whose name and its Cinder's add up to more
// than 47 characters), attached to `{cp}-cinder` and released when its entry goes, as Glance's
// backends are (C5C3/cobaltcore docs/reference/c5c3/controlplane-reconciler.md §reconcileCinder,
// docs/reference/c5c3/controlplane-crd.md §ServiceCinderSpec @ 0002ae7e;
// operators/cinder/config/crd/bases/cinder.openstack.c5c3.io_cinderbackends.yaml @ 0af0627f).
// The catalog type is upstream's `block-storage` (the service-types authority's name; clients
// also find it as `volumev3`). The projection: src/controlplane/services/cinder.ts.
import { Type } from '@sinclair/typebox';
import { cel, Int32, StringEnum, type KubeOptions } from '../kube.js';
import { kind, partKind } from '../kind-info.js';
import { serviceFields } from '../service-fields.js';
import { serviceFacts } from './facts.js';

/** The longest backend name the cinder operator admits (docs/reference/cinder/cinder-backend-crd.md §Name rules @ 2019e23b). */
export const CINDER_BACKEND_NAME_MAX = 35;
/** The cinder operator's budget for a backend name plus its Cinder's name (`{cp}-cinder`: the ControlPlane name + 7). */
export const CINDER_NAME_BUDGET = 47;

const CinderBackend = Type.Object(
  {
    imageVolumeCache: Type.Optional(
      Type.Object(
        {
          enabled: Type.Boolean({ description: 'Cache images as volumes on this backend.' }),
          maxCount: Type.Optional(Int32({ minimum: 1, description: 'The most cached image volumes.' })),
          maxSizeGB: Type.Optional(Int32({ minimum: 1, description: 'The most space the cache takes, in GB.' })),
        },
        { description: 'The image-volume cache of the backend.' },
      ),
    ),
    name: Type.String({
      minLength: 1,
      maxLength: CINDER_BACKEND_NAME_MAX,
      pattern: '^[a-z0-9]([-a-z0-9]*[a-z0-9])?$',
      description: 'Keys the list; the CinderBackend child has this name. Not "default".',
      // The pattern admits lower case only, so this is the cinder operator's case-insensitive rule.
      ...cel({ rule: "self != 'default'", message: 'a Cinder backend must not be named default' }),
    } as KubeOptions),
    nfs: Type.Optional(
      Type.Object(
        {
          mountOptions: Type.Optional(Type.String({ pattern: '^[^\\n\\r]*$', description: 'NFS mount options.' })),
          path: Type.String({ pattern: '^/[!-~]*$', description: 'The exported path.' }),
          server: Type.String({ minLength: 1, pattern: '^[A-Za-z0-9.-]+$', description: 'The NFS server.' }),
        },
        { description: 'The NFS share; set exactly when type is NFS.' },
      ),
    ),
    type: StringEnum(['NFS'] as const, { description: 'The volume driver (NFS).' }),
  },
  {
    description: 'One volume backend.',
    ...cel({ rule: "(self.type == 'NFS') == has(self.nfs)", message: 'the nfs block must be set exactly when type is NFS' }),
  } as KubeOptions,
);

const schema = Type.Object(
  {
    ...serviceFields('Cinder', 'cinder'),
    backends: Type.Array(CinderBackend, {
      minItems: 1,
      maxItems: 32,
      description: 'The volume backends, one CinderBackend child each.',
      'x-kubernetes-list-type': 'map',
      'x-kubernetes-list-map-keys': ['name'],
    } as KubeOptions),
    replicas: Type.Optional(
      Type.Object(
        {
          api: Type.Optional(Int32({ minimum: 1, description: "cinder-api replicas; unset means the Cinder operator's default." })),
          scheduler: Type.Optional(Int32({ minimum: 1, description: 'cinder-scheduler replicas (default 1).' })),
        },
        { description: 'Replicas per Cinder process; the volume service runs one per backend.' },
      ),
    ),
  },
  { description: 'Cinder, projected into the {name}-cinder Cinder CR and its CinderBackends. Declared means managed; needs spec.infrastructure.messaging.' },
);

export const cinder = serviceFacts({
  name: 'cinder',
  title: 'Cinder',
  serviceType: 'block-storage',
  port: 8776,
  path: '/v3',
  kind: kind('cinder.openstack.c5c3.io/v1alpha1', 'Cinder', 'cinders'),
  partKinds: [partKind(kind('cinder.openstack.c5c3.io/v1alpha1', 'CinderBackend', 'cinderbackends'), 'cinderRef')],
  databases: [{ field: 'database', name: 'cinder', infix: '' }],
  roles: ['service', 'admin'],
  messaging: true,
  requires: { services: [], messaging: 'the Cinder CRD requires spec.messaging, and the ControlPlane derives its transport URL from the shared bus' },
  waitsFor: [],
  schema,
  rootRules: [
    {
      rule: `!has(self.spec.services.cinder) || self.spec.services.cinder.backends.all(b, size(self.metadata.name) + ${'-cinder'.length} + size(b.name) <= ${CINDER_NAME_BUDGET})`,
      message: `each Cinder backend's name plus the Cinder's ({name}-cinder) must be at most ${CINDER_NAME_BUDGET} characters (the cinder operator's budget)`,
    },
  ],
});
