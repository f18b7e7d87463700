// Every name, remote key, annotation and label the ControlPlane hooks use, defined once
// (docs/architecture.md §7.5–§7.7).

/** The OpenBao-backed ClusterSecretStore every ExternalSecret and PushSecret uses. */
export const CLUSTER_SECRET_STORE = 'openbao-cluster-store';

/** Label on the admin ApplicationCredential, so the CredentialRotation hook can select it. */
export const ADMIN_AC_LABEL = 'c5c3.io/credential';
export const ADMIN_AC_LABEL_VALUE = 'admin-application-credential';

/** Label on every child: the ControlPlane it belongs to (for people; selection uses controller-uid). */
export const CONTROLPLANE_LABEL = 'c5c3.io/controlplane';

/** Annotations the K-ORC chain writes and reads. */
export const ANNOTATION = {
  /** On the admin AC: SHA-256 hex of the admin password it was minted with (upstream contract, docs/architecture.md §7.6). */
  passwordHash: 'forge.c5c3.io/admin-password-hash',
  /** On the admin AC: SHA-256 hex of the application-credential secret (`value`) it was minted with. */
  secretHash: 'c5c3.io/secret-sha256',
  /**
   * On the app-credential Secret: SHA-256 hex of the last `value` a credential was minted with,
   * so a value that was already used is never used for a second mint.
   */
  mintedSecretHash: 'c5c3.io/minted-secret-sha256',
  /** On the admin AC: the CredentialRotation requests (`uid/generation`, sorted) its mint honoured. */
  rotationRequests: 'c5c3.io/rotation-requests',
  /**
   * On an admin AC minted under a rotation schedule: its place in the sequence of scheduled
   * mints (a replacement is one more than the credential it replaces; absent counts as 0).
   */
  rotationSequence: 'c5c3.io/rotation-sequence',
  /** On the superseded admin AC: when the published credential switched to its replacement. */
  supersededAt: 'c5c3.io/superseded-at',
  /**
   * On the clouds.yaml ExternalSecret: ESO refreshes when any annotation changes; the value is the
   * SHA-256 hex of the document on its way (docs/architecture.md §3.5).
   */
  forceSync: 'external-secrets.io/force-sync',
  /** On the clouds.yaml ExternalSecret: how many forced refreshes of the same document followed the first. */
  forceSyncAttempt: 'c5c3.io/force-sync-attempt',
  /**
   * On a PushSecret: SHA-256 hex of its source Secret's data as observed, so ESO (which does not
   * watch the source) pushes as soon as the Secret holds new content (docs/architecture.md §3.5).
   */
  sourceSha256: 'c5c3.io/source-sha256',
  /**
   * On a PushSecret: the newest time (ESO's lastTransitionTime) an ExternalSecret of the ControlPlane
   * failed to read OpenBao, so ESO pushes the backup again; on an ExternalSecret reading a backup:
   * the same, once the push is proven, so ESO reads it again (openbao-backups.ts, docs/architecture.md §3.9).
   */
  openBaoReadFailedAt: 'c5c3.io/openbao-read-failed-at',
} as const;

/** The OpenStack identities the K-ORC imports and the password cloud use. */
export const OPENSTACK_ADMIN = { user: 'admin', project: 'admin', domain: 'Default' } as const;

/** The in-cluster Keystone URL every clouds.yaml the hooks render uses (docs/architecture.md §3.1). */
export function keystoneInternalUrl(ns: string, cp: string): string {
  return `http://${childNames(cp).keystone}.${ns}.svc:5000/v3`;
}

import { CATALOG_SLOTS, SERVICE_INTERFACES, TRANSPORT_URL_KEY, accountNames, childNames, databaseBackupName, rabbitmqName, sharedServiceAccountNames, serviceChildNames, type CatalogSlot } from '../api/child-names.js';

export { CATALOG_SLOTS, SERVICE_INTERFACES, TRANSPORT_URL_KEY, accountNames, childNames, databaseBackupName, rabbitmqName, sharedServiceAccountNames, serviceChildNames, type CatalogSlot };

/**
 * The OpenStack project and role every service user is given. `keystone-manage bootstrap` (what
 * the Keystone operator runs) creates the `service` role but no `service` project (keystone 28.1.0,
 * keystone/cmd/bootstrap.py; seen in the e2e suite's real Keystone), so neither is imported: both
 * are managed K-ORC objects with `onDelete: detach` — created when missing, adopted when there
 * (K-ORC's ListOSResourcesForAdoption matches by name), never deleted.
 */
export const OPENSTACK_SERVICE_ACCOUNT = { project: 'service', role: 'service' } as const;

/** On the ControlPlane: `c5c3.io/allow-<svc>-deletion: "true"` lets a removed service's children go. */
export const allowDeletionAnnotation = (svc: string) => `c5c3.io/allow-${svc}-deletion`;

/**
 * The RabbitMQ cluster operator's Secret of a RabbitmqCluster's default user: `<cluster>-default-user`
 * with keys username, password, host, port (rabbitmq/cluster-operator internal/resource/
 * default_user_secret.go: `ChildResourceName(DefaultUserSecretName)`, `DefaultUserSecretName =
 * "default-user"`). The services' transport URLs are built from it (services/messaging.ts).
 */
export const rabbitmqDefaultUserSecret = (cp: string) => `${rabbitmqName(cp)}-default-user`;

/** Secret key of the service user's password (`{cp}-<svc>-service-user`). */
export const SERVICE_PASSWORD_KEY = 'password';

/** OpenBao remote keys of a service beside Keystone. */
export function serviceRemoteKeys(ns: string, cp: string, svc: string) {
  return {
    db: `openstack/${svc}/${ns}/${cp}/db`,
    /** The DB credential of one of its databases: `infix` '' is the main one. */
    dbOf: (infix: string) => (infix === '' ? `openstack/${svc}/${ns}/${cp}/db` : `openstack/${svc}/${ns}/${cp}/${infix}-db`),
    password: `openstack/${svc}/${ns}/${cp}/service-user`,
    /** The password of one of its accounts: `key` '' is the service's own. */
    accountPassword: (key: string) => (key === '' ? `openstack/${svc}/${ns}/${cp}/service-user` : `openstack/${svc}/${ns}/${cp}/${key}-service-user`),
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
