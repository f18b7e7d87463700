// Condition types, reasons and the wait interval of the CredentialRotation hook, defined once
// (as src/controlplane/conditions.ts and src/secretaggregate/conditions.ts do for theirs).

export const ROTATION_CONDITION = { Ready: 'Ready', Complete: 'RotationComplete' } as const;

export const ROTATION_REASON = {
  UnsupportedTarget: 'UnsupportedTarget',
  NoControlPlane: 'NoControlPlane',
  AmbiguousControlPlane: 'AmbiguousControlPlane',
  BootstrapComplete: 'BootstrapComplete',
  WaitingForBootstrap: 'WaitingForBootstrap',
  WaitingForApplicationCredential: 'WaitingForApplicationCredential',
  WaitingForAdminPassword: 'WaitingForAdminPassword',
  WaitingForServiceUser: 'WaitingForServiceUser',
  NoRotationNeeded: 'NoRotationNeeded',
  RotationTriggered: 'RotationTriggered',
  // RotationComplete
  RotationCompleted: 'RotationCompleted',
  RotationInProgress: 'RotationInProgress',
} as const;

/** Seed credentialRotationWaitInterval: while waiting for the ControlPlane or a dependency. */
export const ROTATION_WAIT_SECONDS = 10;

/** A CredentialRotation condition reason: one of ROTATION_REASON's values. */
export type RotationReason = (typeof ROTATION_REASON)[keyof typeof ROTATION_REASON];
