// The names a ControlPlane's children take: part of its API (users and other controllers refer to
// them; the CRD refuses a user-chosen name that is one of them, owned-names.ts).

/** Names of the children and Secrets of the ControlPlane `cp` (all in its namespace). */
export function childNames(cp: string) {
  return {
    keystone: `${cp}-keystone`,
    dbCredentials: `${cp}-keystone-db-credentials`,
    adminPassword: `${cp}-keystone-admin-credentials`,
    adminPasswordCloud: `${cp}-admin-password-cloud`,
    adminAppCredential: `${cp}-admin-app-credential`,
    adminAppCredentialBackup: `${cp}-admin-app-credential-backup`,
    /**
     * Slot B of scheduled rotation: the replacement AC minted alongside the one in slot A
     * (`adminAppCredential`), and the Secret holding the secret it is minted with. Rotations
     * alternate between the two slots (credential/slots.ts).
     */
    adminAppCredentialB: `${cp}-admin-app-credential-b`,
    domain: `${cp}-domain-default`,
    user: `${cp}-user-admin`,
    identityService: `${cp}-identity-service`,
    /** The region-less identity Endpoint of releases before the Region kind: retired once its replacement is Available (catalog-region.ts). */
    identityEndpoint: `${cp}-identity-endpoint`,
    /**
     * The managed Region adopting the region Keystone's bootstrap made (spec.region), and the
     * identity Endpoint registered in it; the `-b` pair is where the rows move when the region
     * changes (catalog-region.ts: the two slots).
     */
    region: `${cp}-region`,
    identityRegionEndpoint: `${cp}-identity-region-ep-public`,
    regionB: `${cp}-region-b`,
    identityRegionEndpointB: `${cp}-identity-region-b-ep-public`,
  };
}

/**
 * The two slots of a set of catalog rows registered in a region (a Region object and the
 * Endpoints naming it): `a` carries upstream's names, `b` the set a changed region moves to while
 * `a` still serves (catalog-region.ts).
 */
export type CatalogSlot = 'a' | 'b';
export const CATALOG_SLOTS: readonly CatalogSlot[] = ['a', 'b'];

/** The interfaces of a service's catalog rows (the identity row has a public one only). */
export const SERVICE_INTERFACES = ['public', 'internal'] as const;

/** The key of a bus URL: in a brownfield bus Secret (its default) and in each service's messaging Secret. */
export const TRANSPORT_URL_KEY = 'transport_url';

/** The shared message bus of a ControlPlane with managed messaging (RabbitmqCluster). */
export const rabbitmqName = (cp: string) => `${cp}-rabbitmq`;

/**
 * The scheduled backup of a managed database (mariadb-operator Backup, docs/architecture.md §2.15);
 * with PVC storage the operator names the claim holding the backups the same.
 */
export const databaseBackupName = (cp: string) => `${cp}-database-backup`;

/**
 * Names of the children of one service beside Keystone (`svc`: its name under spec.services;
 * docs/architecture.md §7.5): its CR, DB credentials, service-user password and its backup, K-ORC
 * account and catalog.
 */
export function serviceChildNames(cp: string, svc: string) {
  const regionOf = (slot: CatalogSlot) => (slot === 'a' ? `${cp}-${svc}-region` : `${cp}-${svc}-region-b`);
  return {
    cr: `${cp}-${svc}`,
    /** The DB credential of its main database. */
    dbCredentials: `${cp}-${svc}-db-credentials`,
    /** The DB credential of one of its databases: `infix` '' is the main one (services/descriptor.ts DatabaseBlock). */
    dbCredentialsOf: (infix: string) => (infix === '' ? `${cp}-${svc}-db-credentials` : `${cp}-${svc}-${infix}-db-credentials`),
    password: `${cp}-${svc}-service-user`,
    passwordBackup: `${cp}-${svc}-service-user-backup`,
    user: `${cp}-user-${svc}`,
    roleAssignment: `${cp}-${svc}-role-assignment`,
    service: `${cp}-${svc}-service`,
    /** The region-less Endpoints of releases before the Region kind: retired once their replacements are Available (catalog-region.ts). */
    publicEndpoint: `${cp}-${svc}-endpoint-public`,
    internalEndpoint: `${cp}-${svc}-endpoint-internal`,
    /** The import of spec.region the service's Endpoints name (upstream: one per registration), per slot. */
    regionOf,
    /** The service's Endpoint of `iface` registered in that region, per slot (upstream: `region-ep-<interface>`). */
    regionEndpointOf: (slot: CatalogSlot, iface: string) => `${regionOf(slot)}-ep-${iface}`,
    /** A child of the service's own beside the CR (a GlanceBackend), e.g. `{cp}-glance-{name}`. */
    part: (name: string) => `${cp}-${svc}-${name}`,
    /** The bus URL the service reads (`transport_url`), built by the hooks from the shared bus. */
    messaging: `${cp}-${svc}-messaging`,
    /** A Secret the hooks generate for the service (Nova's `metadata-secret`). */
    generated: (name: string) => `${cp}-${svc}-${name}`,
  };
}

/**
 * Names of one Keystone account of a service: `key` '' is the service's own (user `<svc>`, the
 * names of serviceChildNames); another key is an extra account of the service, e.g. Neutron's
 * `nova` account (user `neutron-nova`, Neutron's notifier credentials for Nova).
 */
export function accountNames(cp: string, svc: string, key: string) {
  const id = key === '' ? svc : `${svc}-${key}`;
  return {
    /** The OpenStack user name. */
    osUser: id,
    user: `${cp}-user-${id}`,
    password: `${cp}-${id}-service-user`,
    passwordBackup: `${cp}-${id}-service-user-backup`,
    /** The RoleAssignment giving the user `role` (the `service` role's keeps the name it always had). */
    roleAssignment: (role: string) => (role === 'service' ? `${cp}-${id}-role-assignment` : `${cp}-${id}-role-assignment-${role}`),
  };
}

/** The project and role every service account hangs off (shared by all services of a ControlPlane). */
export function sharedServiceAccountNames(cp: string) {
  return { project: `${cp}-project-service`, role: `${cp}-role-service`, roleOf: (role: string) => `${cp}-role-${role}` };
}

/**
 * The Tempest Job of a rollout's verification and the ConfigMap with its tempest.conf (same
 * name): `{cp}-verify-<release>-<6 hex of the rollout's identity>`, at most 63 characters
 * (verification.ts VERIFY_NAME_BUDGET bounds the ControlPlane's name).
 */
export const verificationName = (cp: string, release: string, hash: string) => `${cp}-verify-${release}-${hash}`;
/** Every verification child of `cp` starts with this (a finished rollout's are released by it). */
export const verificationPrefix = (cp: string) => `${cp}-verify-`;
