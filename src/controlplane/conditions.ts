// Condition types, reasons and requeue intervals of the ControlPlane, exactly as the upstream contract names
// them (docs/architecture.md §7), defined once. The types below derive from the constants,
// so a stage can only name a condition type or reason that is defined here. The services'
// condition types and reasons derive from their facts (src/api/services/).
import type { ConditionDecision } from '../k8s/conditions.js';
import { SERVICE_CONDITION, SERVICE_CONDITIONS, SERVICE_REASON } from '../api/services/index.js';

/** The seven conditions of the Keystone chain, in the seed's stage order. */
const CHAIN_CONDITION = {
  Infrastructure: 'InfrastructureReady',
  DBCredentials: 'DBCredentialsReady',
  AdminPassword: 'AdminPasswordReady',
  Keystone: 'KeystoneReady',
  KORC: 'KORCReady',
  AdminCredential: 'AdminCredentialReady',
  Catalog: 'CatalogReady',
} as const;

export const CONDITION = {
  ...CHAIN_CONDITION,
  ...SERVICE_CONDITION,
  /** Aggregate over the declared services (seed 002), computed with Ready in status.ts. */
  Services: 'ServicesReady',
  Ready: 'Ready',
  /** The scheduled database backup: outside the Ready aggregate (ASIDE_CONDITIONS). */
  DatabaseBackup: 'DatabaseBackupReady',
} as const;

/** A ControlPlane condition type: one of CONDITION's values. */
export type ConditionType = (typeof CONDITION)[keyof typeof CONDITION];

/** A condition a stage owns: one of the sub-conditions. */
export type SubConditionType = (typeof CHAIN_CONDITION)[keyof typeof CHAIN_CONDITION] | (typeof SERVICE_CONDITIONS)[number];

/**
 * The sub-conditions the Ready aggregate requires, in the seed's reconcile order: the seven of
 * the Keystone chain, then one per service beside Keystone, a service's reference (OVNReady) right
 * before it (True/`<Svc>NotManaged` when not declared, so the set is the same in every mode,
 * docs/architecture.md §2.13).
 */
export const SUB_CONDITIONS: readonly SubConditionType[] = [...Object.values(CHAIN_CONDITION), ...SERVICE_CONDITIONS];

/**
 * Conditions owned by an aside stage (docs/architecture.md §2.15): decided on every pass, even
 * when the chain stopped earlier, and outside the Ready aggregate, so their failing state is
 * visible without making the ControlPlane unready.
 */
export const ASIDE_CONDITIONS = [CONDITION.DatabaseBackup] as const;
export type AsideConditionType = (typeof ASIDE_CONDITIONS)[number];
/** The condition a stage owns. */
export type StageConditionType = SubConditionType | AsideConditionType;

const CHAIN_REASON = {
  // Ready aggregate and duplicate guard
  AllReady: 'AllReady',
  NotAllReady: 'NotAllReady',
  DuplicateControlPlane: 'DuplicateControlPlane',
  // any stage whose spec fields are unusable (docs/architecture.md §2.8)
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
  // KORC
  WaitingForAdminPassword: 'WaitingForAdminPassword',
  AdminPasswordError: 'AdminPasswordError',
  PasswordCloudError: 'PasswordCloudError',
  ReMinting: 'ReMinting',
  ReMintStalled: 'ReMintStalled',
  ApplicationCredentialError: 'ApplicationCredentialError',
  // the admin Domain and User imports (not in the seed's table: named like its other `<Kind>Error`s)
  DomainError: 'DomainError',
  UserError: 'UserError',
  SecretError: 'SecretError',
  ApplicationCredentialFailed: 'ApplicationCredentialFailed',
  WaitingForApplicationCredential: 'WaitingForApplicationCredential',
  ApplicationCredentialMinted: 'ApplicationCredentialMinted',
  // AdminCredential (SecretStoreNotReady and SecretError above)
  WaitingForKORC: 'WaitingForKORC',
  WaitingForCredentialID: 'WaitingForCredentialID',
  WaitingForAppCredentialSecret: 'WaitingForAppCredentialSecret',
  WaitingForPushSecret: 'WaitingForPushSecret',
  PushSecretError: 'PushSecretError',
  CloudsYamlError: 'CloudsYamlError',
  WaitingForCloudsYaml: 'WaitingForCloudsYaml',
  WaitingForCloudsYamlSync: 'WaitingForCloudsYamlSync',
  CloudsYamlSyncStuck: 'CloudsYamlSyncStuck',
  AdminCredentialReady: 'AdminCredentialReady',
  // Catalog
  WaitingForAdminCredential: 'WaitingForAdminCredential',
  ServiceError: 'ServiceError',
  EndpointError: 'EndpointError',
  CatalogFailed: 'CatalogFailed',
  /** The Region the identity row is registered in failed in K-ORC (catalog-region.ts). */
  RegionFailed: 'RegionFailed',
  WaitingForCatalog: 'WaitingForCatalog',
  CatalogRegistered: 'CatalogRegistered',
  // A refused child of a kind no stage names an error for (unapplied.ts; a bug if ever seen)
  ChildNotApplied: 'ChildNotApplied',
  // Messaging (part of InfrastructureReady when declared)
  WaitingForMessaging: 'WaitingForMessaging',
  MessagingError: 'MessagingError',
  // Services beside Keystone (docs/architecture.md §2.13): the gates every service shares
  // (WaitingForKeystone above); each service's own reasons are SERVICE_REASON's
  WaitingForServiceDBCredentials: 'WaitingForServiceDBCredentials',
  WaitingForServiceAccount: 'WaitingForServiceAccount',
  ServiceAccountFailed: 'ServiceAccountFailed',
  ServiceAccountError: 'ServiceAccountError',
  WaitingForServicePasswordBackup: 'WaitingForServicePasswordBackup',
  RotatingServicePassword: 'RotatingServicePassword',
  WaitingForServiceCatalog: 'WaitingForServiceCatalog',
  // the bus URL of a service on the shared bus (services/messaging.ts)
  WaitingForMessagingCredentials: 'WaitingForMessagingCredentials',
  ServiceMessagingError: 'ServiceMessagingError',
  ServiceCatalogFailed: 'ServiceCatalogFailed',
  /** The Region import a service's rows are registered in failed in K-ORC: its CR waits (catalog-region.ts). */
  ServiceRegionFailed: 'ServiceRegionFailed',
  ServiceDeletionBlocked: 'ServiceDeletionBlocked',
  ServiceDeleting: 'ServiceDeleting',
  // ServicesReady aggregate
  ServicesReady: 'ServicesReady',
  ServicesNotReady: 'ServicesNotReady',
  // DatabaseBackupReady (database-backup.ts): the mariadb-operator Backup's own state, then ours
  BackupScheduled: 'BackupScheduled',
  BackupRunning: 'BackupRunning',
  BackupSucceeded: 'BackupSucceeded',
  BackupFailed: 'BackupFailed',
  WaitingForBackup: 'WaitingForBackup',
  BackupRemoved: 'BackupRemoved',
  DatabaseBackupError: 'DatabaseBackupError',
  // Finalize
  FinalizingORC: 'FinalizingORC',
  ORCTeardownStalled: 'ORCTeardownStalled',
  // Release rollout (docs/architecture.md §6.1, docs/hooks.md "Release upgrades"): refusals
  // (KeystoneReady), the Keystone phases (KeystoneReady), the Ready aggregate while a rollout
  // runs and after a rollback, and why a rollout failed (status.lastUpdate.reason).
  DowngradeRefused: 'DowngradeRefused',
  UnsupportedSkipLevel: 'UnsupportedSkipLevel',
  UnparsableRelease: 'UnparsableRelease',
  UpdatingKeystone: 'UpdatingKeystone',
  RollingBack: 'RollingBack',
  UpdateInProgress: 'UpdateInProgress',
  RolledBack: 'RolledBack',
  UpdateDeadlineExceeded: 'UpdateDeadlineExceeded',
  KeystoneUpdateFailed: 'KeystoneUpdateFailed',
  VerificationFailed: 'VerificationFailed',
} as const;

export const REASON = { ...CHAIN_REASON, ...SERVICE_REASON } as const;

/** A ControlPlane condition reason: one of REASON's values. */
export type Reason = (typeof REASON)[keyof typeof REASON];

/** A condition decided by a ControlPlane stage: its reason is one of REASON's. */
export type Decision = ConditionDecision<Reason>;

/** Requeue intervals in seconds (docs/architecture.md §7.2). */
export const REQUEUE = {
  infra: 15,
  keystone: 15,
  dbCredentials: 10,
  adminPassword: 10,
  korc: 10,
  duplicate: 30,
  /** A service beside Keystone (docs/architecture.md §2.13), waiting or failed. */
  service: 10,
  /** A rollout advances at most one phase per answer; this is the next look while one runs. */
  rollout: 5,
} as const;

/** How long a state may last before its condition escalates (seed: remintStallTimeout, cloudsYamlSyncStuckTimeout). */
export const TIMEOUT_SECONDS = {
  reMintStall: 5 * 60,
  orcTeardownStall: 5 * 60,
  cloudsYamlSyncStuck: 15 * 60,
  /**
   * A child still not carrying what was asked (or still absent) this long after it was asked
   * for is refused, not waited for: 20 of the longest stage wait (15 s), the same bound as the
   * other stalls. Metacontroller retries a failed apply with backoff and on every resync, so a
   * legitimate apply lands within seconds.
   */
  childNotApplied: 5 * 60,
} as const;


export const READY_MESSAGE = {
  all: 'All sub-conditions are ready',
  notAll: 'One or more sub-conditions are not ready',
} as const;

export const SERVICES_READY_MESSAGE = {
  none: 'No service beside Keystone is declared',
  all: 'Every declared service is Ready',
  notAll: 'Declared services not Ready',
} as const;
