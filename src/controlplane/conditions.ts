// Condition types, reasons and requeue intervals of the ControlPlane, exactly as seed 000 names
// them ("Sub-Reconciler Contracts"), defined once.

export const CONDITION = {
  Infrastructure: 'InfrastructureReady',
  DBCredentials: 'DBCredentialsReady',
  AdminPassword: 'AdminPasswordReady',
  Keystone: 'KeystoneReady',
  KORC: 'KORCReady',
  AdminCredential: 'AdminCredentialReady',
  Catalog: 'CatalogReady',
  Ready: 'Ready',
} as const;

/** The seven sub-conditions the Ready aggregate requires, in the seed's reconcile order. */
export const SUB_CONDITIONS = [
  CONDITION.Infrastructure,
  CONDITION.DBCredentials,
  CONDITION.AdminPassword,
  CONDITION.Keystone,
  CONDITION.KORC,
  CONDITION.AdminCredential,
  CONDITION.Catalog,
] as const;

export const REASON = {
  // Ready aggregate and duplicate guard
  AllReady: 'AllReady',
  NotAllReady: 'NotAllReady',
  DuplicateControlPlane: 'DuplicateControlPlane',
  // any stage whose spec fields are unusable (DESIGN §9.7)
  InvalidSpec: 'InvalidSpec',
  // Infrastructure
  InfrastructureReady: 'InfrastructureReady',
  WaitingForDatabase: 'WaitingForDatabase',
  WaitingForCache: 'WaitingForCache',
  MariaDBError: 'MariaDBError',
  MemcachedError: 'MemcachedError',
  // DBCredentials / AdminPassword
  BrownfieldUserSuppliedCredential: 'BrownfieldUserSuppliedCredential',
  SecretStoreNotReady: 'SecretStoreNotReady',
  ExternalSecretError: 'ExternalSecretError',
  WaitingForDBCredentialSecret: 'WaitingForDBCredentialSecret',
  DBCredentialsReady: 'DBCredentialsReady',
  WaitingForAdminPasswordSecret: 'WaitingForAdminPasswordSecret',
  AdminPasswordReady: 'AdminPasswordReady',
  // Keystone
  WaitingForInfrastructure: 'WaitingForInfrastructure',
  InvalidRotationInterval: 'InvalidRotationInterval',
  KeystoneError: 'KeystoneError',
  WaitingForKeystone: 'WaitingForKeystone',
  KeystoneReady: 'KeystoneReady',
} as const;

/** Requeue intervals in seconds (seed "requeue_intervals.go", DESIGN §9.6). */
export const REQUEUE = {
  infra: 15,
  keystoneGate: 5,
  keystone: 15,
  dbCredentials: 10,
  adminPassword: 10,
  korc: 10,
  duplicate: 30,
} as const;

export const READY_MESSAGE = {
  all: 'All sub-conditions are ready',
  notAll: 'One or more sub-conditions are not ready',
} as const;
