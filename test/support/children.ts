// Validating an emitted child as the API server would: its upstream CRD (structural schema and
// CEL rules) from ../shared/crds, or the core rules of a Secret.
import { admission } from './crd.js';
import { upstreamSchema, type Obj } from './shared.js';
import { COMPUTE_KINDS, objectSchema } from './compute-crds.js';

/**
 * The K-ORC the e2e suite runs (482412c0: c22784ca plus the Region kind and
 * Endpoint.spec.resource.regionRef), from its own CRDs: no K-ORC release has them (under crds/).
 */
const KORC_WITH_REGION = '../third_party/k-orc-482412c0/config/crd/bases';

const CRD_FILES: Record<string, string> = {
  'k8s.mariadb.com/v1alpha1 MariaDB': 'k8s.mariadb.com/mariadbs.yaml',
  'memcached.c5c3.io/v1beta1 Memcached': 'memcached.c5c3.io/memcacheds.yaml',
  'external-secrets.io/v1 ExternalSecret': 'external-secrets.io/externalsecrets.yaml',
  'external-secrets.io/v1alpha1 PushSecret': 'external-secrets.io/pushsecrets.yaml',
  'keystone.openstack.c5c3.io/v1alpha1 Keystone': 'keystone.openstack.c5c3.io/keystones.yaml',
  'openstack.k-orc.cloud/v1alpha1 ApplicationCredential': 'openstack.k-orc.cloud/applicationcredentials.yaml',
  'openstack.k-orc.cloud/v1alpha1 User': 'openstack.k-orc.cloud/users.yaml',
  'openstack.k-orc.cloud/v1alpha1 Domain': 'openstack.k-orc.cloud/domains.yaml',
  'openstack.k-orc.cloud/v1alpha1 Service': 'openstack.k-orc.cloud/services.yaml',
  'openstack.k-orc.cloud/v1alpha1 Endpoint': `${KORC_WITH_REGION}/openstack.k-orc.cloud_endpoints.yaml`,
  'openstack.k-orc.cloud/v1alpha1 Region': `${KORC_WITH_REGION}/openstack.k-orc.cloud_regions.yaml`,
  'openstack.k-orc.cloud/v1alpha1 Project': 'openstack.k-orc.cloud/projects.yaml',
  'openstack.k-orc.cloud/v1alpha1 Role': 'openstack.k-orc.cloud/roles.yaml',
  'openstack.k-orc.cloud/v1alpha1 RoleAssignment': 'openstack.k-orc.cloud/roleassignments.yaml',
  'rabbitmq.com/v1beta1 RabbitmqCluster': 'rabbitmq.com/rabbitmqclusters.yaml',
  'placement.openstack.c5c3.io/v1alpha1 Placement': 'placement.openstack.c5c3.io/placements.yaml',
  'glance.openstack.c5c3.io/v1alpha1 Glance': 'glance.openstack.c5c3.io/glances.yaml',
  'glance.openstack.c5c3.io/v1alpha1 GlanceBackend': 'glance.openstack.c5c3.io/glancebackends.yaml',
};
/**
 * A schema that refuses fields it does not name (additionalProperties false wherever properties are
 * listed): the compute kinds' CRDs list exactly the fields upstream has for what we project, so a
 * field we emit that upstream lacks is an error here (the API server would prune it).
 */
function strict(schema: Obj): Obj {
  if (Array.isArray(schema) || typeof schema !== 'object' || schema === null) return schema;
  const out: Obj = Object.fromEntries(Object.entries(schema).map(([k, v]) => [k, k === 'properties' ? Object.fromEntries(Object.entries(v as Obj).map(([p, x]) => [p, strict(x)])) : k === 'items' || k === 'additionalProperties' ? strict(v) : v]));
  if (out.properties && out['x-kubernetes-preserve-unknown-fields'] !== true) out.additionalProperties = false;
  return out;
}

const admitters = new Map<string, ReturnType<typeof admission>>();
export function admit(child: Obj) {
  const key = `${child.apiVersion} ${child.kind}`;
  const file = CRD_FILES[key];
  const compute = COMPUTE_KINDS.find((k) => `${k.group}/v1alpha1 ${k.kind}` === key);
  if (!file && !compute) return undefined;
  if (!admitters.has(key)) {
    const schema = compute ? strict({ ...objectSchema(compute), properties: { ...(objectSchema(compute).properties as Obj), metadata: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } }) : upstreamSchema(file!, child.apiVersion.split('/')[1]);
    admitters.set(key, admission(schema));
  }
  return admitters.get(key)!(child);
}

/** A core Secret as the API server would accept it: Opaque, base64 `data` only. */
export function secretErrors(secret: Obj): string[] {
  const errors: string[] = [];
  if (secret.type !== 'Opaque') errors.push('type must be Opaque');
  if ('stringData' in secret) errors.push('stringData must not be used');
  for (const [k, v] of Object.entries(secret.data ?? {})) {
    if (!/^[-._a-zA-Z0-9]+$/.test(k)) errors.push(`data key ${k} is not a valid Secret key`);
    if (typeof v !== 'string' || Buffer.from(v, 'base64').toString('base64') !== v) errors.push(`data.${k} is not canonical base64`);
  }
  return errors;
}


/** Every reason the API server would refuse this child (empty when it is admitted). */
export function admitChild(child: Obj): string[] {
  if (child.kind === 'Secret') return secretErrors(child);
  const result = admit(child);
  return result ? result.errors : [`no CRD known for ${child.apiVersion} ${child.kind}`];
}
