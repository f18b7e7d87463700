// Stage 4, reconcileKeystone → KeystoneReady: the {cp}-keystone Keystone CR, gated on
// InfrastructureReady.
import { GVK } from '../../k8s/kinds.js';
import { CONDITION, REASON, REQUEUE } from '../conditions.js';
import { child } from '../children.js';
import { intervalToCron, keystoneSpec, policyErrors } from '../keystone-spec.js';
import { childNames } from '../names.js';
import { failed, gate, type Stage, type StageResult } from '../stage.js';
import { deadlineSeconds } from '../rollout/rollout.js';
import { awaitReady } from './await-ready.js';
import { invalidSpec } from './invalid-spec.js';

export const keystoneStage: Stage = {
  name: 'Keystone',
  conditionType: CONDITION.Keystone,
  // spec.verification with spec.rolloutDeadline: the rollout's settings, whose schema errors are Keystone's.
  reads: ['spec.openStackRelease', 'spec.rolloutDeadline', 'spec.verification', 'spec.region', 'spec.services', 'spec.global', 'spec.infrastructure'],
  interval: REQUEUE.keystone,
  run(input): StageResult {
    // Seed 000 lists 5 s for this gate, but never sends it: reconcileInfrastructure returns (15 s)
    // whenever InfrastructureReady is not True, as stage 1 does here. The gate asks for what the
    // seed sends while infrastructure is not ready (docs/architecture.md §7.2).
    const gated = gate(input, CONDITION.Infrastructure, REASON.WaitingForInfrastructure, REQUEUE.infra);
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
    if (deadlineSeconds(input.spec.rolloutDeadline) === undefined) {
      return invalidSpec([`spec.rolloutDeadline: "${String(input.spec.rolloutDeadline)}" is not a duration between 1m and 24h`], REQUEUE.keystone);
    }
    const name = childNames(input.cp.name).keystone;
    const projected = keystoneSpec({ spec: input.spec, infrastructure: infrastructure.value, adminPasswordRef: adminPasswordRef.value, cp: input.cp.name, rotationCron: cron });
    // A release rollout decides the image (rollout/rollout.ts): the running one until UpdatingKeystone.
    const rollout = input.rollout?.keystone;
    if (rollout) projected.image = { ...rollout.image };
    const desired = child(GVK.Keystone, input.cp, name, { spec: projected });
    if (rollout?.refusal) {
      return { condition: { status: 'False', ...rollout.refusal }, outcome: failed(REQUEUE.keystone), children: [desired] };
    }
    const note = rollout?.note ? ` (${rollout.note})` : '';
    const result = awaitReady({
      label: `Keystone ${name}`,
      desired,
      observed: input.children.get(GVK.Keystone, input.cp.namespace, name),
      waitingReason: rollout?.waitingReason ?? REASON.WaitingForKeystone,
      readyReason: REASON.KeystoneReady,
      readyMessage: `Keystone ${name} is Ready`,
      requeueSeconds: REQUEUE.keystone,
    });
    return note ? { ...result, condition: { ...result.condition, message: `${result.condition.message}${note}` } } : result;
  },
};
