// A Secret the hooks own, pushed to OpenBao by a PushSecret and read back by an ExternalSecret,
// under ESO's real contract (docs/architecture.md §3.5; ../shared/DESIGN.md §9.13;
// ../shared/reference/external-secrets-roundtrip.md §3):
//
// - ESO's PushSecret controller does not watch its source Secret: it pushes when the PushSecret is
//   created, when its generation, labels or annotations change, or once an hour. So the
//   PushSecret carries the SHA-256 of the *observed* source Secret's data (`pushTrigger`): once the
//   Secret holds new content, the annotation moves and ESO pushes at once, reading the Secret
//   live.
// - Ready/Synced alone proves nothing (it stays from the last push). A push counts as done only
//   when ESO's `status.syncedResourceVersion` equals its formula over the observed PushSecret's
//   metadata, which carries that digest (`pushState`): a successful push began after the digest
//   was in place.
// - Only then is the ExternalSecret forced to re-read (`refreshPlan`): `force-sync` = the
//   document's SHA-256; while the materialised Secret still differs, another forced refresh only
//   after ESO acknowledged the last one and a backoff since its refreshTime (15 s doubling to
//   5 min). Nothing moves once everything matches, so a converged ControlPlane is a fixed point.
import { annotationOf } from '../k8s/read.js';
import { esoSync, ESO_REASON } from '../k8s/eso.js';
import { isTerminating, notReadyDetail, type KubeObject } from '../k8s/observed.js';
import { ANNOTATION } from './names.js';
import { sourceDigest } from '../k8s/secret.js';

export { sourceDigest } from '../k8s/secret.js';

/**
 * The PushSecret's trigger annotation: the digest of the observed source Secret, so ESO pushes once
 * the Secret holds new content. Never derived from the desired Secret: the push would read the old
 * one. Before the Secret is observed the observed value is echoed (the creation pushes anyway).
 */
export function pushTrigger(observedSource: KubeObject | undefined, observedPush: KubeObject | undefined): Record<string, string> | undefined {
  const digest = observedSource ? sourceDigest(observedSource) : annotationOf(observedPush, ANNOTATION.sourceSha256);
  return digest === undefined ? undefined : { [ANNOTATION.sourceSha256]: digest };
}

export interface PushState {
  /** A successful push of the observed source Secret's content is proven. */
  done: boolean;
  /** What is still missing, for condition messages (empty when done). */
  detail: string;
}

/** Whether ESO has pushed what the observed source Secret holds now (DESIGN §9.13 (b)). */
export function pushState(pushName: string, sourceName: string, observedSource: KubeObject | undefined, observedPush: KubeObject | undefined): PushState {
  const label = `PushSecret ${pushName}`;
  if (!observedPush || isTerminating(observedPush)) return { done: false, detail: notReadyDetail(label, observedPush) };
  if (!observedSource) return { done: false, detail: `Secret ${sourceName} is being created` };
  const digest = sourceDigest(observedSource);
  if (annotationOf(observedPush, ANNOTATION.sourceSha256) !== digest) {
    return { done: false, detail: `${label} is being asked to push the current content of Secret ${sourceName}` };
  }
  const sync = esoSync(observedPush, ESO_REASON.pushed);
  if (!sync.ready) return { done: false, detail: notReadyDetail(label, observedPush) };
  if (!sync.current) {
    // No hash in the message: it would tie a condition to secret-derived values (and captures replay it).
    return { done: false, detail: `${label} has not pushed the current content of Secret ${sourceName} yet (its status.syncedResourceVersion is from before that content was asked for)` };
  }
  return { done: true, detail: '' };
}

/** The first forced refresh waits this long after ESO acknowledged the previous one; doubling. */
export const FORCED_REFRESH_BACKOFF_SECONDS = { first: 15, max: 5 * 60 } as const;

export function forcedRefreshBackoff(attempt: number): number {
  return Math.min(FORCED_REFRESH_BACKOFF_SECONDS.first * 2 ** Math.min(attempt, 30), FORCED_REFRESH_BACKOFF_SECONDS.max);
}

export interface RefreshInput {
  esName: string;
  /** The force-sync value for the document on its way: its SHA-256 hex. */
  documentHash: string;
  /** The push of that document is proven (pushState). */
  pushed: boolean;
  observedEs: KubeObject | undefined;
  /** The materialised Secret already holds the document. */
  materialised: boolean;
  /** Read only when a retry's backoff must be measured (never on a converged pass). */
  now: () => Date;
}

export interface RefreshPlan {
  /** `force-sync` and the retry counter for the ExternalSecret (undefined: none). */
  annotations: Record<string, string> | undefined;
  /** Everything matches: the materialised Secret holds the document. */
  synced: boolean;
  /** What the round trip waits for, for condition messages (empty when synced). */
  detail: string;
}

function attemptOf(es: KubeObject | undefined): number {
  const raw = annotationOf(es, ANNOTATION.forceSyncAttempt);
  const n = raw !== undefined && /^[0-9]{1,6}$/.test(raw) ? Number(raw) : 0;
  return n;
}

function annotations(forceSync: string | undefined, attempt: number): Record<string, string> | undefined {
  if (forceSync === undefined) return undefined;
  return attempt > 0 ? { [ANNOTATION.forceSync]: forceSync, [ANNOTATION.forceSyncAttempt]: String(attempt) } : { [ANNOTATION.forceSync]: forceSync };
}

/**
 * The ExternalSecret's `force-sync` annotations and the state of the read-back (DESIGN §9.13 (c),
 * (d)). `force-sync` moves to the document's hash only after the push is proven; a retry
 * (`c5c3.io/force-sync-attempt` + 1) only once ESO acknowledged the last refresh
 * (`status.syncedResourceVersion` matches the observed metadata) and the backoff since its
 * `status.refreshTime` has passed, so at most one forced refresh is ever outstanding.
 */
export function refreshPlan(r: RefreshInput): RefreshPlan {
  const observedForce = annotationOf(r.observedEs, ANNOTATION.forceSync);
  const observedAttempt = attemptOf(r.observedEs);
  const keep = annotations(observedForce, observedAttempt);
  const label = `ExternalSecret ${r.esName}`;
  if (!r.pushed) return { annotations: keep, synced: false, detail: `${label} is refreshed once the push is proven` };
  if (observedForce !== r.documentHash) {
    // The first refresh for this document, strictly after the proven push.
    return { annotations: annotations(r.documentHash, 0), synced: false, detail: `${label}: refresh requested` };
  }
  if (r.materialised) return { annotations: keep, synced: true, detail: '' };
  const sync = esoSync(r.observedEs, ESO_REASON.refreshed);
  if (!sync.ready || !sync.current) {
    // ESO has not finished the refresh asked for (or is failing and retrying with its own backoff).
    return { annotations: keep, synced: false, detail: `${label}: waiting for ESO to acknowledge refresh ${observedAttempt + 1}` };
  }
  const now = r.now().getTime();
  const last = Math.min(sync.refreshTime ?? now, now);
  const due = last + forcedRefreshBackoff(observedAttempt) * 1000;
  if (now >= due) {
    return { annotations: annotations(observedForce, observedAttempt + 1), synced: false, detail: `${label}: refresh ${observedAttempt + 1} read an older document; refresh ${observedAttempt + 2} requested` };
  }
  return {
    annotations: keep,
    synced: false,
    detail: `${label}: refresh ${observedAttempt + 1} read an older document; next forced refresh in ${Math.ceil((due - now) / 1000)} s`,
  };
}
