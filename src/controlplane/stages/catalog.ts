// Stage 7, reconcileCatalog → CatalogReady: the identity Service `keystone` and its public
// Endpoint as K-ORC objects, the Endpoint registered in spec.region through the managed Region
// `{cp}-region`, which adopts the region Keystone's bootstrap made (catalog-region.ts). Ready only
// when each carries this response's spec and is Available for its current generation
// (docs/architecture.md §2.7), so an edit never reads Ready before K-ORC applied it, and only once
// the rows it replaced are gone.
import { GVK } from '../../k8s/kinds.js';
import { identity, type KubeObject } from '../../k8s/observed.js';
import { isAvailableUpToDate, openstackId, orcDetail, terminalError } from '../../k8s/orc.js';
import { CONDITION, REASON, REQUEUE } from '../conditions.js';
import { child } from '../children.js';
import { carries } from '../../k8s/carries.js';
import { publicEndpoint } from '../keystone-spec.js';
import { childNames, keystoneInternalUrl, type CatalogSlot } from '../names.js';
import { complete, gate, waiting, type Stage, type StageInput, type StageResult } from '../stage.js';
import type { KorcSettings } from '../spec.js';
import { heldDetail, regionedRows, replacedDetail, type RegionedFamily } from '../catalog-region.js';
import { DEFAULTS } from '../../api/controlplane.js';
import { invalidSpec } from './invalid-spec.js';

export const IDENTITY_SERVICE = { name: 'keystone', type: 'identity' } as const;

/** The catalog URL (docs/architecture.md §2.3): publicEndpoint, else the gateway URL, else in-cluster Keystone. */
export function catalogUrl(input: StageInput): string {
  return publicEndpoint(input.spec) ?? keystoneInternalUrl(input.cp.namespace, input.cp.name);
}

/** The identity rows' names in each slot, and the region-less Endpoint of earlier releases. */
export function identityFamily(cp: string): RegionedFamily {
  const n = childNames(cp);
  return {
    regionName: (slot: CatalogSlot) => (slot === 'a' ? n.region : n.regionB),
    endpointName: (slot: CatalogSlot) => (slot === 'a' ? n.identityRegionEndpoint : n.identityRegionEndpointB),
    interfaces: ['public'],
    legacyEndpoints: [n.identityEndpoint],
  };
}

/**
 * The managed Region adopting spec.region. Its description only once K-ORC reports an id for it:
 * K-ORC's adoption filters by description too when the spec has one (region/actuator.go
 * ListOSResourcesForAdoption), and the bootstrap's region has none, so a described first apply
 * would create instead and take Keystone's 409 as terminal. Detached on delete: Keystone refuses to
 * delete a region rows still name, and the region is Keystone's own.
 */
function managedRegion(input: StageInput, settings: KorcSettings, name: string, observed: KubeObject | undefined): KubeObject {
  const description = openstackId(observed) !== undefined ? input.spec.regionDescription : undefined;
  return child(GVK.Region, input.cp, name, {
    spec: {
      cloudCredentialsRef: { cloudName: settings.cloudName, secretName: settings.secretName },
      managementPolicy: 'managed',
      managedOptions: { onDelete: 'detach' },
      resource: { name: input.spec.region ?? DEFAULTS.region, ...(description ? { description } : {}) },
    },
  });
}

export const catalogStage: Stage = {
  name: 'Catalog',
  conditionType: CONDITION.Catalog,
  reads: ['spec.services.keystone.publicEndpoint', 'spec.services.keystone.gateway', 'spec.regionDescription'],
  interval: REQUEUE.korc,
  run(input): StageResult {
    const gated = gate(input, CONDITION.AdminCredential, REASON.WaitingForAdminCredential, REQUEUE.korc);
    if (gated) return gated;
    const settings = input.resolved.korc;
    if (!settings.ok) return invalidSpec(settings.errors, REQUEUE.korc);
    const names = childNames(input.cp.name);
    const region = input.spec.region ?? DEFAULTS.region;
    const cloudCredentialsRef = { cloudName: settings.value.cloudName, secretName: settings.value.secretName };
    const service = child(GVK.Service, input.cp, names.identityService, {
      spec: { cloudCredentialsRef, managementPolicy: 'managed', resource: { name: IDENTITY_SERVICE.name, type: IDENTITY_SERVICE.type, enabled: true } },
    });
    const rows = regionedRows({
      cp: input.cp,
      children: input.children,
      region,
      family: identityFamily(input.cp.name),
      regionObject: (name, observed) => managedRegion(input, settings.value, name, observed),
      endpointObject: (name, row, regionRef) =>
        child(GVK.Endpoint, input.cp, name, {
          spec: { cloudCredentialsRef, managementPolicy: 'managed', resource: { interface: row.iface, url: row.url, serviceRef: row.serviceRef, regionRef, enabled: true } },
        }),
      rows: [{ iface: 'public', url: catalogUrl(input), serviceRef: names.identityService }],
    });
    if (rows.blocked !== undefined) {
      return { condition: { status: 'False', reason: REASON.WaitingForCatalog, message: `The identity catalog rows: ${rows.blocked}` }, outcome: waiting(REQUEUE.korc), children: [service] };
    }
    const result = (condition: StageResult['condition'], done = false): StageResult => ({
      condition,
      outcome: done ? complete() : waiting(REQUEUE.korc),
      children: [service, ...rows.children],
      ...(rows.releases.length > 0 ? { releases: rows.releases } : {}),
    });
    const entries = [service, rows.region, ...rows.endpoints].map((want) => {
      const live = input.children.getById(identity(want));
      return { want, label: `${want.kind} ${want.metadata.name}`, live, carried: live !== undefined && carries(live, want, ['spec']) };
    });
    // The Region first: an Endpoint blocked behind it is not the root of the trouble.
    const failedRegion = entries.find((e) => e.want.kind === GVK.Region.kind && terminalError(e.live));
    if (failedRegion) return result({ status: 'False', reason: REASON.RegionFailed, message: `${orcDetail(failedRegion.label, failedRegion.live)}: the identity row cannot be registered in ${region}` });
    const failedEntries = entries.filter((e) => terminalError(e.live));
    if (failedEntries.length > 0) {
      return result({ status: 'False', reason: REASON.CatalogFailed, message: failedEntries.map((e) => orcDetail(e.label, e.live)).join('; ') });
    }
    const pending = entries.filter((e) => !e.carried || !isAvailableUpToDate(e.live));
    if (pending.length > 0) {
      const detail = (e: (typeof entries)[number]) =>
        e.live && !e.carried
          ? `${e.label} does not carry the desired spec yet`
          : (heldDetail(rows, e.want) ?? orcDetail(e.label, e.live).replace('is not yet Available', 'is not yet Available for its current generation'));
      const replacing = rows.replaced.length > 0 ? `; ${replacedDetail(rows, region)}` : '';
      return result({ status: 'False', reason: REASON.WaitingForCatalog, message: `${pending.map(detail).join('; ')}${replacing}` });
    }
    if (rows.replaced.length > 0) return result({ status: 'False', reason: REASON.WaitingForCatalog, message: `The identity catalog: ${replacedDetail(rows, region)}` });
    return result(
      {
        status: 'True',
        reason: REASON.CatalogRegistered,
        message: `Identity Service ${service.metadata.name} and Endpoint ${rows.endpoints.map((e) => e.metadata.name).join(', ')} registered in region ${region} (Region ${rows.region.metadata.name}) and Available`,
      },
      true,
    );
  },
};
