// Each service's projection (its CR spec, parts and checks; facts in src/api/services/), and each
// reference's: one entry per service, the compiler refuses a service without one.
import type { Reference, ServiceName } from '../../api/services/index.js';
import type { ReferenceProjection, ServiceProjection } from './projection.js';
import { glanceProjection } from './glance.js';
import { placementProjection } from './placement.js';
import { neutronProjection } from './neutron.js';
import { cinderProjection } from './cinder.js';
import { novaProjection } from './nova.js';
import { ovnProjection } from './ovn.js';

export const PROJECTIONS: { readonly [N in ServiceName]: ServiceProjection } = {
  glance: glanceProjection,
  placement: placementProjection,
  neutron: neutronProjection,
  cinder: cinderProjection,
  nova: novaProjection,
};

export const REFERENCE_PROJECTIONS: { readonly [T in Reference['title']]: ReferenceProjection } = {
  OVN: ovnProjection,
};
