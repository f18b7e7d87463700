// A service beside Keystone (docs/architecture.md §2.13), described once: what the generic service
// stage (stage.ts) needs to project it. Glance, Nova, Neutron, Cinder copy placement.ts: a
// descriptor, a CR spec builder, and (Glance) extra children; the stage, the status, the teardown
// and the pipeline take every descriptor in SERVICES (index.ts) without change.
import type { ControlPlaneSpec, ManagedServiceName } from '../../api/controlplane.js';
import type { KindInfo } from '../../k8s/kinds.js';
import type { KubeObject } from '../../k8s/observed.js';
import type { Decision, Reason, SubConditionType } from '../conditions.js';
import type { ControlPlaneRef } from '../ref.js';
import type { Infrastructure } from '../spec.js';
import { sortedMap } from '../children.js';
import { cacheSpec, databaseSpec, withoutUndefined } from '../backing-spec.js';
import { keystoneInternalUrl, serviceChildNames, OPENSTACK_SERVICE_ACCOUNT, SERVICE_PASSWORD_KEY } from '../names.js';

/** services.<svc> of the spec: the fields every service takes (api/controlplane.ts serviceFields). */
export type DeclaredService = NonNullable<ControlPlaneSpec['services']['placement']>;

export interface ServiceDescriptor {
  /** The key under spec.services, the OpenStack user name, and the `<svc>` of every child name. */
  name: ManagedServiceName;
  /** For messages: Placement, Glance. */
  title: string;
  /** The catalog Service type (placement, image). */
  serviceType: string;
  /** The API port of the in-cluster Service `{cp}-<svc>` (placement 8778, glance 9292). */
  port: number;
  /** The database name in the shared MariaDB. */
  database: string;
  /** The service CR's kind. */
  kind: KindInfo;
  /** The kind of the children emitted by `parts` (named `{cp}-<svc>-<name>`), if any. */
  partKind?: KindInfo;
  /** The condition the service's stage owns. */
  conditionType: SubConditionType;
  reasons: {
    /** True while the service is not declared. */
    notManaged: Reason;
    /** False while the CR (or one of its parts) is not Ready as desired. */
    waiting: Reason;
    /** True: everything Ready. */
    ready: Reason;
  };
  /** The service CR's spec, from what every service shares (ServiceContext). */
  crSpec(ctx: ServiceContext): Record<string, unknown>;
  /** Children of the service's own beside the CR (Glance's backends), emitted with it. */
  parts?(ctx: ServiceContext): KubeObject[];
  /** Problems of the declared spec the schema cannot express, each `spec.services.<svc>…: …`. */
  specErrors?(declared: DeclaredService, spec: ControlPlaneSpec): string[];
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
  /** The release to project: spec.openStackRelease, or during a rollout the one it allows (docs/architecture.md §6.1). */
  release: string;
}

/** The condition of a service that is not declared (stage.ts and, before the stage is reached, status.ts). */
export function notManaged(d: ServiceDescriptor): Decision {
  return { status: 'True', reason: d.reasons.notManaged, message: `${d.title} is not managed: spec.services.${d.name} is not declared` };
}

export const SERVICE_IMAGE_REGISTRY = 'ghcr.io/c5c3';

/** services.<svc>.image, else ghcr.io/c5c3/<svc>:<openStackRelease>. */
export function serviceImage(d: ServiceDescriptor, ctx: ServiceContext): { repository: string; tag: string } {
  const image = ctx.declared.image;
  return image ? { repository: image.repository, tag: image.tag } : { repository: `${SERVICE_IMAGE_REGISTRY}/${d.name}`, tag: ctx.release };
}

/** The in-cluster URL of the service's API. */
export function internalUrl(d: ServiceDescriptor, cp: ControlPlaneRef): string {
  return `http://${serviceChildNames(cp.name, d.name).cr}.${cp.namespace}.svc:${d.port}`;
}

/** The public catalog URL: publicEndpoint, else https://{gateway.hostname}, else the internal URL. */
export function publicUrl(d: ServiceDescriptor, cp: ControlPlaneRef, declared: DeclaredService): string {
  if (declared.publicEndpoint) return declared.publicEndpoint;
  if (declared.gateway) return `https://${declared.gateway.hostname}`;
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
export function servicePolicyErrors(d: ServiceDescriptor, declared: DeclaredService): string[] {
  const errors: string[] = [];
  for (const [name, value] of Object.entries(declared.policyOverrides?.rules ?? {})) {
    const path = `spec.services.${d.name}.policyOverrides.rules`;
    if (name.length === 0) errors.push(`${path}: a policy rule name must not be empty`);
    else if (typeof value !== 'string' || value.length === 0) errors.push(`${path}[${JSON.stringify(name)}]: the policy rule value must not be empty`);
  }
  return errors;
}

/**
 * The part of a service CR spec every service shares (seed 002 §3.1 step 5): release, image,
 * database and cache from the shared infrastructure (managed: the service's own DB credential
 * `{cp}-<svc>-db-credentials`; brownfield: the user's Secret), the in-cluster Keystone, region,
 * the service user and its password Secret, policies, gateway, extraConfig, replicas.
 */
export function commonServiceSpec(d: ServiceDescriptor, ctx: ServiceContext): Record<string, unknown> {
  const { infrastructure: infra, declared, names } = ctx;
  const db = infra.database;
  const cache = infra.cache;
  const tls = db.tls && db.tls.enabled
    ? withoutUndefined({ caBundleSecretRef: db.tls.caBundleSecretRef, clientCertSecretRef: db.tls.clientCertSecretRef, mode: db.tls.mode })
    : undefined;
  const database = databaseSpec(infra, { database: d.database, secret: names.dbCredentials, tls });
  return withoutUndefined({
    openStackRelease: ctx.release,
    image: serviceImage(d, ctx),
    deployment: declared.replicas !== undefined ? { replicas: declared.replicas } : undefined,
    database,
    cache: cacheSpec(cache),
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
