// A service that is not declared (docs/architecture.md §2.13): NotManaged when nothing of it is
// left; otherwise its children are kept until the ControlPlane carries
// `c5c3.io/allow-<svc>-deletion: "true"`, then released, K-ORC objects first (Keystone is alive:
// the account and the catalog entries are removed in OpenStack), then the rest.
import { GVK } from '../../k8s/kinds.js';
import { identity, isTerminating, type KubeObject } from '../../k8s/observed.js';
import { REASON, REQUEUE } from '../conditions.js';
import { allowDeletionAnnotation } from '../names.js';
import { complete, waiting, type StageInput, type StageResult } from '../stage.js';
import { notManaged } from './projection.js';
import type { ServiceView } from './view.js';

const label = (o: KubeObject) => `${o.kind} ${o.metadata.name}`;
const isOrcObject = (o: KubeObject) => o.apiVersion === GVK.User.apiVersion;

export function notDeclared(v: ServiceView, input: StageInput): StageResult {
  const { d } = v;
  const left = v.children;
  if (left.length === 0) return { condition: notManaged(d), outcome: complete(), children: [] };
  const annotation = allowDeletionAnnotation(d.name);
  if (input.parentAnnotations?.[annotation] !== 'true') {
    return {
      condition: {
        status: 'False',
        reason: REASON.ServiceDeletionBlocked,
        message: `${d.title} was removed from spec.services; its children (${left.map(label).join(', ')}) are kept until the ControlPlane carries the annotation ${annotation}: "true"`,
      },
      outcome: complete(),
      children: [],
    };
  }
  // K-ORC objects first (a Region once no Endpoint naming it is left), then everything else once
  // none is observed. The PushSecret keeps OpenBao's copy.
  const live = left.filter((o) => !isTerminating(o));
  const allOrc = left.filter(isOrcObject);
  const endpointsLeft = allOrc.some((o) => o.kind === GVK.Endpoint.kind);
  const orc = endpointsLeft ? allOrc.filter((o) => o.kind !== GVK.Region.kind) : allOrc;
  const releases = (orc.length > 0 ? orc : left).filter((o) => !isTerminating(o)).map(identity);
  return {
    condition: {
      status: 'False',
      reason: REASON.ServiceDeleting,
      message: `${d.title} was removed from spec.services and ${annotation} is set: deleting ${(orc.length > 0 ? orc : live).map(label).join(', ') || 'nothing more'}${orc.length > 0 ? ' first' : ''}`,
    },
    outcome: waiting(REQUEUE.service),
    children: [],
    releases,
  };
}
