// The stage of an object a service reads and never owns (docs/architecture.md §2.13): Neutron's
// OVNCentral. It owns the reference's condition (`OVNReady`), runs as a sibling right before the
// service's stage, relates the object by name (customize.ts) and never emits, changes or deletes
// it. The service's stage gates its CR on the condition (WaitingFor<Title>).
import { referenceCondition, type Reference, type Service } from '../../api/services/index.js';
import { isReadyAsDesired, readinessDetail } from '../../k8s/readiness.js';
import { stringAt } from '../../k8s/read.js';
import { REQUEUE, type Decision } from '../conditions.js';
import { complete, waiting, type Stage, type StageResult } from '../stage.js';
import { REFERENCE_PROJECTIONS } from './index.js';

/** The reference's condition while its service is not declared. */
export function referenceNotManaged(owner: Service, r: Reference): Decision {
  return { status: 'True', reason: r.reasons.notManaged, message: `${r.title} is not used: spec.services.${owner.name} is not declared` };
}

export function referenceStage(owner: Service, r: Reference): Stage {
  const projection = REFERENCE_PROJECTIONS[r.title];
  return {
    name: r.title,
    conditionType: referenceCondition(r),
    reads: [`spec.services.${owner.name}`],
    interval: REQUEUE.service,
    sibling: true,
    run(input): StageResult {
      const declared = input.spec.services?.[owner.name];
      const result = (condition: Decision): StageResult => ({ condition, outcome: condition.status === 'True' ? complete() : waiting(REQUEUE.service), children: [] });
      if (!declared) return result(referenceNotManaged(owner, r));
      const name = stringAt(declared, ...r.refPath);
      if (name === undefined) return result({ status: 'False', reason: r.reasons.notFound, message: `spec.services.${owner.name}.${r.refPath.join('.')} names no ${r.kind.kind}` });
      const label = `${r.kind.kind} ${input.cp.namespace}/${name}`;
      const observed = input.related.get(r.kind, input.cp.namespace, name);
      if (!observed) return result({ status: 'False', reason: r.reasons.notFound, message: `${label} does not exist (the ControlPlane does not create it; spec.services.${owner.name} names it)` });
      if (!isReadyAsDesired(observed)) return result({ status: 'False', reason: r.reasons.waiting, message: readinessDetail(label, observed) });
      const pending = projection.pending(observed);
      if (pending !== undefined) return result({ status: 'False', reason: r.reasons.pending, message: `${label} is Ready but ${pending}` });
      return result({ status: 'True', reason: r.reasons.ready, message: `${label} serves: ${projection.serving(observed)}` });
    },
  };
}
