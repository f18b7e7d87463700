// The mint decision of the admin ApplicationCredential (docs/architecture.md §3.2), as a
// pure function of what is observed. Re-mint is delete + recreate: the response that starts it
// leaves the AC out (Metacontroller deletes it) and writes a fresh secret; while the old AC is
// Terminating it stays out; once it is gone a new one is minted with a secret never used before.
// The first mint happens in one pass (docs/architecture.md §3.2): the AC is returned with the answer that
// first writes its secret (K-ORC waits for a missing Secret or `value` on its own).
//
// Only the seed's triggers re-mint a live AC: a password-hash mismatch, an empty hash (the
// nudge), resource drift, a pending request, and a missing or changed `value`. Annotations this
// service invents are bookkeeping: a live AC without them (minted by the reference operator, or
// restored without them) is adopted and they are stamped once it is Available with an id
// (docs/architecture.md §3.4). A missing password hash is stamped too, as the seed does.
import type { RotationMode } from '../../api/controlplane.js';
import { isTerminating, type KubeObject } from '../../k8s/observed.js';
import { annotationOf, stringAt } from '../../k8s/read.js';
import { sha256Hex } from '../../k8s/secret.js';
import { ANNOTATION } from '../names.js';
import { resourceDrift, type ManagedResource } from './application-credential.js';
import { pendingRequests, type LatchedRequest } from './rotation-requests.js';


export interface MintFacts {
  /** The observed admin AC, if any. */
  live: KubeObject | undefined;
  /** The observed app-credential Secret's `value`. */
  observedValue: string | undefined;
  /** The observed app-credential Secret's record of the last minted secret. */
  mintedSecretHash: string | undefined;
  passwordHash: string;
  mode: RotationMode;
  want: ManagedResource;
  requests: LatchedRequest[];
  /** Set while a release rollout runs: a re-mint does not start now (it waits), for this reason. */
  holdReMint?: string;
}

export type MintPlan =
  /** A live AC stays; `notes` explain a deliberate non-re-mint; `unknown` names bookkeeping it lacks. */
  | { kind: 'keep'; live: KubeObject; value: string; notes: string[]; unknown: string[] }
  /** Start a re-mint now: leave the AC out, write a fresh secret. */
  | { kind: 'remint'; reasons: string[] }
  /** The old AC is being deleted; `value` is the fresh secret to keep, if one is observed. */
  | { kind: 'terminating'; value: string | undefined; since: string | undefined }
  /** No AC: mint now, with the observed unused secret, or (none observed) a fresh one. */
  | { kind: 'mint'; value: string | undefined }
  /**
   * No AC and the observed secret was used: write a fresh one first. Not in one pass: the
   * answer could create the AC before the Secret's update lands, and K-ORC would mint with the
   * used secret.
   */
  | { kind: 'await-secret' };

function remintReasons(f: MintFacts, live: KubeObject, valueHash: string | undefined): string[] {
  const reasons: string[] = [];
  const secretHash = annotationOf(live, ANNOTATION.secretHash);
  if (valueHash === undefined) reasons.push('the application-credential Secret has no value');
  else if (secretHash !== undefined && secretHash !== valueHash) {
    reasons.push('the application-credential secret is not the one the credential was minted with');
  }
  const minted = annotationOf(live, ANNOTATION.passwordHash);
  if (minted === '') reasons.push(`the ${ANNOTATION.passwordHash} annotation is empty`);
  else if (minted !== undefined && minted !== f.passwordHash && f.mode !== 'Manual') reasons.push('the admin password changed');
  const drift = resourceDrift(live, f.want);
  if (drift.length > 0) reasons.push(`spec.resource changed (${drift.join(', ')})`);
  for (const r of pendingRequests(f.requests, live)) {
    reasons.push(`CredentialRotation ${r.name} requested a re-mint (generation ${r.generation})`);
  }
  return reasons;
}

/** The bookkeeping annotations a live AC lacks (adopted, never a reason to re-mint). */
function unknownAnnotations(live: KubeObject): string[] {
  return [ANNOTATION.passwordHash, ANNOTATION.secretHash, ANNOTATION.rotationRequests].filter((k) => annotationOf(live, k) === undefined);
}

function keepNotes(f: MintFacts, live: KubeObject): string[] {
  const notes: string[] = [];
  if (f.mode === 'Manual' && annotationOf(live, ANNOTATION.passwordHash) !== f.passwordHash) {
    notes.push('the admin password changed; rotation mode Manual keeps this credential until a CredentialRotation requests a re-mint');
  }
  return notes;
}

export function planMint(f: MintFacts): MintPlan {
  const value = f.observedValue;
  const valueHash = value === undefined ? undefined : sha256Hex(value);
  const live = f.live;
  if (live && !isTerminating(live)) {
    const reasons = remintReasons(f, live, valueHash);
    // No value is always a reason (remintReasons); checked here too, so `value` is known below.
    if (value === undefined) return { kind: 'remint', reasons };
    // A held re-mint keeps the live AC with its secret; a lost secret cannot be kept, so it re-mints.
    if (reasons.length > 0 && f.holdReMint !== undefined) {
      const note = `a re-mint waits while ${f.holdReMint}: ${reasons.join('; ')}`;
      return { kind: 'keep', live, value, notes: [...keepNotes(f, live), note], unknown: unknownAnnotations(live) };
    }
    if (reasons.length > 0) return { kind: 'remint', reasons };
    return { kind: 'keep', live, value, notes: keepNotes(f, live), unknown: unknownAnnotations(live) };
  }
  // A secret is used once: the one a live or deleted credential was minted with never mints again.
  const used = valueHash !== undefined && (valueHash === f.mintedSecretHash || (live !== undefined && valueHash === annotationOf(live, ANNOTATION.secretHash)));
  if (live) return { kind: 'terminating', value: used ? undefined : value, since: stringAt(live, 'metadata', 'deletionTimestamp') };
  if (value === undefined) return { kind: 'mint', value: undefined };
  if (!used) return { kind: 'mint', value };
  return { kind: 'await-secret' };
}
