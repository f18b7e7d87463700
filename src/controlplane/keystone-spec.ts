// The projection of a ControlPlane spec onto the Keystone CR's spec (seed: reconcileKeystone).
import type { ControlPlaneSpec } from '../api/controlplane.js';
import type { Infrastructure, SecretKeyRef } from './spec.js';
import { childNames } from './names.js';
import { cacheSpec, databaseSpec, withoutUndefined } from './backing-spec.js';
import { durationSeconds } from '../k8s/duration.js';
import { servicePolicies } from './services/projection.js';

export const KEYSTONE_IMAGE_REPOSITORY = 'ghcr.io/c5c3/keystone';
export const WEEKLY_CRON = '0 0 * * 0';
export const DAILY_CRON = '0 0 * * *';


/**
 * rotationInterval → cron (seed intervalToCron): 168h is weekly (`0 0 * * 0`); any other
 * positive whole number of days is daily (`0 0 * * *`). Accepts what the CRD's CEL rule accepts:
 * whole h/m/s components (24h, 1440m, 24h0m0s). Returns undefined for anything else.
 */
export function intervalToCron(interval: string): string | undefined {
  const seconds = durationSeconds(interval);
  if (seconds === undefined || seconds <= 0 || seconds % 86400 !== 0) return undefined;
  return seconds === 7 * 86400 ? WEEKLY_CRON : DAILY_CRON;
}

/**
 * The CRD's CEL rules on policy overrides (non-empty rule names and values), for a spec that
 * bypassed admission: each violation names its field.
 */
export function policyErrors(spec: ControlPlaneSpec): string[] {
  const errors: string[] = [];
  const check = (path: string, rules: Record<string, string> | undefined) => {
    for (const [name, value] of Object.entries(rules ?? {})) {
      if (name.length === 0) errors.push(`${path}.rules: a policy rule name must not be empty`);
      else if (typeof value !== 'string' || value.length === 0) errors.push(`${path}.rules[${JSON.stringify(name)}]: the policy rule value must not be empty`);
    }
  };
  check('spec.global', spec.global?.rules);
  check('spec.services.keystone.policyOverrides', spec.services.keystone.policyOverrides?.rules);
  return errors;
}

/** Global oslo.policy rules merged with Keystone's own; Keystone's win (seed MergePolicies), as every service's. */
export function mergePolicies(spec: ControlPlaneSpec): Record<string, unknown> | undefined {
  // The Keystone CRD refuses a policyOverrides without rules or a ConfigMap: omitted then.
  return servicePolicies(spec, spec.services.keystone.policyOverrides);
}

/** The public identity URL: publicEndpoint, else https://{gateway.hostname}/v3, else unset. */
export function publicEndpoint(spec: ControlPlaneSpec): string | undefined {
  const keystone = spec.services.keystone;
  if (keystone.publicEndpoint) return keystone.publicEndpoint;
  if (keystone.gateway) return `https://${keystone.gateway.hostname}/v3`;
  return undefined;
}

/** The image Keystone runs for this spec: services.keystone.image, else ghcr.io/c5c3/keystone:<openStackRelease>. */
export function effectiveKeystoneImage(spec: ControlPlaneSpec): { repository: string; tag: string } {
  const image = spec.services.keystone.image;
  return image ? { repository: image.repository, tag: image.tag } : { repository: KEYSTONE_IMAGE_REPOSITORY, tag: spec.openStackRelease };
}

/** What the Keystone spec is made of: the spec and its resolved parts (spec.ts). */
export interface KeystoneInputs {
  spec: ControlPlaneSpec;
  infrastructure: Infrastructure;
  adminPasswordRef: SecretKeyRef;
  cp: string;
  /** intervalToCron's result (validated by the caller). */
  rotationCron: string | undefined;
}

/** The Keystone spec. */
export function keystoneSpec({ spec, infrastructure, adminPasswordRef, cp, rotationCron }: KeystoneInputs): Record<string, unknown> {
  const keystone = spec.services.keystone;
  const db = infrastructure.database;
  const cache = infrastructure.cache;
  const database = databaseSpec(infrastructure, { database: db.database, secret: childNames(cp).dbCredentials, tls: db.tls });
  return withoutUndefined({
    replicas: keystone.replicas,
    image: effectiveKeystoneImage(spec),
    database,
    cache: cacheSpec(cache),
    bootstrap: withoutUndefined({
      adminPasswordSecretRef: { name: adminPasswordRef.name, key: adminPasswordRef.key },
      region: spec.region,
      publicEndpoint: publicEndpoint(spec),
    }),
    fernet: rotationCron ? { rotationSchedule: rotationCron } : undefined,
    credentialKeys: rotationCron ? { rotationSchedule: rotationCron } : undefined,
    gateway: keystone.gateway,
    policyOverrides: mergePolicies(spec),
  });
}
