// The CredentialRotation API (c5c3.io/v1alpha1): single source of truth for its CRD and for the
// validation of the objects the CredentialRotation hooks receive.
import { Type, type Static } from '@sinclair/typebox';
import { cel, Conditions, CustomResource, Int32, Int64, StringEnum } from './kube.js';
import { CREDENTIALROTATION } from './group.js';

export const ROTATION_TARGETS = ['adminApplicationCredential', 'serviceUserPassword'] as const;

export const CredentialRotationSpec = Type.Object(
  {
    bootstrap: Type.Optional(
      Type.Boolean({ description: 'Request the initial mint instead of a rotation; a no-op once the credential exists.' }),
    ),
    gracePeriodDays: Type.Optional(
      Int32({ minimum: 0, default: 1, description: 'Days the superseded credential stays valid after its replacement is published (rotation mode Scheduled).' }),
    ),
    intervalDays: Type.Optional(
      Int32({ minimum: 1, description: 'Lifetime of each admin application credential in days (Keystone expiresAt); declares the schedule of rotation mode Scheduled.' }),
    ),
    preRotationDays: Type.Optional(
      Int32({ minimum: 0, default: 7, description: 'Days before expiry the replacement is minted alongside (capped at half of intervalDays).' }),
    ),
    reMint: Type.Optional(
      Type.Boolean({ description: 'Discard the current credential and mint a fresh one, once per spec generation.' }),
    ),
    target: StringEnum(ROTATION_TARGETS, {
      description:
        'Credential to rotate: adminApplicationCredential (the ControlPlane\'s K-ORC admin application credential), or serviceUserPassword (the password of the service user targetServiceUser names; reMint only).',
    }),
    targetServiceUser: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 253,
        description: 'target serviceUserPassword: the K-ORC User of a service beside Keystone whose password is replaced, {controlplane}-user-{service} (seed 002 targetServiceUser).',
      }),
    ),
  },
  {
    description: 'Desired state of a CredentialRotation.',
    ...cel(
      { rule: "has(self.targetServiceUser) == (self.target == 'serviceUserPassword')", message: 'targetServiceUser is set exactly when target is serviceUserPassword' },
      {
        rule: "self.target != 'serviceUserPassword' || (!has(self.intervalDays) && !has(self.bootstrap))",
        message: 'a serviceUserPassword rotation is a one-shot reMint: intervalDays and bootstrap apply to adminApplicationCredential only',
      },
    ),
  },
);

export const CredentialRotationStatus = Type.Object(
  {
    conditions: Type.Optional(Conditions('The Ready condition of the rotation.')),
    lastTriggeredGeneration: Type.Optional(
      Int64({ description: 'The .metadata.generation whose reMint request was latched (one-shot per generation).' }),
    ),
    lastTriggeredTime: Type.Optional(
      Type.String({ format: 'date-time', description: 'When the reMint request of lastTriggeredGeneration was latched.' }),
    ),
    lastRotationTime: Type.Optional(
      Type.String({ format: 'date-time', description: 'Scheduled rotation: when the ControlPlane last changed the credential in use.' }),
    ),
    nextRotationTime: Type.Optional(
      Type.String({ format: 'date-time', description: 'Scheduled rotation: when the ControlPlane mints the next replacement.' }),
    ),
    observedGeneration: Type.Optional(Int64({ description: 'The .metadata.generation last reconciled.' })),
  },
  { description: 'Observed state of a CredentialRotation.' },
);

export const CredentialRotation = CustomResource(
  CredentialRotationSpec,
  CredentialRotationStatus,
  'A rotation request (one-shot reMint) or schedule (intervalDays) for a control-plane credential.',
);

export { CREDENTIALROTATION };

export type CredentialRotationSpec = Static<typeof CredentialRotationSpec>;
export type CredentialRotationStatus = Static<typeof CredentialRotationStatus>;
