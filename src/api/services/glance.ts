// Glance (docs/architecture.md §2.13): the common leg plus one GlanceBackend child per
// services.glance.backends[] entry, `{cp}-glance-{name}`, attached to the Glance CR `{cp}-glance`
// (src/controlplane/services/glance.ts).
import { Type } from '@sinclair/typebox';
import { cel, StringEnum, type KubeOptions } from '../kube.js';
import { kind, partKind } from '../kind-info.js';
import { serviceFields } from '../service-fields.js';
import { serviceFacts } from './facts.js';

/** One Glance image store (as the reference's services.glance.backends[]): a GlanceBackend child each. */
const GlanceBackend = Type.Object(
  {
    isDefault: Type.Optional(Type.Boolean({ description: 'The Glance default store: exactly one backend is.' })),
    name: Type.String({
      minLength: 1,
      maxLength: 40,
      pattern: '^[a-z0-9]([-a-z0-9]*[a-z0-9])?$',
      description: 'Keys the list; the GlanceBackend child is {name}-glance-{this}.',
    }),
    s3: Type.Optional(
      Type.Object(
        {
          bucket: Type.String({ minLength: 1, description: 'The S3 bucket images are stored in.' }),
          bucketURLFormat: Type.Optional(StringEnum(['path', 'virtual'] as const, { description: 'path or virtual-host addressing.' })),
          credentialsSecretRef: Type.Object(
            { name: Type.String({ minLength: 1, description: 'Name of the Secret.' }) },
            { description: 'Secret holding the S3 credentials (the GlanceBackend fixed keys).' },
          ),
          endpoint: Type.String({ minLength: 1, description: 'The S3 endpoint URL (projected onto the child spec.s3.host).' }),
          region: Type.Optional(Type.String({ description: 'The S3 region of the bucket.' })),
        },
        { description: 'The S3-compatible object store; set exactly when type is S3.' },
      ),
    ),
    type: StringEnum(['S3'] as const, { description: 'The image-store driver (S3 only).' }),
  },
  {
    description: 'One image store.',
    ...cel({ rule: "(self.type == 'S3') == has(self.s3)", message: 'the s3 block must be set exactly when type is S3' }),
  } as KubeOptions,
);

const schema = Type.Object(
  {
    backends: Type.Array(GlanceBackend, {
      minItems: 1,
      maxItems: 16,
      description: 'The image stores, one GlanceBackend child each; exactly one is the default.',
      'x-kubernetes-list-type': 'map',
      'x-kubernetes-list-map-keys': ['name'],
      ...cel({ rule: 'self.filter(b, has(b.isDefault) && b.isDefault).size() == 1', message: 'exactly one backend must be isDefault: true' }),
    } as KubeOptions),
    ...serviceFields('Glance', 'glance'),
  },
  { description: 'Glance, projected into the {name}-glance Glance CR and its GlanceBackends. Declared means managed.' },
);

export const glance = serviceFacts({
  name: 'glance',
  title: 'Glance',
  serviceType: 'image',
  port: 9292,
  path: '',
  kind: kind('glance.openstack.c5c3.io/v1alpha1', 'Glance', 'glances'),
  partKinds: [partKind(kind('glance.openstack.c5c3.io/v1alpha1', 'GlanceBackend', 'glancebackends'), 'glanceRef')],
  databases: [{ field: 'database', name: 'glance', infix: '' }],
  roles: ['service'],
  messaging: false,
  requires: { services: [] },
  waitsFor: [],
  schema,
});
