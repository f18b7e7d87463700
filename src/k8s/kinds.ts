// The kinds the hooks emit or read: apiVersion and kind as Metacontroller's childResources name
// them, the plural resource for customize rules and metacontroller/ objects, and the group key
// Metacontroller uses in `children` / `related` (docs/architecture.md §1.4).
import { CONTROLPLANE, CREDENTIALROTATION, SECRETAGGREGATE } from '../api/group.js';
import { REFERENCE_KINDS, SERVICE_KINDS } from '../api/services/index.js';
import { kind, type KindInfo } from '../api/kind-info.js';

export type { KindInfo };

export const GVK = {
  Secret: kind('v1', 'Secret', 'secrets'),
  /** The tempest.conf of a rollout's verification (rollout/verification.ts). */
  ConfigMap: kind('v1', 'ConfigMap', 'configmaps'),
  /** The Tempest run of a rollout's Verifying phase (rollout/verification.ts). */
  Job: kind('batch/v1', 'Job', 'jobs'),
  MariaDB: kind('k8s.mariadb.com/v1alpha1', 'MariaDB', 'mariadbs'),
  /** mariadb-operator's scheduled backup of a MariaDB (the database backup, docs/architecture.md §2.15). */
  Backup: kind('k8s.mariadb.com/v1alpha1', 'Backup', 'backups'),
  /** mariadb-operator's restore of a Backup into a MariaDB: created by people (README), read by the simulator. */
  Restore: kind('k8s.mariadb.com/v1alpha1', 'Restore', 'restores'),
  Memcached: kind('memcached.c5c3.io/v1beta1', 'Memcached', 'memcacheds'),
  ExternalSecret: kind('external-secrets.io/v1', 'ExternalSecret', 'externalsecrets'),
  PushSecret: kind('external-secrets.io/v1alpha1', 'PushSecret', 'pushsecrets'),
  ClusterSecretStore: kind('external-secrets.io/v1', 'ClusterSecretStore', 'clustersecretstores'),
  Keystone: kind('keystone.openstack.c5c3.io/v1alpha1', 'Keystone', 'keystones'),
  ApplicationCredential: kind('openstack.k-orc.cloud/v1alpha1', 'ApplicationCredential', 'applicationcredentials'),
  Service: kind('openstack.k-orc.cloud/v1alpha1', 'Service', 'services'),
  Endpoint: kind('openstack.k-orc.cloud/v1alpha1', 'Endpoint', 'endpoints'),
  /** A Keystone region (K-ORC with Region, e.g. 482412c0): the catalog rows name one (Endpoint.spec.resource.regionRef). */
  Region: kind('openstack.k-orc.cloud/v1alpha1', 'Region', 'regions'),
  User: kind('openstack.k-orc.cloud/v1alpha1', 'User', 'users'),
  Domain: kind('openstack.k-orc.cloud/v1alpha1', 'Domain', 'domains'),
  Project: kind('openstack.k-orc.cloud/v1alpha1', 'Project', 'projects'),
  Role: kind('openstack.k-orc.cloud/v1alpha1', 'Role', 'roles'),
  RoleAssignment: kind('openstack.k-orc.cloud/v1alpha1', 'RoleAssignment', 'roleassignments'),
  RabbitmqCluster: kind('rabbitmq.com/v1beta1', 'RabbitmqCluster', 'rabbitmqclusters'),
  ControlPlane: kind(CONTROLPLANE.apiVersion, CONTROLPLANE.kind, CONTROLPLANE.plural),
  CredentialRotation: kind(CREDENTIALROTATION.apiVersion, CREDENTIALROTATION.kind, CREDENTIALROTATION.plural),
  SecretAggregate: kind(SECRETAGGREGATE.apiVersion, SECRETAGGREGATE.kind, SECRETAGGREGATE.plural),
} as const;

/** Every kind the hooks know: GVK's, the services' CR and part kinds, and the kinds services read (OVNCentral). */
export const KNOWN_KINDS: readonly KindInfo[] = [...Object.values(GVK), ...SERVICE_KINDS, ...REFERENCE_KINDS];

/** The cluster-scoped kinds among those the hooks read (everything else is namespaced). */
export const CLUSTER_SCOPED_KINDS: ReadonlySet<string> = new Set(['ClusterSecretStore', 'Namespace']);

/**
 * Every kind a ControlPlane owns as a child (the child names of docs/architecture.md §7.5, K-ORC
 * imports included): the Keystone chain's, then each service's CR and part kinds (SERVICES). The
 * Metacontroller CompositeController lists exactly these (`npm run gen`).
 */
export const CONTROLPLANE_CHILD_KINDS: readonly KindInfo[] = [
  GVK.MariaDB,
  GVK.Memcached,
  GVK.ExternalSecret,
  GVK.Secret,
  GVK.PushSecret,
  GVK.Keystone,
  GVK.ApplicationCredential,
  GVK.User,
  GVK.Domain,
  GVK.Service,
  GVK.Endpoint,
  GVK.Region,
  GVK.RabbitmqCluster,
  GVK.Project,
  GVK.Role,
  GVK.RoleAssignment,
  GVK.Backup,
  GVK.ConfigMap,
  GVK.Job,
  ...SERVICE_KINDS,
];

/**
 * Child kinds Metacontroller never updates in place (updateStrategy OnDelete): a Job's pod template
 * is immutable, and a verification Job is asked for once per rollout and never changed.
 */
export const ON_DELETE_CHILD_KINDS: ReadonlySet<string> = new Set([GVK.Job.kind]);
