// Every name, remote key, annotation and label the ControlPlane hooks use, defined once
// (seed 000: "Owner-ref / GC model", "Multi-instance", "K-ORC admin credential chain").

/** The OpenBao-backed ClusterSecretStore every ExternalSecret and PushSecret uses. */
export const CLUSTER_SECRET_STORE = 'openbao-cluster-store';

/** Label on the admin ApplicationCredential, so the CredentialRotation hook can select it. */
export const ADMIN_AC_LABEL = 'c5c3.io/credential';
export const ADMIN_AC_LABEL_VALUE = 'admin-application-credential';

/** Label on every child: the ControlPlane it belongs to (for people; selection uses controller-uid). */
export const CONTROLPLANE_LABEL = 'c5c3.io/controlplane';

/** Names of the children and Secrets of the ControlPlane `cp` in namespace `ns`. */
export function childNames(cp: string) {
  return {
    keystone: `${cp}-keystone`,
    dbCredentials: `${cp}-keystone-db-credentials`,
    adminPassword: `${cp}-keystone-admin-credentials`,
    adminPasswordCloud: `${cp}-admin-password-cloud`,
    adminAppCredential: `${cp}-admin-app-credential`,
    adminAppCredentialBackup: `${cp}-admin-app-credential-backup`,
    domain: `${cp}-domain-default`,
    user: `${cp}-user-admin`,
    identityService: `${cp}-identity-service`,
    identityEndpoint: `${cp}-identity-endpoint`,
  };
}

/** OpenBao remote keys, scoped per ControlPlane so two of them never collide. */
export function remoteKeys(ns: string, cp: string) {
  return {
    db: `openstack/keystone/${ns}/${cp}/db`,
    adminPassword: `bootstrap/${ns}/${cp}-keystone/admin`,
    adminAppCredential: `openstack/keystone/${ns}/${cp}/admin/app-credential`,
  };
}
