// Glance's CR `{cp}-glance` and one GlanceBackend per services.glance.backends[] entry,
// `{cp}-glance-{name}`, attached by `glanceRef` (facts: src/api/services/glance.ts).
import { glance } from '../../api/services/glance.js';
import type { KubeObject } from '../../k8s/observed.js';
import { child } from '../children.js';
import { commonServiceSpec, type ServiceProjection } from './projection.js';

export const glanceProjection: ServiceProjection = {
  crSpec: (ctx) => commonServiceSpec(glance, ctx),
  parts(ctx): KubeObject[] {
    const [backendKind] = glance.partKinds;
    return (ctx.spec.services.glance?.backends ?? []).map((b) => {
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
  specErrors(spec): string[] {
    const backends = spec.services.glance?.backends ?? [];
    const defaults = backends.filter((b) => b.isDefault === true).length;
    const errors: string[] = [];
    if (backends.length === 0) errors.push('spec.services.glance.backends: at least one backend is required');
    else if (defaults !== 1) errors.push(`spec.services.glance.backends: exactly one backend must be isDefault: true (${defaults} are)`);
    const names = backends.map((b) => b.name);
    if (new Set(names).size !== names.length) errors.push('spec.services.glance.backends: backend names must be unique');
    return errors;
  },
};
