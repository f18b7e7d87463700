// Glance (docs/architecture.md §2.13): the common leg plus one GlanceBackend child per
// services.glance.backends[] entry, `{cp}-glance-{name}`, attached to the Glance CR `{cp}-glance`.
import { Type, type Static } from '@sinclair/typebox';
import { cel, StringEnum, type KubeOptions } from '../../api/kube.js';
import { serviceFields } from '../../api/service-fields.js';
import { kind } from '../../k8s/kind-info.js';
import type { KubeObject } from '../../k8s/observed.js';
import { child } from '../children.js';
import { commonServiceSpec, defineService, partKind, type DeclaredService, type ServiceContext } from './descriptor.js';

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

type Backend = Static<typeof GlanceBackend>;

const backendKind = partKind(kind('glance.openstack.c5c3.io/v1alpha1', 'GlanceBackend', 'glancebackends'), 'glanceRef');

export const glance = defineService({
  name: 'glance',
  title: 'Glance',
  serviceType: 'image',
  port: 9292,
  path: '',
  kind: kind('glance.openstack.c5c3.io/v1alpha1', 'Glance', 'glances'),
  partKinds: [backendKind],
  databases: [{ field: 'database', name: 'glance', infix: '' }],
  schema,
  crSpec: (ctx: ServiceContext): Record<string, unknown> => commonServiceSpec(glance, ctx),
  parts(ctx: ServiceContext): KubeObject[] {
    const backends = (ctx.declared.backends ?? []) as Backend[];
    return backends.map((b) => {
      const s3 = b.s3;
      const spec: Record<string, unknown> = { [backendKind.ref]: { name: ctx.names.cr }, type: b.type, isDefault: b.isDefault === true };
      if (s3) {
        spec.s3 = {
          bucket: s3.bucket,
          host: s3.endpoint,
          credentialsSecretRef: { name: s3.credentialsSecretRef.name },
          ...(s3.region !== undefined ? { region: s3.region } : {}),
          ...(s3.bucketURLFormat !== undefined ? { bucketURLFormat: s3.bucketURLFormat } : {}),
        };
      }
      return child(backendKind, ctx.cp, ctx.names.part(b.name), { spec });
    });
  },
  specErrors(declared: DeclaredService): string[] {
    const backends = (declared.backends ?? []) as Backend[];
    const defaults = backends.filter((b) => b.isDefault === true).length;
    const errors: string[] = [];
    if (backends.length === 0) errors.push('spec.services.glance.backends: at least one backend is required');
    else if (defaults !== 1) errors.push(`spec.services.glance.backends: exactly one backend must be isDefault: true (${defaults} are)`);
    const names = backends.map((b) => b.name);
    if (new Set(names).size !== names.length) errors.push('spec.services.glance.backends: backend names must be unique');
    return errors;
  },
});
