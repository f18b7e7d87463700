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
    identityEndpoint: `${cp}-identity-endpoint`,
  };
}
