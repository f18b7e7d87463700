// Stage 2, DBCredentials → DBCredentialsReady, called directly.
import { dbCredentialsStage } from '../../src/controlplane/stages/db-credentials.js';
import { projectedCredentialTests } from '../support/projected.js';

projectedCredentialTests({
  stage: dbCredentialsStage,
  what: 'DB credential',
  name: 'controlplane-keystone-keystone-db-credentials',
  remote: 'openstack/keystone/openstack/controlplane-keystone/db',
  keys: ['username', 'password'],
  waiting: 'WaitingForDBCredentialSecret',
  ready: 'DBCredentialsReady',
});
