// Generation-honest readiness (docs/architecture.md §2.7): a child counts as Ready only when it carries what
// this answer desires (the fields we set, docs/architecture.md §2.6) and reports Ready for its current
// generation. Objects whose status reports no generation at all (ESO, mariadb-operator) are
// taken at their Ready condition; one that reports a generation must report the current one.
import { carries } from './carries.js';
import { findCondition } from './conditions.js';
import { isReady, isTerminating, notReadyDetail, type KubeObject } from './observed.js';
import { at } from './read.js';

/** The generation an object's status says it reflects: its Ready condition's, else status.observedGeneration. */
function reportedGeneration(obj: unknown): number | undefined {
  const fromCondition = findCondition(obj, 'Ready')?.observedGeneration;
  if (typeof fromCondition === 'number') return fromCondition;
  const fromStatus = at(obj, 'status', 'observedGeneration');
  return typeof fromStatus === 'number' ? fromStatus : undefined;
}

function atCurrentGeneration(obj: unknown): boolean {
  const reported = reportedGeneration(obj);
  return reported === undefined || reported === at(obj, 'metadata', 'generation');
}

/** Whether `observed` carries `desired` (when we emit one) and is Ready at its current generation. */
export function isReadyAsDesired(observed: KubeObject | undefined, desired?: KubeObject): boolean {
  if (!isReady(observed) || !atCurrentGeneration(observed)) return false;
  return desired === undefined || carries(observed!, desired, ['spec']);
}

/** Why `observed` is not Ready as desired, for condition messages. */
export function readinessDetail(label: string, observed: KubeObject | undefined, desired?: KubeObject): string {
  if (observed && !isTerminating(observed)) {
    if (desired !== undefined && !carries(observed, desired, ['spec'])) return `${label} does not carry the desired spec yet`;
    if (isReady(observed) && !atCurrentGeneration(observed)) {
      return `${label} has not reported Ready for generation ${String(at(observed, 'metadata', 'generation'))} yet`;
    }
  }
  return notReadyDetail(label, observed);
}
