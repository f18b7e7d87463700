// Glance (docs/architecture.md §2.13): the common leg plus one GlanceBackend child per
// services.glance.backends[] entry, `{cp}-glance-{name}`, attached to the Glance CR `{cp}-glance`.
import { GVK } from '../../k8s/kinds.js';
import { CONDITION, REASON } from '../conditions.js';
import { child } from '../children.js';
import { commonServiceSpec, type ServiceDescriptor } from './descriptor.js';

type Backend = {
  name: string;
  type: 'S3';
  isDefault?: boolean;
  s3?: { bucket: string; endpoint: string; region?: string; bucketURLFormat?: 'path' | 'virtual'; credentialsSecretRef: { name: string } };
};

export const glance: ServiceDescriptor = {
  name: 'glance',
  title: 'Glance',
  serviceType: 'image',
  port: 9292,
  database: 'glance',
  kind: GVK.Glance,
  partKind: GVK.GlanceBackend,
  conditionType: CONDITION.Glance,
  reasons: { notManaged: REASON.GlanceNotManaged, waiting: REASON.WaitingForGlance, ready: REASON.GlanceReady },
  crSpec: (ctx) => commonServiceSpec(glance, ctx),
  parts(ctx) {
    const backends: Backend[] = ctx.spec.services.glance?.backends ?? [];
    return backends.map((b) => {
      const s3 = b.s3;
      const spec: Record<string, unknown> = { glanceRef: { name: ctx.names.cr }, type: b.type, isDefault: b.isDefault === true };
      if (s3) {
        spec.s3 = {
          bucket: s3.bucket,
          host: s3.endpoint,
          credentialsSecretRef: { name: s3.credentialsSecretRef.name },
          ...(s3.region !== undefined ? { region: s3.region } : {}),
          ...(s3.bucketURLFormat !== undefined ? { bucketURLFormat: s3.bucketURLFormat } : {}),
        };
      }
      return child(GVK.GlanceBackend, ctx.cp, ctx.names.part(b.name), { spec });
    });
  },
  specErrors(_declared, spec) {
    const backends: Backend[] = spec.services.glance?.backends ?? [];
    const defaults = backends.filter((b) => b.isDefault === true).length;
    const errors: string[] = [];
    if (backends.length === 0) errors.push('spec.services.glance.backends: at least one backend is required');
    else if (defaults !== 1) errors.push(`spec.services.glance.backends: exactly one backend must be isDefault: true (${defaults} are)`);
    const names = backends.map((b) => b.name);
    if (new Set(names).size !== names.length) errors.push('spec.services.glance.backends: backend names must be unique');
    return errors;
  },
};
