// Neutron's CR `{cp}-neutron`: the common spec, the OVNCentral it programs (`ovn.centralRef`, in
// the ControlPlane's namespace), and while its notifier account is needed, `spec.nova`: the
// credentials of `neutron-nova` (facts: src/api/services/neutron.ts).
import { NEUTRON_NOTIFIER, neutron } from '../../api/services/neutron.js';
import { accountNames } from '../names.js';
import { commonServiceSpec, serviceUser, type ServiceProjection } from './projection.js';

export const neutronProjection: ServiceProjection = {
  crSpec(ctx) {
    const notifier = ctx.accountSecrets.get(NEUTRON_NOTIFIER);
    return {
      ...commonServiceSpec(neutron, ctx),
      ovn: { centralRef: { name: ctx.spec.services.neutron?.ovn.centralRef.name ?? '', namespace: ctx.cp.namespace } },
      ...(notifier !== undefined ? { nova: { region: ctx.spec.region, serviceUser: serviceUser(accountNames(ctx.cp.name, neutron.name, NEUTRON_NOTIFIER).osUser, notifier) } } : {}),
    };
  },
};
