// The services beside Keystone, in upstream's order (docs/architecture.md §2.13): each is one
// descriptor file (placement.ts, glance.ts, …) and one entry below; everything else that lists
// services derives from SERVICES: the spec.services schema and the owned names (src/api/), the
// condition types and reasons (conditions.ts), the child kinds and the Metacontroller controller
// (k8s/kinds.ts, npm run gen), the stages (pipeline.ts), the status, the rollout, the teardown, the
// refused-child reasons (unapplied.ts), the simulator's operators and the tests' shared leg
// (test/services-shared.test.ts).
import type { KindInfo } from '../../k8s/kind-info.js';
import type { ServiceDescriptor } from './descriptor.js';
import { placement } from './placement.js';
import { glance } from './glance.js';

export const SERVICES = [placement, glance] as const;

/** Any one service's descriptor, with its literal names (ServiceDescriptor widens them to string). */
export type Service = (typeof SERVICES)[number];
/** A service's name (the key under spec.services). */
export type ServiceName = (typeof SERVICES)[number]['name'];
/** A service's title (the stem of its condition type and reasons). */
export type ServiceTitle = (typeof SERVICES)[number]['title'];
/** The kind name of a service's part (GlanceBackend). */
export type PartKindName = (typeof SERVICES)[number]['partKinds'][number]['kind'];

/** The services' names, in order. */
export const SERVICE_NAMES: readonly ServiceName[] = SERVICES.map((d) => d.name);

/** The descriptor of a service by name. */
export const serviceNamed = (name: string): ServiceDescriptor | undefined => SERVICES.find((d) => d.name === name);

/** Every service CR kind and part kind, in order (parts after their CR). */
export const SERVICE_KINDS: readonly KindInfo[] = SERVICES.flatMap((d) => [d.kind, ...d.partKinds]);
