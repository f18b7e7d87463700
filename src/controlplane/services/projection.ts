// What a service beside Keystone projects (docs/architecture.md §2.13): its facts are in
// src/api/services/<svc>.ts; its CR spec (and its parts, and the checks of a declared spec that
// bypassed admission) in src/controlplane/services/<svc>.ts, built from what every service shares
// (here); index.ts maps each service to its projection, and the generic stage (stage.ts) projects
// every one.
import type { ControlPlaneSpec } from '../../api/controlplane.js';
import type { Service } from '../../api/services/index.js';
import type { KubeObject } from '../../k8s/observed.js';
import type { Decision } from '../conditions.js';
import type { ControlPlaneRef } from '../ref.js';
import type { Infrastructure } from '../spec.js';
import { sortedMap } from '../children.js';
import { cacheSpec, databaseSpec, withoutUndefined } from '../backing-spec.js';
import { keystoneInternalUrl, serviceChildNames, OPENSTACK_SERVICE_ACCOUNT, SERVICE_PASSWORD_KEY, TRANSPORT_URL_KEY } from '../names.js';

/** The fields every declared service takes (api/service-fields.ts serviceFields); its own are read from the spec. */
export interface DeclaredService {
  extraConfig?: Record<string, Record<string, string>>;
  gateway?: { hostname: string; parentRef: { name: string; namespace?: string; sectionName?: string }; path?: string; annotations?: Record<string, string> };
  image?: { repository: string; tag: string };
  policyOverrides?: { configMapRef?: { name?: string }; rules?: Record<string, string> };
  publicEndpoint?: string;
  replicas?: unknown;
}

/** What a service CR is built from: the spec, the resolved infrastructure, the names. */
export interface ServiceContext {
  cp: ControlPlaneRef;
  spec: ControlPlaneSpec;
  declared: DeclaredService;
  infrastructure: Infrastructure;
  names: ReturnType<typeof serviceChildNames>;
  /** The password Secret the service authenticates with (`names.password`, or a rotated one: password-rotation.ts). */
  passwordSecret: string;
  /** The password Secret of each extra account needed this pass, by key. */
  accountSecrets: ReadonlyMap<string, string>;
  /** `{cp}-<svc>-messaging`, for a service on the bus. */
  messagingSecret: string | undefined;
  /** Whether a service of this ControlPlane is declared. */
  declares(svc: string): boolean;
  /** The release to project: spec.openStackRelease, or during a rollout the one it allows (docs/architecture.md §6.1). */
  release: string;
}

/** What one service projects beyond the leg every service shares. */
export interface ServiceProjection {
  /** The service CR's spec. */
  crSpec(ctx: ServiceContext): Record<string, unknown>;
  /** Children of the service's own beside the CR (Glance's and Cinder's backends), emitted with it. */
  parts?(ctx: ServiceContext): KubeObject[];
  /** Problems of the declared spec that bypassed admission (the schema's and CEL's rules again), each `spec.services.<svc>…: …`. */
  specErrors?(spec: ControlPlaneSpec, cp: string): string[];
}

/** When an object a service reads and does not own serves (its Ready condition is checked first). */
export interface ReferenceProjection {
  /** Why a Ready object does not serve yet, or undefined when it does. */
  pending(observed: KubeObject): string | undefined;
  /** What the True condition says of a serving object. */
  serving(observed: KubeObject): string;
}

/** The condition of a service that is not declared (stage.ts and, before the stage is reached, status.ts). */
export function notManaged(d: Service): Decision {
  return { status: 'True', reason: d.reasons.notManaged, message: `${d.title} is not managed: spec.services.${d.name} is not declared` };
}

export const SERVICE_IMAGE_REGISTRY = 'ghcr.io/c5c3';

/** services.<svc>.image, else ghcr.io/c5c3/<svc>:<openStackRelease>. */
export function serviceImage(d: Service, ctx: ServiceContext): { repository: string; tag: string } {
  const image = ctx.declared.image;
  return image ? { repository: image.repository, tag: image.tag } : { repository: `${SERVICE_IMAGE_REGISTRY}/${d.name}`, tag: ctx.release };
}

/** The in-cluster URL of the service's API (the catalog's internal Endpoint). */
export function internalUrl(d: Service, cp: ControlPlaneRef): string {
  return `http://${serviceChildNames(cp.name, d.name).cr}.${cp.namespace}.svc:${d.port}${d.path}`;
}

/** `scheme://host[:port]`, with no path but `/`, no query and no fragment. */
export function isBareOrigin(url: string): boolean {
  return /^[A-Za-z][A-Za-z0-9+.-]*:\/\/[^/?#\s]+\/?$/.test(url);
}

/**
 * The public catalog URL: publicEndpoint (the service's path appended to a bare origin only),
 * else https://{gateway.hostname}{path}, else the internal URL.
 */
export function publicUrl(d: Service, cp: ControlPlaneRef, declared: DeclaredService): string {
  // A service whose catalog URL has a path (Nova /v2.1, Cinder /v3) gains it on a bare origin, as
  // upstream's ControlPlane does; a URL with a path of its own (https://x/api/v3) is the user's
  // whole URL and stays as written (appending again gave …/api/v3/v3, issue 55).
  if (declared.publicEndpoint) return d.path !== '' && isBareOrigin(declared.publicEndpoint) ? `${declared.publicEndpoint.replace(/\/+$/, '')}${d.path}` : declared.publicEndpoint;
  if (declared.gateway) return `https://${declared.gateway.hostname}${d.path}`;
  return internalUrl(d, cp);
}

/** Global oslo.policy rules merged with the service's own, the service's winning (seed 002 projectPolicyOverrides; as Keystone's). */
export function servicePolicies(spec: ControlPlaneSpec, own: DeclaredService['policyOverrides']): Record<string, unknown> | undefined {
  const global = spec.global;
  const rules = sortedMap({ ...(global?.rules ?? {}), ...(own?.rules ?? {}) });
  const configMapRef = own?.configMapRef ?? global?.configMapRef;
  const out: Record<string, unknown> = {};
  if (configMapRef) out.configMapRef = { name: configMapRef.name ?? '' };
  if (Object.keys(rules).length > 0) out.rules = rules;
  return Object.keys(out).length > 0 ? out : undefined;
}

/** The CRD rules on policy overrides (non-empty names and values), for a spec that bypassed admission. */
export function servicePolicyErrors(d: Service, declared: DeclaredService): string[] {
  const errors: string[] = [];
  for (const [name, value] of Object.entries(declared.policyOverrides?.rules ?? {})) {
    const path = `spec.services.${d.name}.policyOverrides.rules`;
    if (name.length === 0) errors.push(`${path}: a policy rule name must not be empty`);
    else if (typeof value !== 'string' || value.length === 0) errors.push(`${path}[${JSON.stringify(name)}]: the policy rule value must not be empty`);
  }
  return errors;
}

/** `spec.<field>` of a service CR: one of its databases (`name`) on the shared MariaDB with its credential `secret` (managed), TLS mapped. */
export function databaseBlock(ctx: ServiceContext, name: string, secret: string): Record<string, unknown> {
  const infra = ctx.infrastructure;
  const db = infra.database;
  const tls = db.tls && db.tls.enabled
    ? withoutUndefined({ caBundleSecretRef: db.tls.caBundleSecretRef, clientCertSecretRef: db.tls.clientCertSecretRef, mode: db.tls.mode })
    : undefined;
  return databaseSpec(infra, { database: name, secret, tls });
}

/** A CR's `serviceUser` block: an OpenStack user of the `service` project authenticating with the password in `secret`. */
export function serviceUser(username: string, secret: string): Record<string, unknown> {
  return {
    username,
    projectName: OPENSTACK_SERVICE_ACCOUNT.project,
    userDomainName: 'Default',
    projectDomainName: 'Default',
    secretRef: { name: secret, key: SERVICE_PASSWORD_KEY },
  };
}

/** `{deployment: {replicas}}` of one process of a CR, when the count is set (or a fallback is). */
export function processReplicas(replicas: number | undefined, fallback?: number): Record<string, unknown> | undefined {
  const n = replicas ?? fallback;
  return n === undefined ? undefined : { deployment: { replicas: n } };
}

/**
 * The part of a service CR spec every service shares (seed 002 §3.1 step 5): release, image,
 * the main database and the cache from the shared infrastructure (managed: the service's own DB
 * credential `{cp}-<svc>-db-credentials`; brownfield: the user's Secret), the bus (a service on
 * it), the in-cluster Keystone, region, the service user and its password Secret, policies,
 * gateway, extraConfig, and `deployment.replicas` where replicas is one number.
 */
export function commonServiceSpec(d: Service, ctx: ServiceContext): Record<string, unknown> {
  const { infrastructure: infra, declared, names } = ctx;
  const main = d.databases.find((db) => db.infix === '');
  const replicas = declared.replicas;
  return withoutUndefined({
    openStackRelease: ctx.release,
    image: serviceImage(d, ctx),
    deployment: typeof replicas === 'number' ? { replicas } : undefined,
    database: main ? databaseBlock(ctx, main.name, names.dbCredentials) : undefined,
    cache: cacheSpec(infra.cache),
    messaging: ctx.messagingSecret ? { secretRef: { name: ctx.messagingSecret, key: TRANSPORT_URL_KEY } } : undefined,
    keystoneEndpoint: keystoneInternalUrl(ctx.cp.namespace, ctx.cp.name),
    region: ctx.spec.region,
    serviceUser: serviceUser(d.name, ctx.passwordSecret),
    policyOverrides: servicePolicies(ctx.spec, declared.policyOverrides),
    gateway: declared.gateway,
    extraConfig: declared.extraConfig && Object.keys(declared.extraConfig).length > 0 ? declared.extraConfig : undefined,
  });
}
