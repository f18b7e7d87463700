// A service beside Keystone (docs/architecture.md §2.13), described once: the facts of each
// service are in its file here (glance.ts, placement.ts, …), made with `serviceFacts`; every list
// derives from SERVICES (index.ts): the spec.services schema and the owned names (this layer), the
// kind table and the Metacontroller controller (src/k8s/kinds.ts, npm run gen), the condition
// types and reasons (src/controlplane/conditions.ts), the stages, the status, the rollout, the
// teardown, the refused-child reasons, the simulator's operators and the tests' shared leg. What a
// service projects (its CR spec) is in src/controlplane/services/<svc>.ts.
import type { TObject } from '@sinclair/typebox';
import type { CelRule } from '../kube.js';
import type { KindInfo, PartKind } from '../kind-info.js';

/** One database of a service in the shared MariaDB, with its own DB credential chain. */
export interface DatabaseBlock {
  /** The field of the service CR's spec that describes it (`database`, Nova's `apiDatabase`). */
  field: string;
  /** The database name. */
  name: string;
  /**
   * '' for the service's main database; else what tells its credential apart (Nova's `api`):
   * ExternalSecret `{cp}-<svc>-<infix>-db-credentials`, OpenBao `openstack/<svc>/{ns}/{cp}/<infix>-db`.
   */
  infix: string;
}

/**
 * A Keystone account of the service besides its own: a user `<svc>-<key>` with its password
 * Secret family, backup and roles, needed while another service is (Neutron's `nova` account: the
 * notifier credentials Neutron calls Nova with, needed while Nova is declared or its CR exists).
 */
export interface ExtraAccount {
  /** `{cp}-<svc>-<key>-service-user`, user `<svc>-<key>` (child-names.ts accountNames). */
  key: string;
  roles: readonly string[];
  /** Where the service CR names the account's password Secret. */
  secretRefPath: readonly string[];
  /** The service whose being declared (or whose CR still existing) makes the account needed. */
  whileService: string;
}

/** A Secret the hooks generate once for the service and keep: `{cp}-<svc>-<name>`, key `key`, `bytes` random bytes (base64url). */
export interface GeneratedSecret {
  name: string;
  key: string;
  bytes: number;
}

/**
 * An object the service reads and never owns (Neutron's OVNCentral), with a condition and a
 * sibling stage of its own placed before the service's (src/controlplane/services/reference.ts).
 */
export interface ReferenceFacts<T extends string = string> {
  /** The stem of its condition type (`${title}Ready`) and of the reason its service waits with (`WaitingFor${title}`). */
  title: T;
  kind: KindInfo;
  /** Where the declared service names the object (in the ControlPlane's namespace). */
  refPath: readonly string[];
  /** Its reasons: not used (True), not found, not Ready, Ready but incomplete, serving (True). */
  reasons: { notManaged: string; notFound: string; waiting: string; pending: string; ready: string };
}

/** What a service's file states. */
export interface ServiceFacts<N extends string = string, T extends string = string> {
  /** The key under spec.services, the OpenStack user name, and the `<svc>` of every child name. */
  name: N;
  /** For messages, and the stem of its condition type and reasons (`${title}Ready`, `WaitingFor${title}`, …). */
  title: T;
  /** The catalog Service type (placement, image, …). */
  serviceType: string;
  /** The API port of the in-cluster Service `{cp}-<svc>`. */
  port: number;
  /** The path of the catalog URLs after host and port ('' for none, Nova `/v2.1`). */
  path: string;
  /** The service CR's kind. */
  kind: KindInfo;
  /** The kinds of its parts (GlanceBackend, CinderBackend), each attached to the CR by a reference field. */
  partKinds: readonly PartKind[];
  /** Its databases in the shared MariaDB, the main one first. */
  databases: readonly DatabaseBlock[];
  /** The roles of its own account on the `service` project (`service`; Nova and Cinder also `admin`). */
  roles: readonly string[];
  /** Whether it reads the shared bus: `{cp}-<svc>-messaging` with `transport_url`. */
  messaging: boolean;
  /** What admission requires beside it: other services, and the bus (a CEL rule each, and InvalidSpec at run time). */
  requires: { services: readonly { name: string; why: string }[]; messaging?: string };
  /** Services whose condition must be True before its CR is created (Nova: Placement). */
  waitsFor: readonly string[];
  /** Accounts of the service besides its own. */
  extraAccounts?: readonly ExtraAccount[];
  /** Secrets the hooks generate for it. */
  generatedSecrets?: readonly GeneratedSecret[];
  /** The object it reads and does not own, gated on with a condition of its own. */
  reference?: ReferenceFacts;
  /** spec.services.<svc>: the fields every service takes (service-fields.ts) and its own. */
  schema: TObject;
  /** CEL rules at the ControlPlane's root (where `metadata.name` is visible), added to its CRD. */
  rootRules?: readonly CelRule[];
}

/** The names derived from a service's title: its condition type and reasons. */
export interface ServiceNames<T extends string> {
  conditionType: `${T}Ready`;
  reasons: {
    /** True while the service is not declared. */
    notManaged: `${T}NotManaged`;
    /** False while the CR (or one of its parts) is not Ready as desired. */
    waiting: `WaitingFor${T}`;
    /** True: everything Ready. */
    ready: `${T}Ready`;
    /** The API server keeps refusing the CR (docs/architecture.md §2.9). */
    error: `${T}Error`;
  };
}

/** A service as serviceFacts makes it: its facts as written (literal names, its schema's type), the optional facts it leaves out, and the derived names. */
export type Facts<F extends ServiceFacts> = F & Omit<ServiceFacts, keyof F> & ServiceNames<F['title']>;

export function serviceFacts<const F extends ServiceFacts>(facts: F): Facts<F> {
  const t = facts.title;
  const names: ServiceNames<string> = {
    conditionType: `${t}Ready`,
    reasons: { notManaged: `${t}NotManaged`, waiting: `WaitingFor${t}`, ready: `${t}Ready`, error: `${t}Error` },
  };
  return { ...facts, ...names } as Facts<F>;
}

/** The reason a part kind's refused child reports (`GlanceBackendError`). */
export const partErrorReason = <K extends string>(kind: K): `${K}Error` => `${kind}Error`;
