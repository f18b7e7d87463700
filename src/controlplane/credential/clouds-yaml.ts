// The clouds.yaml documents the hooks render (docs/architecture.md §3.1): the password cloud K-ORC uses to
// mint and revoke the admin application credential, and the application-credential cloud
// built from the AC's status.id and the secret the hooks chose. Both name the cloud entry by
// `cloudName` and point at the in-cluster Keystone, through its internal endpoints
// (`endpoint_type: internal`: K-ORC runs in-cluster).
import { stringify } from 'yaml';
import { readBoundedYaml } from '../../bounded-yaml.js';
import { isObject } from '../../k8s/read.js';
import { OPENSTACK_ADMIN, keystoneInternalUrl } from '../names.js';
import type { StageInput } from '../stage.js';
import { exactKey } from '../../memo.js';

/** K-ORC runs in-cluster: every clouds.yaml selects the internal endpoints. */
export const ENDPOINT_TYPE = 'internal';

export interface CloudTarget {
  cloudName: string;
  authUrl: string;
  region: string;
}

/** Where every clouds.yaml of this ControlPlane points: the in-cluster Keystone, its region. */
export function cloudTarget(input: Pick<StageInput, 'cp' | 'spec'>, cloudName: string): CloudTarget {
  return { cloudName, authUrl: keystoneInternalUrl(input.cp.namespace, input.cp.name), region: input.spec.region ?? '' };
}

function render(target: CloudTarget, auth: Record<string, string>, authType?: string): string {
  const cloud: Record<string, unknown> = { auth };
  if (authType) cloud.auth_type = authType;
  cloud.endpoint_type = ENDPOINT_TYPE;
  cloud.identity_api_version = 3;
  cloud.region_name = target.region;
  return stringify({ clouds: { [target.cloudName]: cloud } });
}

export function passwordCloud(target: CloudTarget, password: string): string {
  return render(target, {
    auth_url: target.authUrl,
    username: OPENSTACK_ADMIN.user,
    password,
    project_name: OPENSTACK_ADMIN.project,
    user_domain_name: OPENSTACK_ADMIN.domain,
    project_domain_name: OPENSTACK_ADMIN.domain,
  });
}

export function applicationCredentialCloud(target: CloudTarget, id: string, secret: string): string {
  return render(
    target,
    { auth_url: target.authUrl, application_credential_id: id, application_credential_secret: secret },
    'v3applicationcredential',
  );
}

export interface ApplicationCredentialAuth {
  id: string;
  secret: string;
}

export type ParsedCloud =
  | { kind: 'unparsable'; why: string }
  | { kind: 'no-credential' }
  | { kind: 'credential'; auth: ApplicationCredentialAuth };

/**
 * The application credential a clouds.yaml document authenticates with, for the semantic compare
 * of the materialised Secret: parsed, so a re-serialisation (key order, quoting, a trailing
 * newline) reads the same.
 */
export function readApplicationCredential(document: string, cloudName: string): ParsedCloud {
  const read = readBoundedYaml(document);
  if (!read.ok) return { kind: 'unparsable', why: read.why };
  const doc = read.value;
  if (!isObject(doc)) return { kind: 'unparsable', why: 'it is not a map' };
  const clouds = doc.clouds;
  const cloud = isObject(clouds) ? clouds[cloudName] : undefined;
  const auth = isObject(cloud) ? cloud.auth : undefined;
  if (!isObject(auth)) return { kind: 'no-credential' };
  const id = auth.application_credential_id;
  const secret = auth.application_credential_secret;
  if (typeof id !== 'string' || typeof secret !== 'string') return { kind: 'no-credential' };
  return { kind: 'credential', auth: Object.freeze({ id, secret }) };
}

/** A document's content as canonical JSON (maps sorted), or undefined when it is not YAML (bounded-yaml.ts). */
function canonicalOf(document: string): string | undefined {
  const read = readBoundedYaml(document);
  return read.ok ? exactKey(sortDeep(read.value)) : undefined;
}

function sortDeep(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortDeep);
  if (!isObject(value)) return value;
  return Object.fromEntries(Object.keys(value).sort().map((k) => [k, sortDeep(value[k])]));
}

/**
 * Two clouds.yaml documents say the same (parsed: key order, quoting, a trailing newline do not
 * count). Parsed only when the bytes differ, which ESO's copy never makes them.
 */
export function sameYaml(a: string, b: string): boolean {
  if (a === b) return true;
  const ca = canonicalOf(a);
  return ca !== undefined && ca === canonicalOf(b);
}
