// The services beside Keystone (docs/architecture.md §2.13): each is one file of facts here and
// one projection file in src/controlplane/services/, and one entry below; every list of services,
// kinds, conditions and reasons derives from SERVICES (facts.ts says where each is used).
import type { KindInfo } from '../kind-info.js';
import { glance } from './glance.js';
import { placement } from './placement.js';
import { neutron } from './neutron.js';
import { cinder } from './cinder.js';
import { nova } from './nova.js';

/**
 * Upstream's order of the service tail (Glance → Placement → OVN → Neutron → Cinder → Nova,
 * C5C3/cobaltcore docs/reference/c5c3/controlplane-reconciler.md §Execution Model @ 0002ae7e): the
 * stage order, the status order, the release rollout's order; the teardown is the reverse.
 */
export const SERVICES = [glance, placement, neutron, cinder, nova] as const;

/** Any one service, with its literal names. */
export type Service = (typeof SERVICES)[number];
/** A service's name (the key under spec.services). */
export type ServiceName = Service['name'];
/** The kind name of a service's part (GlanceBackend, CinderBackend). */
export type PartKindName = Service['partKinds'][number]['kind'];
/** A service that reads an object it does not own (Neutron). */
export type WithReference = Extract<Service, { reference: object }>;
/** An object a service reads and does not own (Neutron's OVNCentral). */
export type Reference = WithReference['reference'];

/** Whether a service reads an object it does not own. */
export const hasReference = (d: Service): d is WithReference => d.reference !== undefined;

/** The services' names, in order. */
export const SERVICE_NAMES: readonly ServiceName[] = SERVICES.map((d) => d.name);

/** The service of a name. */
export const serviceNamed = (name: string): Service | undefined => SERVICES.find((d) => d.name === name);

/** Every service CR kind and part kind, in order (parts after their CR). */
export const SERVICE_KINDS: readonly KindInfo[] = SERVICES.flatMap((d) => [d.kind, ...d.partKinds]);

/** The objects services read and do not own (OVNCentral): related by customize, never children. */
export const REFERENCES: readonly Reference[] = SERVICES.filter(hasReference).map((d) => d.reference);

/** The kinds of those objects. */
export const REFERENCE_KINDS: readonly KindInfo[] = REFERENCES.map((r) => r.kind);

/** A reference's condition type. */
export const referenceCondition = <T extends string>(r: { title: T }): `${T}Ready` => `${r.title}Ready`;

type Entries<K extends string> = { [P in K]: P };
const entries = <K extends string>(keys: readonly K[]) => Object.fromEntries(keys.map((k) => [k, k])) as Entries<K>;

/**
 * Each service's condition keyed by its title (`Placement: 'PlacementReady'`), and each
 * reference's (`OVN: 'OVNReady'`): src/controlplane/conditions.ts spreads it into CONDITION.
 */
export const SERVICE_CONDITION = Object.fromEntries([...SERVICES.map((d) => [d.title, d.conditionType]), ...REFERENCES.map((r) => [r.title, referenceCondition(r)])]) as {
  [D in Service as D['title']]: D['conditionType'];
} & { [R in Reference as R['title']]: `${R['title']}Ready` };

/** The services' condition types and their references', in stage order (a reference right before its service). */
export const SERVICE_CONDITIONS: readonly (Service['conditionType'] | `${Reference['title']}Ready`)[] = SERVICES.flatMap((d) => [
  ...(hasReference(d) ? [referenceCondition(d.reference)] : []),
  d.conditionType,
]);

/**
 * Each service's own reasons (`PlacementNotManaged`, `WaitingForPlacement`, `PlacementReady`,
 * `PlacementError`), its parts' (`GlanceBackendError`), each reference's and the one its service
 * waits with (`WaitingForOVN`): src/controlplane/conditions.ts spreads them into REASON.
 */
export type ServiceReason =
  | Service['reasons'][keyof Service['reasons']]
  | `${PartKindName}Error`
  | Reference['reasons'][keyof Reference['reasons']]
  | `WaitingFor${Reference['title']}`;
export const SERVICE_REASON: Entries<ServiceReason> = entries<ServiceReason>([
  ...SERVICES.flatMap((d) => [...Object.values(d.reasons), ...d.partKinds.map((k) => `${k.kind}Error` as const)]),
  ...REFERENCES.flatMap((r) => [...Object.values(r.reasons), `WaitingFor${r.title}` as const]),
]);

export { glance, placement, neutron, cinder, nova };
