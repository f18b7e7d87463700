// The one condition a SecretAggregate reports, `Ready`, and its reasons.
export const READY = 'Ready';

export const REASON = {
  /** True: the target holds every selected key of every source. */
  Aggregated: 'Aggregated',
  /** A source Secret, or a selected key of one, is missing: the target keeps its last content. */
  WaitingForSource: 'WaitingForSource',
  /** Two sources provide the same key: nothing is published until every key has one source. */
  KeyConflict: 'KeyConflict',
  /**
   * The merged Secret would exceed the API server's 1 MiB limit, or what Metacontroller can apply:
   * its last-applied annotation, a copy of the whole Secret, past the 256 KiB of annotations an
   * object may carry (k8s/apply-limits.ts).
   */
  TargetTooLarge: 'TargetTooLarge',
  /** A Secret of the target's name exists and is not ours: it is never overwritten. */
  TargetNotOwned: 'TargetNotOwned',
  /** The target is being deleted: it is created again once it is gone. */
  WaitingForTarget: 'WaitingForTarget',
  /** The spec cannot be used (it bypassed admission or predates the CRD). */
  InvalidSpec: 'InvalidSpec',
} as const;

/** At most `max` items joined for a condition message, then how many more there are. */
export { listed } from '../api/validate.js';
