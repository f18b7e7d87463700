// POST /controlplane/customize: the objects the sync and finalize hooks need besides the
// ControlPlane and its children (docs/architecture.md §2.12). Metacontroller caches the answer per parent
// generation, so it depends on the spec only.
import type { ControlPlaneParent, CustomizeHookResponse, RelatedResourceRule } from '../api/hooks.js';
import { isObjectName, stringAt } from '../k8s/read.js';
import { CLUSTER_SECRET_STORE, rabbitmqDefaultUserSecret, rabbitmqName } from './names.js';
import { SERVICES, hasReference } from '../api/services/index.js';
import { effectiveAdminPasswordRef, isManagedCache, isManagedDatabase, readSpec } from './spec.js';
import { GVK } from '../k8s/kinds.js';

export function customizeControlPlane(parent: ControlPlaneParent): CustomizeHookResponse {
  const ns = parent.metadata.namespace;
  const cp = parent.metadata.name;
  // Defaults applied as admission would; an invalid spec still relates everything it can name,
  // so the sync hook sees what it needs to report the problem.
  const { spec } = readSpec(parent.spec, cp);
  const rules: RelatedResourceRule[] = [];

  const messaging = spec.infrastructure?.messaging;
  const declared = SERVICES.filter((d) => spec.services?.[d.name] !== undefined && spec.services?.[d.name] !== null);
  const onTheBus = declared.some((d) => d.messaging);
  const secretNames = unique([
    effectiveAdminPasswordRef(spec, cp).name,
    stringAt(spec, 'korc', 'adminCredential', 'cloudCredentialsRef', 'secretName'),
    // Brownfield messaging: the user's bus Secret (its presence and key are checked, docs/architecture.md §2.3;
    // a service on the bus copies its URL, services/messaging.ts).
    messaging?.secretRef?.name,
    // Managed messaging with a service on the bus: the RabbitmqCluster's default-user Secret its URL is built from.
    messaging && messaging.secretRef === undefined && onTheBus ? rabbitmqDefaultUserSecret(cp) : undefined,
  ]);
  if (secretNames.length > 0) rules.push({ ...GVK.Secret.rule, namespace: ns, names: secretNames });

  rules.push({ ...GVK.ClusterSecretStore.rule, names: [CLUSTER_SECRET_STORE] });
  rules.push({ ...GVK.ControlPlane.rule, namespace: ns });
  rules.push({ ...GVK.CredentialRotation.rule, namespace: ns });

  const mariadb = isManagedDatabase(spec) ? stringAt(spec, 'infrastructure', 'database', 'clusterRef', 'name') : undefined;
  if (isObjectName(mariadb)) rules.push({ ...GVK.MariaDB.rule, namespace: ns, names: [mariadb] });
  const memcached = isManagedCache(spec) ? stringAt(spec, 'infrastructure', 'cache', 'clusterRef', 'name') : undefined;
  if (isObjectName(memcached)) rules.push({ ...GVK.Memcached.rule, namespace: ns, names: [memcached] });
  // Managed messaging: an unowned RabbitmqCluster of the child's name is adopted (as the MariaDB).
  if (messaging && messaging.secretRef === undefined && isObjectName(rabbitmqName(cp))) {
    rules.push({ ...GVK.RabbitmqCluster.rule, namespace: ns, names: [rabbitmqName(cp)] });
  }

  // What a declared service reads and does not own (Neutron's OVNCentral), by name.
  for (const d of declared.filter(hasReference)) {
    const name = stringAt(spec.services?.[d.name], ...d.reference.refPath);
    if (isObjectName(name)) rules.push({ ...d.reference.kind.rule, namespace: ns, names: [name] });
  }

  return { relatedResources: rules };
}

function unique(names: (string | undefined)[]): string[] {
  const out: string[] = [];
  for (const name of names) if (isObjectName(name) && !out.includes(name)) out.push(name);
  return out;
}
