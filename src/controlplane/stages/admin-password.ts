// Stage 3, reconcileAdminPassword → AdminPasswordReady: the per-ControlPlane admin password,
// read from the Keystone-name-scoped key bootstrap/{ns}/{cp}-keystone/admin.
import { CONDITION, REASON, REQUEUE } from '../conditions.js';
import { childNames, remoteKeys } from '../names.js';
import { projectedCredentialStage } from './projected-credential.js';

export const adminPasswordStage = projectedCredentialStage({
  name: 'AdminPassword',
  conditionType: CONDITION.AdminPassword,
  reads: ['spec.infrastructure.database', 'spec.korc.adminCredential.passwordSecretRef'],
  what: 'admin password',
  secretName: ({ cp }) => childNames(cp.name).adminPassword,
  data: ({ cp }) => [{ secretKey: 'password', key: remoteKeys(cp.namespace, cp.name).adminPassword, property: 'password' }],
  waitingReason: REASON.WaitingForAdminPasswordSecret,
  readyReason: REASON.AdminPasswordReady,
  requeueSeconds: REQUEUE.adminPassword,
});
