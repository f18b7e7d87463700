// A service beside Keystone (docs/architecture.md §2.13), described once: every fact the hooks,
// the API, the simulator and the tests need of it is in its descriptor file (placement.ts,
// glance.ts, …), made with `defineService`; every list (condition types and reasons, kinds, child
// kinds, the spec.services schema, error reasons, the simulator's operator, the Metacontroller
// controller) is derived from SERVICES (index.ts). The generic service stage (stage.ts) projects
// any descriptor.
//
// This module and the descriptor files import only leaves at load time (names, children, the
// API's service fields): the condition table, the kind table and the ControlPlane schema import
// SERVICES, so nothing here may import them back (test/module-graph.test.ts).
import type { TObject } from '@sinclair/typebox';
import type { KindInfo } from '../../k8s/kind-info.js';
import type { KubeObject } from '../../k8s/observed.js';
import type { Decision, Reason } from '../conditions.js';
import type { ControlPlaneRef } from '../ref.js';
import type { Infrastructure } from '../spec.js';
import { sortedMap } from '../children.js';
import { cacheSpec, databaseSpec, withoutUndefined } from '../backing-spec.js';
import { keystoneInternalUrl, serviceChildNames, OPENSTACK_SERVICE_ACCOUNT, SERVICE_PASSWORD_KEY } from '../names.js';

/** The fields every declared service takes (api/service-fields.ts serviceFields); the rest is the service's own. */
export interface DeclaredService {
  extraConfig?: Record<string, Record<string, string>>;
  gateway?: { hostname: string; parentRef: { name: string; namespace?: string; sectionName?: string }; path?: string; annotations?: Record<string, string> };
  image?: { repository: string; tag: string };
  policyOverrides?: { configMapRef?: { name?: string }; rules?: Record<string, string> };
  publicEndpoint?: string;
  [field: string]: unknown;
}

/**
 * What a service's code reads of the whole ControlPlane spec. Not ControlPlaneSpec: that type is
 * built from SERVICES' schemas, so a descriptor naming it would define itself.
 */
export interface SpecView {
  region?: string;
  global?: { configMapRef?: { name?: string }; rules?: Record<string, string> };
  services: { [svc: string]: unknown };
}

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

/** A kind of a service's parts, and the field of a part's spec that names its CR (`glanceRef`). */
export type PartKind<K extends string = string> = KindInfo<K> & { ref: string };

/** A part kind: `kind(...)` and the reference field. */
export const partKind = <K extends string>(info: KindInfo<K>, ref: string): PartKind<K> => ({ ...info, ref });

/** What a service's descriptor file states. */
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
  /** The kinds of the children `parts` emits (named `{cp}-<svc>-<name>`): GlanceBackend, CinderBackend. */
  partKinds: readonly PartKind[];
  /** Its databases in the shared MariaDB, the main one first. */
  databases: readonly DatabaseBlock[];
  /** spec.services.<svc>: the fields every service takes (serviceFields) and its own. */
  schema: TObject;
  /** The service CR's spec, from what every service shares (ServiceContext). */
  crSpec(ctx: ServiceContext): Record<string, unknown>;
  /** Children of the service's own beside the CR (Glance's backends), emitted with it. */
  parts?(ctx: ServiceContext): KubeObject[];
  /** Problems of the declared spec the schema cannot express, each `spec.services.<svc>…: …`. */
  specErrors?(declared: DeclaredService, spec: SpecView): string[];
}

/** The names derived from a service's title: its condition type and reasons (conditions.ts lists them). */
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

export type ServiceDescriptor<N extends string = string, T extends string = string> = ServiceFacts<N, T> & ServiceNames<T>;

/** A descriptor as defineService makes it: its facts as written (literal names, its schema's type), the optional facts it leaves out, and the derived names. */
export type Described<F extends ServiceFacts> = F & Omit<ServiceFacts, keyof F> & ServiceNames<F['title']>;

/** A descriptor: the facts and the names derived from them. */
export function defineService<const F extends ServiceFacts>(facts: F): Described<F> {
  const t = facts.title;
  return {
    ...facts,
    conditionType: `${t}Ready`,
    reasons: { notManaged: `${t}NotManaged`, waiting: `WaitingFor${t}`, ready: `${t}Ready`, error: `${t}Error` },
  } as Described<F>;
}

/** The reason a part kind's refused child reports (`GlanceBackendError`). */
export const partErrorReason = <K extends string>(kind: K): `${K}Error` => `${kind}Error`;

/** What a service CR is built from: the spec, the resolved infrastructure, the names. */
export interface ServiceContext {
  cp: ControlPlaneRef;
  spec: SpecView;
  declared: DeclaredService;
  infrastructure: Infrastructure;
  names: ReturnType<typeof serviceChildNames>;
  /** The password Secret the service authenticates with (`names.password`, or a rotated one: password-rotation.ts). */
  passwordSecret: string;
  /** The release to project: spec.openStackRelease, or during a rollout the one it allows (docs/architecture.md §6.1). */
  release: string;
}

/** The condition of a service that is not declared (stage.ts and, before the stage is reached, status.ts). */
export function notManaged(d: ServiceDescriptor): Decision {
  return { status: 'True', reason: d.reasons.notManaged as Reason, message: `${d.title} is not managed: spec.services.${d.name} is not declared` };
}

export const SERVICE_IMAGE_REGISTRY = 'ghcr.io/c5c3';

/** services.<svc>.image, else ghcr.io/c5c3/<svc>:<openStackRelease>. */
export function serviceImage(d: ServiceDescriptor, ctx: ServiceContext): { repository: string; tag: string } {
  const image = ctx.declared.image;
  return image ? { repository: image.repository, tag: image.tag } : { repository: `${SERVICE_IMAGE_REGISTRY}/${d.name}`, tag: ctx.release };
}

/** The in-cluster URL of the service's API (the catalog's internal Endpoint). */
export function internalUrl(d: ServiceDescriptor, cp: ControlPlaneRef): string {
  return `http://${serviceChildNames(cp.name, d.name).cr}.${cp.namespace}.svc:${d.port}${d.path}`;
}

/** The public catalog URL: publicEndpoint, else https://{gateway.hostname}{path}, else the internal URL. */
export function publicUrl(d: ServiceDescriptor, cp: ControlPlaneRef, declared: DeclaredService): string {
  if (declared.publicEndpoint) return declared.publicEndpoint;
  if (declared.gateway) return `https://${declared.gateway.hostname}${d.path}`;
  return internalUrl(d, cp);
}

/** Global oslo.policy rules merged with the service's own, the service's winning (seed 002 projectPolicyOverrides; as Keystone's). */
export function servicePolicies(spec: SpecView, own: DeclaredService['policyOverrides']): Record<string, unknown> | undefined {
  const global = spec.global;
  const rules = sortedMap({ ...(global?.rules ?? {}), ...(own?.rules ?? {}) });
  const configMapRef = own?.configMapRef ?? global?.configMapRef;
  const out: Record<string, unknown> = {};
  if (configMapRef) out.configMapRef = { name: configMapRef.name ?? '' };
  if (Object.keys(rules).length > 0) out.rules = rules;
  return Object.keys(out).length > 0 ? out : undefined;
}

/** The CRD rules on policy overrides (non-empty names and values), for a spec that bypassed admission. */
export function servicePolicyErrors(d: ServiceDescriptor, declared: DeclaredService): string[] {
  const errors: string[] = [];
  for (const [name, value] of Object.entries(declared.policyOverrides?.rules ?? {})) {
    const path = `spec.services.${d.name}.policyOverrides.rules`;
    if (name.length === 0) errors.push(`${path}: a policy rule name must not be empty`);
    else if (typeof value !== 'string' || value.length === 0) errors.push(`${path}[${JSON.stringify(name)}]: the policy rule value must not be empty`);
  }
  return errors;
}

/** `spec.<block.field>` of a service CR: one of its databases on the shared MariaDB, TLS mapped. */
export function databaseBlock(ctx: ServiceContext, block: DatabaseBlock, secret: string): Record<string, unknown> {
  const infra = ctx.infrastructure;
  const db = infra.database;
  const tls = db.tls && db.tls.enabled
    ? withoutUndefined({ caBundleSecretRef: db.tls.caBundleSecretRef, clientCertSecretRef: db.tls.clientCertSecretRef, mode: db.tls.mode })
    : undefined;
  return databaseSpec(infra, { database: block.name, secret, tls });
}

/**
 * The part of a service CR spec every service shares (seed 002 §3.1 step 5): release, image,
 * database and cache from the shared infrastructure (managed: the service's own DB credential
 * `{cp}-<svc>-db-credentials`; brownfield: the user's Secret), the in-cluster Keystone, region,
 * the service user and its password Secret, policies, gateway, extraConfig, replicas.
 */
export function commonServiceSpec(d: ServiceDescriptor, ctx: ServiceContext): Record<string, unknown> {
  const { infrastructure: infra, declared, names } = ctx;
  const main = d.databases[0];
  const replicas = declared.replicas;
  return withoutUndefined({
    openStackRelease: ctx.release,
    image: serviceImage(d, ctx),
    deployment: typeof replicas === 'number' ? { replicas } : undefined,
    database: main ? databaseBlock(ctx, main, names.dbCredentials) : undefined,
    cache: cacheSpec(infra.cache),
    keystoneEndpoint: keystoneInternalUrl(ctx.cp.namespace, ctx.cp.name),
    region: ctx.spec.region,
    serviceUser: {
      username: d.name,
      projectName: OPENSTACK_SERVICE_ACCOUNT.project,
      userDomainName: 'Default',
      projectDomainName: 'Default',
      secretRef: { name: ctx.passwordSecret, key: SERVICE_PASSWORD_KEY },
    },
    policyOverrides: servicePolicies(ctx.spec, declared.policyOverrides),
    gateway: declared.gateway,
    extraConfig: declared.extraConfig && Object.keys(declared.extraConfig).length > 0 ? declared.extraConfig : undefined,
  });
}
