// When the OVNCentral Neutron names serves (facts: src/api/services/ovn.ts): once its Ready
// condition is True at its generation and its status names the internal northbound and southbound
// database addresses and the client Secret Neutron mounts (C5C3/cobaltcore
// docs/reference/ovn/ovn-central-crd.md §Status @ 1680aca9; the neutron operator reads these,
// docs/reference/neutron/neutron-reconciler.md §reconcileOVNEndpoints @ 10fd815b).
import type { KubeObject } from '../../k8s/observed.js';
import { stringAt } from '../../k8s/read.js';
import type { ReferenceProjection } from './projection.js';

const FIELDS = [
  ['northbound', 'internalDbAddress'],
  ['southbound', 'internalDbAddress'],
  ['clientSecretName'],
] as const;

export const ovnProjection: ReferenceProjection = {
  pending(observed: KubeObject) {
    const empty = FIELDS.filter((path) => !stringAt(observed, 'status', ...path)).map((path) => `status.${path.join('.')}`);
    return empty.length > 0 ? `${empty.join(', ')} ${empty.length === 1 ? 'is' : 'are'} empty` : undefined;
  },
  serving: (observed) => `northbound ${stringAt(observed, 'status', 'northbound', 'internalDbAddress')}, southbound ${stringAt(observed, 'status', 'southbound', 'internalDbAddress')}`,
};
