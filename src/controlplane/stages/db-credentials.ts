// Stage 2, reconcileDBCredentials → DBCredentialsReady: the per-ControlPlane DB credential.
import { CONDITION, REASON, REQUEUE } from '../conditions.js';
import { childNames, remoteKeys } from '../names.js';
import { projectedCredentialStage } from './projected-credential.js';

export const dbCredentialsStage = projectedCredentialStage({
  name: 'DBCredentials',
  conditionType: CONDITION.DBCredentials,
  reads: ['spec.infrastructure.database'],
  what: 'DB credential',
  secretName: ({ cp }) => childNames(cp.name).dbCredentials,
  data: ({ cp }) => {
    const key = remoteKeys(cp.namespace, cp.name).db;
    return [
      { secretKey: 'username', key, property: 'username' },
      { secretKey: 'password', key, property: 'password' },
    ];
  },
  waitingReason: REASON.WaitingForDBCredentialSecret,
  readyReason: REASON.DBCredentialsReady,
  requeueSeconds: REQUEUE.dbCredentials,
});
