// The e2e scenarios, one file per subject, listed here in the order the suite runs them: each acts
// on the real API server (or on the stand-ins' OpenBao / outage switches), waits for a goal, and
// asserts on the API server's objects, the stand-ins' record of mints and revocations, Keystone's
// own API where it runs for real, and Metacontroller's and the service's logs.
import type { Scenario } from './support.js';
import { managedScenarios } from './managed.js';
import { upgradeScenarios } from './upgrade.js';
import { realOpenStackScenarios } from './real-keystone.js';
import { realServicesScenarios } from './real-services.js';
import { realVerificationScenarios } from './real-verification.js';
import { realCloudScenarios } from './real-cloud.js';
import { realRegionScenarios } from './real-region.js';
import { realScheduledScenarios } from './real-scheduled.js';
import { fleetScenarios } from './fleet.js';
import { chartScenarios } from './chart.js';
import { backupScenarios } from './backup.js';
import { faultScenarios } from './faults.js';

export { AssertionError, REAL_OPENSTACK_NAMESPACES, Skip, type Ctx, type Scenario } from './support.js';

export function scenarios(shared: string): Scenario[] {
  // The rollouts Tempest verifies (27, 28) run on 16's ControlPlane, before 18 deletes it.
  const real = realOpenStackScenarios(shared);
  real.splice(real.findIndex((s) => s.id === 18), 0, ...realVerificationScenarios());
  return [
    // First: the previous release of the hooks serves while it runs, and no other ControlPlane may meet it.
    ...realRegionScenarios(), // 41: the catalog moves into its region
    ...managedScenarios(shared), // 1-12, 15: the stand-in world
    ...upgradeScenarios(), // 13, 14
    ...real, // 16-20, 22: the real Keystone and K-ORC; 27, 28: Tempest verifies a rollout
    ...realServicesScenarios(), // 21
    ...realCloudScenarios(), // 26: the compute cloud
    ...realScheduledScenarios(shared), // 23, 24
    ...chartScenarios(), // 30: the Helm chart, the alert rules
    ...backupScenarios(), // 31: the database backup and its restore; 42: keeping the database
    ...faultScenarios(shared), // 32-40: components stopped, restarted, killed, emptied; children edited by hand
    ...fleetScenarios(shared), // 25, with Metacontroller restarted while the fleet is converged
  ];
}
