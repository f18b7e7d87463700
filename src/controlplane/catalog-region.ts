// Catalog rows registered in a region (docs/architecture.md §2.7): a Region object and the
// Endpoints naming it in `spec.resource.regionRef`, and the hand-over from the rows they replace.
// keystoneauth skips a row of another region, or of none, whenever a client names `region_name`
// (keystoneauth1 access/service_catalog.py), and every OpenStack client section does (Nova's
// [placement], [neutron], [cinder], [glance]; Neutron's [nova]), as does the clouds.yaml we
// publish: a row is found only in spec.region.
//
// K-ORC's regionRef is immutable and its adoption filters by region (K-ORC 482412c0,
// internal/controllers/endpoint/actuator.go ListOSResourcesForAdoption), so a row changes region
// only as a new Endpoint object. A set of rows therefore lives in one of two slots (child-names.ts
// CatalogSlot): the slot whose Region stands for spec.region, else a free one. The rows it
// replaces (the region-less Endpoints of an earlier release, or the other slot's after a region
// change) are kept as they are until every object of the set is Available, then released: no
// service is ever without its row. A replaced Endpoint K-ORC shares with its replacement (one
// OpenStack id: the identity row Keystone's bootstrap made, adopted by both objects) is detached
// first, so deleting the old object never deletes the row. A replaced Region goes once no replaced
// Endpoint is left: K-ORC holds a Region while an Endpoint names it (endpoint/controller.go
// regionDependency, a deletion guard).
//
// A set's Endpoints are created only once its Region is Available with an id: K-ORC's adoption of
// a new Endpoint lists the rows of every region while its Region has none (endpoint/actuator.go
// ListOSResourcesForAdoption reads the Region through dependency.FetchDependency, which hands back
// an empty Region when it is missing or not Available: RegionID ""), so an Endpoint emitted beside
// its Region adopts the replaced row of the same interface, service and URL, in another region or
// in none, and keeps it there (found in e2e scenario 41).
import { GVK, type KindInfo } from '../k8s/kinds.js';
import { identity, isTerminating, type KubeObject, type ObjectIndex } from '../k8s/observed.js';
import { detached, isAvailable, isAvailableUpToDate, openstackId } from '../k8s/orc.js';
import { at, stringAt } from '../k8s/read.js';
import { carries } from '../k8s/carries.js';
import { CATALOG_SLOTS, type CatalogSlot } from './names.js';
import type { ControlPlaneRef } from './ref.js';

/** One row of the set: its interface, URL and the Service object it belongs to. */
export interface RegionedEndpoint {
  iface: string;
  url: string;
  serviceRef: string;
}

/** The names of one set of rows in each slot, and the region-less rows of earlier releases it replaces. */
export interface RegionedFamily {
  regionName(slot: CatalogSlot): string;
  endpointName(slot: CatalogSlot, iface: string): string;
  /** Every interface a set of this family can have (to find a replaced slot's rows). */
  interfaces: readonly string[];
  legacyEndpoints: readonly string[];
}

export interface RegionedInput {
  cp: ControlPlaneRef;
  children: ObjectIndex;
  /** spec.region. */
  region: string;
  family: RegionedFamily;
  /** The Region object of the set, named `name`; `observed` is its live object, if any. */
  regionObject(name: string, observed: KubeObject | undefined): KubeObject;
  /** An Endpoint object of the set, named `name`, naming `regionRef`. */
  endpointObject(name: string, row: RegionedEndpoint, regionRef: string): KubeObject;
  rows: readonly RegionedEndpoint[];
}

export type RegionedRows =
  | {
      /** What the stage emits: the set's Region and Endpoints, and replaced Endpoints being detached. */
      children: KubeObject[];
      /** Replaced objects let go this pass (identities). */
      releases: string[];
      region: KubeObject;
      /** The set's Endpoints, as desired (emitted or held). */
      endpoints: KubeObject[];
      /** Names of the Endpoints not created yet because their Region has no id yet. */
      held: ReadonlySet<string>;
      /** The replaced objects still observed (Endpoints and Regions). */
      replaced: KubeObject[];
      /** Whether every object of the set is Available as desired (the replaced ones are being let go). */
      serves: boolean;
      blocked?: undefined;
    }
  | { blocked: string; children: []; releases: []; replaced: KubeObject[] };

/** The region a Region object stands for: a managed one's resource name (K-ORC defaults it to the object's name), an import's filter name or id. */
export function regionOf(o: KubeObject | undefined): string | undefined {
  if (o === undefined) return undefined;
  if (at(o, 'spec', 'managementPolicy') === 'unmanaged') return stringAt(o, 'spec', 'import', 'filter', 'name') ?? stringAt(o, 'spec', 'import', 'id');
  return stringAt(o, 'spec', 'resource', 'name') ?? o.metadata.name;
}

const isDetached = (o: KubeObject) => at(o, 'spec', 'managedOptions', 'onDelete') === 'detach' || at(o, 'spec', 'managementPolicy') === 'unmanaged';

/** Whether the observed object carries `want`'s spec and K-ORC reports it Available for its current generation. */
export function serving(live: KubeObject | undefined, want: KubeObject): boolean {
  return live !== undefined && carries(live, want, ['spec']) && isAvailableUpToDate(live);
}

export function regionedRows(input: RegionedInput): RegionedRows {
  const { cp, children, family } = input;
  const get = (kind: KindInfo, name: string) => children.get(kind, cp.namespace, name);
  const slotObjects = (slot: CatalogSlot) => {
    const region = get(GVK.Region, family.regionName(slot));
    const endpoints = family.interfaces.map((iface) => get(GVK.Endpoint, family.endpointName(slot, iface))).filter((o): o is KubeObject => o !== undefined);
    return { region, endpoints, inUse: region !== undefined || endpoints.length > 0 };
  };
  const slots = CATALOG_SLOTS.map((slot) => ({ slot, ...slotObjects(slot) }));
  const legacy = family.legacyEndpoints.map((name) => get(GVK.Endpoint, name)).filter((o): o is KubeObject => o !== undefined);
  const current = slots.find((s) => s.region !== undefined && regionOf(s.region) === input.region) ?? slots.find((s) => !s.inUse);
  if (current === undefined) {
    const held = slots.map((s) => `${s.region ? `Region ${s.region.metadata.name} (${regionOf(s.region) ?? 'no region'})` : 'no Region'} with ${s.endpoints.map((e) => e.metadata.name).join(', ') || 'no Endpoint'}`);
    return {
      blocked: `the rows are being moved between regions already (${held.join('; ')}) and spec.region is ${input.region}: nothing is changed until one of those sets is removed`,
      children: [],
      releases: [],
      replaced: [...slots.flatMap((s) => [...(s.region ? [s.region] : []), ...s.endpoints]), ...legacy],
    };
  }
  const regionName = family.regionName(current.slot);
  const region = input.regionObject(regionName, current.region);
  const endpoints = input.rows.map((row) => input.endpointObject(family.endpointName(current.slot, row.iface), row, regionName));
  const others = slots.filter((s) => s !== current);
  const replacedEndpoints = [...legacy, ...others.flatMap((s) => s.endpoints)];
  const replacedRegions = others.flatMap((s) => (s.region ? [s.region] : []));
  const replaced = [...replacedEndpoints, ...replacedRegions];

  const observed = (o: KubeObject) => children.getById(identity(o));
  const liveRegion = observed(region);
  const resolved = isAvailable(liveRegion) && openstackId(liveRegion) !== undefined;
  const held = new Set(resolved ? [] : endpoints.filter((e) => observed(e) === undefined).map((e) => e.metadata.name));
  const setServes = serving(liveRegion, region) && endpoints.every((e) => serving(observed(e), e));
  const children_: KubeObject[] = [region, ...endpoints.filter((e) => !held.has(e.metadata.name))];
  const releases: string[] = [];
  if (setServes) {
    const ids = new Set(endpoints.map((e) => openstackId(observed(e))).filter((id): id is string => id !== undefined));
    for (const old of replacedEndpoints) {
      if (isTerminating(old)) continue;
      const id = openstackId(old);
      if (id !== undefined && ids.has(id) && !isDetached(old)) children_.push(detached(old));
      else releases.push(identity(old));
    }
    if (replacedEndpoints.length === 0) for (const r of replacedRegions) if (!isTerminating(r)) releases.push(identity(r));
  }
  return { children: children_, releases, region, endpoints, held, replaced, serves: setServes };
}

/** Condition words for the replaced objects still observed: what is retired, and what it waits for. */
export function replacedDetail(rows: Extract<RegionedRows, { serves: boolean }>, region: string): string {
  const names = rows.replaced.map((o) => `${o.kind} ${o.metadata.name}`).join(', ');
  return rows.serves
    ? `every row is registered in ${region}; removing what it replaces (registered in another region or in none): ${names}`
    : `${names} (registered in another region or in none) stay until every row in ${region} is Available`;
}

/** Why an Endpoint of the set does not exist yet, when it is held until its Region has an id. */
export function heldDetail(rows: RegionedRows, o: KubeObject): string | undefined {
  if (rows.blocked !== undefined || o.kind !== GVK.Endpoint.kind || !rows.held.has(o.metadata.name)) return undefined;
  return `${o.kind} ${o.metadata.name} is created once Region ${rows.region.metadata.name} is Available`;
}
