// The deletion invariant in one place (docs/architecture.md §2.4): Metacontroller deletes every observed child
// a response leaves out, so a response may leave out only the children a stage explicitly
// released. Responses are assembled by `keepObserved`, and checked by `assertKeepsObserved`
// before they leave the process: a violation is a bug, answered 500 (nothing is applied).
import { identity, isTerminating, keepAsIs, type KubeObject, type ObjectIndex } from './observed.js';

/**
 * The response's children: every desired child (a Terminating one as it is: Metacontroller
 * never updates it), then every other observed child exactly as last applied, unless released.
 */
export function keepObserved(desired: KubeObject[], observed: ObjectIndex, released: ReadonlySet<string>): KubeObject[] {
  const out: KubeObject[] = [];
  const seen = new Set<string>();
  for (const want of desired) {
    const id = identity(want);
    if (seen.has(id)) throw new Error(`two stages desire the same child ${id}`);
    seen.add(id);
    const live = observed.getById(id);
    out.push(live && isTerminating(live) ? keepAsIs(live) : want);
  }
  // Identities computed once per object (the index holds them), not inside the comparator.
  const rest = observed
    .entries()
    .filter(([id]) => !seen.has(id) && !released.has(id))
    .sort(([a], [b]) => (a < b ? -1 : 1));
  for (const [, live] of rest) out.push(keepAsIs(live));
  return out;
}

export class InvariantViolation extends Error {
  override name = 'InvariantViolation';
}

/** Throws unless every observed child is in `children` or was released. */
export function assertKeepsObserved(children: KubeObject[], observed: ObjectIndex, released: ReadonlySet<string>): void {
  const returned = new Set(children.map(identity));
  const missing = observed.ids().filter((id) => !returned.has(id) && !released.has(id));
  if (missing.length > 0) throw new InvariantViolation(`response would delete observed children: ${missing.join(', ')}`);
}
