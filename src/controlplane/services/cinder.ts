// Cinder's CR `{cp}-cinder` and one CinderBackend per services.cinder.backends[] entry, named as
// the entry and attached by `cinderRef`; the Glance it reads images from while Glance is declared;
// the volume service at one replica per backend (the Cinder CRD admits only 1), written explicitly
// as upstream's ControlPlane does (facts: src/api/services/cinder.ts).
import { CINDER_NAME_BUDGET, cinder } from '../../api/services/cinder.js';
import type { KubeObject } from '../../k8s/observed.js';
import { withoutUndefined } from '../backing-spec.js';
import { child } from '../children.js';
import { serviceChildNames } from '../names.js';
import { commonServiceSpec, processReplicas, type ServiceProjection } from './projection.js';

export const cinderProjection: ServiceProjection = {
  crSpec(ctx) {
    const replicas = ctx.spec.services.cinder?.replicas;
    return withoutUndefined({
      ...commonServiceSpec(cinder, ctx),
      glanceEndpoint: ctx.declares('glance') ? `http://${serviceChildNames(ctx.cp.name, 'glance').cr}.${ctx.cp.namespace}.svc:9292` : undefined,
      api: processReplicas(replicas?.api),
      scheduler: processReplicas(replicas?.scheduler, 1),
      volume: processReplicas(1),
    });
  },
  parts(ctx): KubeObject[] {
    const [backendKind] = cinder.partKinds;
    return (ctx.spec.services.cinder?.backends ?? []).map((b) =>
      child(backendKind, ctx.cp, b.name, {
        spec: withoutUndefined({
          [backendKind.ref]: { name: ctx.names.cr },
          type: b.type,
          nfs: b.nfs ? withoutUndefined({ server: b.nfs.server, path: b.nfs.path, mountOptions: b.nfs.mountOptions }) : undefined,
          imageVolumeCache: b.imageVolumeCache,
        }),
      }),
    );
  },
  specErrors(spec, cp): string[] {
    const backends = spec.services.cinder?.backends ?? [];
    const cr = serviceChildNames(cp, cinder.name).cr;
    const errors: string[] = [];
    if (backends.length === 0) errors.push('spec.services.cinder.backends: at least one backend is required');
    const names = backends.map((b) => b.name);
    if (new Set(names).size !== names.length) errors.push('spec.services.cinder.backends: backend names must be unique');
    for (const [i, b] of backends.entries()) {
      if (b.name.toLowerCase() === 'default') errors.push(`spec.services.cinder.backends[${i}].name: a Cinder backend must not be named default`);
      if ((b.type === 'NFS') !== (b.nfs !== undefined)) errors.push(`spec.services.cinder.backends[${i}]: the nfs block must be set exactly when type is NFS`);
      if (cr.length + b.name.length > CINDER_NAME_BUDGET) {
        errors.push(`spec.services.cinder.backends[${i}].name: ${b.name} and the Cinder's name ${cr} add up to ${cr.length + b.name.length} characters; the cinder operator admits at most ${CINDER_NAME_BUDGET}`);
      }
    }
    return errors;
  },
};
