// Nova's CR `{cp}-nova`: the common spec, its second database `apiDatabase` (`nova_api`, with its
// own DB credential), the metadata API with the shared secret the hooks generate, the processes
// upstream's ControlPlane writes explicitly (metadata, scheduler, conductor: 1 unless set), and
// whether Cinder is there (facts: src/api/services/nova.ts).
import { NOVA_METADATA_SECRET, nova } from '../../api/services/nova.js';
import { withoutUndefined } from '../backing-spec.js';
import { commonServiceSpec, databaseBlock, processReplicas, type ServiceProjection } from './projection.js';

export const novaProjection: ServiceProjection = {
  crSpec(ctx) {
    const r = ctx.spec.services.nova?.replicas;
    const api = nova.databases.find((db) => db.field === 'apiDatabase');
    return withoutUndefined({
      ...commonServiceSpec(nova, ctx),
      apiDatabase: api ? databaseBlock(ctx, api.name, ctx.names.dbCredentialsOf(api.infix)) : undefined,
      metadata: {
        deployment: { replicas: r?.metadata ?? 1 },
        sharedSecretRef: { name: ctx.names.generated(NOVA_METADATA_SECRET.name), key: NOVA_METADATA_SECRET.key },
      },
      api: processReplicas(r?.api),
      scheduler: processReplicas(r?.scheduler, 1),
      conductor: processReplicas(r?.conductor, 1),
      endpoints: { cinder: { enabled: ctx.declares('cinder') } },
    });
  },
};
