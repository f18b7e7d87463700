// Stage 4, reconcileKeystone → KeystoneReady: the {cp}-keystone Keystone CR, gated on
// InfrastructureReady.
import { GVK } from '../../k8s/kinds.js';
import { CONDITION, REASON, REQUEUE } from '../conditions.js';
import { child } from '../children.js';
import { intervalToCron, keystoneSpec, policyErrors } from '../keystone-spec.js';
import { childNames } from '../names.js';
import { gate, type Stage, type StageResult } from '../stage.js';
import { awaitReady } from './await-ready.js';
import { invalidSpec } from './invalid-spec.js';

export const keystoneStage: Stage = {
  name: 'Keystone',
  conditionType: CONDITION.Keystone,
  reads: ['spec.openStackRelease', 'spec.region', 'spec.services', 'spec.global', 'spec.infrastructure'],
  interval: REQUEUE.keystone,
  run(input): StageResult {
    const gated = gate(input, CONDITION.Infrastructure, REASON.WaitingForInfrastructure, REQUEUE.keystoneGate);
    if (gated) return gated;
    const interval = input.spec.services.keystone.rotationInterval;
    const cron = interval === undefined ? undefined : intervalToCron(interval);
    if (interval !== undefined && cron === undefined) {
      return invalidSpec(
        [`spec.services.keystone.rotationInterval: "${interval}" is not a positive whole number of days (24h, 48h, 168h, ...)`],
        REQUEUE.keystone,
        REASON.InvalidRotationInterval,
      );
    }
    const policy = policyErrors(input.spec);
    if (policy.length > 0) return invalidSpec(policy, REQUEUE.keystone);
    const { infrastructure, adminPasswordRef } = input.resolved;
    if (!infrastructure.ok) return invalidSpec(infrastructure.errors, REQUEUE.keystone);
    if (!adminPasswordRef.ok) return invalidSpec(adminPasswordRef.errors, REQUEUE.keystone);
    const name = childNames(input.cp.name).keystone;
    const spec = keystoneSpec({ spec: input.spec, infrastructure: infrastructure.value, adminPasswordRef: adminPasswordRef.value, cp: input.cp.name, rotationCron: cron });
    const desired = child(GVK.Keystone, input.cp, name, { spec });
    return awaitReady({
      label: `Keystone ${name}`,
      desired,
      observed: input.children.get(GVK.Keystone, input.cp.namespace, name),
      waitingReason: REASON.WaitingForKeystone,
      readyReason: REASON.KeystoneReady,
      readyMessage: `Keystone ${name} is Ready`,
      requeueSeconds: REQUEUE.keystone,
    });
  },
};
