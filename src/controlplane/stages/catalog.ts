// Stage 7, reconcileCatalog → CatalogReady: the identity Service `keystone` and its public
// Endpoint as K-ORC objects. Ready only when both carry this response's spec and are Available
// for their current generation (docs/architecture.md §2.7), so an edit never reads Ready before K-ORC applied it.
import { GVK } from '../../k8s/kinds.js';
import { identity, type KubeObject } from '../../k8s/observed.js';
import { isAvailableUpToDate, orcDetail, terminalError } from '../../k8s/orc.js';
import { CONDITION, REASON, REQUEUE } from '../conditions.js';
import { child } from '../children.js';
import { carries } from '../../k8s/carries.js';
import { publicEndpoint } from '../keystone-spec.js';
import { childNames, keystoneInternalUrl } from '../names.js';
import { complete, gate, waiting, type Stage, type StageInput, type StageResult } from '../stage.js';
import type { KorcSettings } from '../spec.js';
import { invalidSpec } from './invalid-spec.js';

export const IDENTITY_SERVICE = { name: 'keystone', type: 'identity' } as const;

/** The catalog URL (docs/architecture.md §2.3): publicEndpoint, else the gateway URL, else in-cluster Keystone. */
export function catalogUrl(input: StageInput): string {
  return publicEndpoint(input.spec) ?? keystoneInternalUrl(input.cp.namespace, input.cp.name);
}

function catalogChildren(input: StageInput, settings: KorcSettings): [KubeObject, KubeObject] {
  const names = childNames(input.cp.name);
  const cloudCredentialsRef = { cloudName: settings.cloudName, secretName: settings.secretName };
  return [
    child(GVK.Service, input.cp, names.identityService, {
      spec: { cloudCredentialsRef, managementPolicy: 'managed', resource: { name: IDENTITY_SERVICE.name, type: IDENTITY_SERVICE.type, enabled: true } },
    }),
    child(GVK.Endpoint, input.cp, names.identityEndpoint, {
      spec: {
        cloudCredentialsRef,
        managementPolicy: 'managed',
        resource: { interface: 'public', url: catalogUrl(input), serviceRef: names.identityService, enabled: true },
      },
    }),
  ];
}

export const catalogStage: Stage = {
  name: 'Catalog',
  conditionType: CONDITION.Catalog,
  reads: ['spec.services.keystone.publicEndpoint', 'spec.services.keystone.gateway'],
  observes: { children: [GVK.Service, GVK.Endpoint], related: [] },
  interval: REQUEUE.korc,
  run(input): StageResult {
    const gated = gate(input, CONDITION.AdminCredential, REASON.WaitingForAdminCredential, REQUEUE.korc);
    if (gated) return gated;
    const settings = input.resolved.korc;
    if (!settings.ok) return invalidSpec(settings.errors, REQUEUE.korc);
    const desired = catalogChildren(input, settings.value);
    const entries = desired.map((want) => {
      const live = input.children.getById(identity(want));
      return { label: `${want.kind} ${want.metadata.name}`, live, carried: live !== undefined && carries(live, want, ['spec']) };
    });
    const failedEntries = entries.filter((e) => terminalError(e.live));
    if (failedEntries.length > 0) {
      return {
        condition: { status: 'False', reason: REASON.CatalogFailed, message: failedEntries.map((e) => orcDetail(e.label, e.live)).join('; ') },
        outcome: waiting(REQUEUE.korc),
        children: desired,
      };
    }
    const pending = entries.filter((e) => !e.carried || !isAvailableUpToDate(e.live));
    if (pending.length > 0) {
      const detail = (e: (typeof entries)[number]) =>
        e.live && !e.carried ? `${e.label} does not carry the desired spec yet` : orcDetail(e.label, e.live).replace('is not yet Available', 'is not yet Available for its current generation');
      return {
        condition: { status: 'False', reason: REASON.WaitingForCatalog, message: pending.map(detail).join('; ') },
        outcome: waiting(REQUEUE.korc),
        children: desired,
      };
    }
    const [service, endpoint] = desired;
    return {
      condition: {
        status: 'True',
        reason: REASON.CatalogRegistered,
        message: `Identity Service ${service.metadata.name} and Endpoint ${endpoint.metadata.name} registered and Available`,
      },
      outcome: complete(),
      children: desired,
    };
  },
};
