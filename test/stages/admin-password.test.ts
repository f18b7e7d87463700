// Stage 3, AdminPassword → AdminPasswordReady, called directly: the Keystone-name-scoped key.
import { adminPasswordStage } from '../../src/controlplane/stages/admin-password.js';
import { projectedCredentialTests } from '../support/projected.js';

projectedCredentialTests({
  stage: adminPasswordStage,
  what: 'admin password',
  name: 'controlplane-keystone-keystone-admin-credentials',
  remote: 'bootstrap/openstack/controlplane-keystone-keystone/admin',
  keys: ['password'],
  waiting: 'WaitingForAdminPasswordSecret',
  ready: 'AdminPasswordReady',
});
