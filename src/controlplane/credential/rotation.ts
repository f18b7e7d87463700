// The KORC stage's side of scheduled rotation (issue 19): turns the schedule's step
// (credential/schedule.ts) into the replacement AC and its Secret, the switch of the published
// credential, and the release of the superseded AC. Also what happens to a second AC when no
// schedule applies (mode changed, CredentialRotation deleted, a re-mint started).
import { identity, isTerminating, type KubeObject } from '../../k8s/observed.js';
import { openstackId } from '../../k8s/orc.js';
import { secretString, sha256Hex } from '../../k8s/secret.js';
import { ANNOTATION } from '../names.js';
import type { StageInput } from '../stage.js';
import { keptAc, mintedAc, type AcCommon, type ManagedResource } from './application-credential.js';
import { annotationOf } from '../../k8s/read.js';
import { readApplicationCredential, type CloudTarget } from './clouds-yaml.js';
import type { LatchedRequest } from './rotation-requests.js';
import { CLOUDS_YAML_KEY } from './round-trip.js';
import { formatSeconds } from '../../k8s/time.js';
import {
  nextDeadline,
  planRotation,
  resyncSeconds,
  rotationEligibleAt,
  supersededAtOf,
  timeAt,
  type CredentialTimes,
  type RotationFacts,
  type RotationStep,
  type Schedule,
} from './schedule.js';
import { otherSlot, sequenceOf, slotValue, type AdminCredentials, type OccupiedSlot, type Slot } from './slots.js';

const SECRET_BYTES = 32;

export function credentialTimes(ac: KubeObject | undefined): CredentialTimes {
  return {
    expiresAt: timeAt(ac, 'spec', 'resource', 'expiresAt'),
    createdAt: timeAt(ac, 'metadata', 'creationTimestamp'),
    minted: openstackId(ac) !== undefined && !isTerminating(ac),
  };
}

/** The value a slot's Secret carries next: `value` to write, and whether an AC may be minted with it now. */
function mintValue(input: StageInput, slot: Slot): { value: string; ready: boolean; mintedSecretHash: string | undefined } {
  const observed = slotValue(slot);
  const minted = annotationOf(slot.secret, ANNOTATION.mintedSecretHash);
  // No Secret yet: the AC and the Secret are created by the same answer (K-ORC waits for it).
  if (observed === undefined) {
    const value = input.random(SECRET_BYTES).toString('base64url');
    return { value, ready: true, mintedSecretHash: sha256Hex(value) };
  }
  if (sha256Hex(observed) !== minted) return { value: observed, ready: true, mintedSecretHash: sha256Hex(observed) };
  // A secret is used once: write a fresh one first, mint with it on a later pass.
  return { value: input.random(SECRET_BYTES).toString('base64url'), ready: false, mintedSecretHash: minted };
}

export interface RotationInput {
  input: StageInput;
  creds: AdminCredentials;
  /** The published slot, with a live minted AC, and that AC's credential id. */
  published: OccupiedSlot;
  publishedId: string;
  publishedValue: string;
  schedule: Schedule;
  common: AcCommon;
  want: ManagedResource;
  passwordHash: string;
  requests: LatchedRequest[];
  target: CloudTarget;
  cloudName: string;
  /** The clouds.yaml Secret K-ORC reads (related, materialised by ESO). */
  materialised: KubeObject | undefined;
  /** Why no credential may be minted now (a release rollout): a due replacement waits. */
  hold?: string;
}

/** How soon a held rotation looks again (the rollout ends within its deadline). */
const HELD_RECHECK_MS = 60_000;

export interface RotationResult {
  step: RotationStep;
  /** Objects for the slots this step touches (the published AC re-stamped, the other AC, its Secret value). */
  acs: KubeObject[];
  /** The value of the other slot's Secret, when this step writes one. */
  otherValue?: { slot: Slot; value: string; mintedSecretHash: string | undefined };
  /** The credential the clouds.yaml carries from this answer on, when not the published one. */
  switchTo?: { id: string; value: string };
  releases: string[];
  note: string;
  resyncAfterSeconds?: number;
  facts: RotationFacts;
}

function matches(materialised: KubeObject | undefined, cloudName: string, id: string, value: string): boolean {
  const doc = secretString(materialised, CLOUDS_YAML_KEY);
  const parsed = doc === undefined ? undefined : readApplicationCredential(doc, cloudName);
  return parsed?.kind === 'credential' && parsed.auth.id === id && parsed.auth.secret === value;
}

/** Whether a slot's Secret holds the secret its AC was minted with (an AC without the record is trusted). */
function holdsItsSecret(s: Slot): boolean {
  const value = slotValue(s);
  const minted = annotationOf(s.ac, ANNOTATION.secretHash);
  return value !== undefined && (minted === undefined || minted === sha256Hex(value));
}

export function scheduledRotation(r: RotationInput): RotationResult {
  const { input, creds, published, publishedId, schedule } = r;
  const now = input.now().getTime();
  const other = otherSlot(creds, published);
  const superseded = creds.superseded;
  const supersededAt = superseded ? supersededAtOf(superseded.ac, now) : undefined;
  const facts: RotationFacts = {
    schedule,
    now,
    published: credentialTimes(published.ac),
    replacement: creds.replacement ? credentialTimes(creds.replacement.ac) : undefined,
    superseded: superseded && supersededAt ? { ...credentialTimes(superseded.ac), supersededAt: supersededAt.at, terminating: false } : undefined,
    materialised: matches(r.materialised, r.cloudName, publishedId, r.publishedValue),
  };
  let step = planRotation(facts);
  // The other slot is still being deleted: nothing can be minted under its name yet.
  if (step.kind === 'mint' && other.ac && isTerminating(other.ac)) step = { kind: 'minting' };
  // No mint starts while held (a release rollout): the live credential stays published meanwhile.
  const held = r.hold !== undefined && (step.kind === 'mint' || step.kind === 'expired');
  if (held) step = { kind: 'wait', dueAt: now + HELD_RECHECK_MS };
  const deadline = nextDeadline(step, facts);
  const out: RotationResult = { step, acs: [], releases: [], note: '', facts, resyncAfterSeconds: deadline === undefined ? undefined : resyncSeconds(deadline, now) };
  const kept = (s: OccupiedSlot, stamp: Record<string, string> = {}, repair: Record<string, string> = {}) => keptAc({ ...r.common, name: s.name }, s.ac, stamp, repair);
  const due = formatSeconds(rotationEligibleAt(facts.published, schedule, now));
  switch (step.kind) {
    case 'wait':
      out.note = held
        ? `scheduled rotation (CredentialRotation ${schedule.source}) is due and waits while ${r.hold}`
        : `scheduled rotation (CredentialRotation ${schedule.source}): the replacement is minted at ${due}`;
      break;
    case 'expired':
      // The stage turns this into a break-before-make re-mint.
      out.note = `it expired at ${formatSeconds(step.expiredAt)} with no replacement (the hooks were not called in time): re-minting at once`;
      break;
    case 'mint': {
      const v = mintValue(input, other);
      out.otherValue = { slot: other, value: v.value, mintedSecretHash: v.mintedSecretHash };
      if (v.ready) {
        out.acs.push(
          mintedAc({ ...r.common, name: other.name }, { ...r.want, secretRef: other.name }, v.value, r.passwordHash, r.requests, {
            expiresAt: formatSeconds(step.expiresAt),
            sequence: sequenceOf(published.ac) + 1,
          }),
        );
        out.note = `scheduled rotation: minting replacement ApplicationCredential ${other.name} alongside, expiring at ${formatSeconds(step.expiresAt)}`;
      } else {
        out.note = `scheduled rotation: writing a fresh secret to Secret ${other.name} before minting the replacement`;
      }
      break;
    }
    case 'minting':
      if (creds.replacement && !holdsItsSecret(creds.replacement)) {
        out.releases.push(identity(creds.replacement.ac));
        out.note = `scheduled rotation: Secret ${creds.replacement.name} does not hold the secret replacement ${creds.replacement.name} is minted with; it is released and minted again`;
        break;
      }
      if (creds.replacement) out.acs.push(kept(creds.replacement));
      out.note = creds.replacement
        ? `scheduled rotation: waiting for replacement ApplicationCredential ${creds.replacement.name} to be Available with an id`
        : `scheduled rotation: waiting for ApplicationCredential ${other.name} to be deleted before minting the replacement`;
      break;
    case 'switch': {
      // planRotation switches only to a replacement minted with an id.
      const rep = creds.replacement;
      if (rep === undefined) break;
      const id = openstackId(rep.ac);
      const value = slotValue(rep);
      if (id === undefined || value === undefined || !holdsItsSecret(rep)) {
        // Its secret is not the one observed: never publish a document that cannot authenticate;
        // the replacement was never published, so it is released and minted again.
        out.releases.push(identity(rep.ac));
        out.note = `scheduled rotation: Secret ${rep.name} does not hold the secret replacement ${rep.name} was minted with; it is released and minted again`;
        break;
      }
      out.acs.push(kept(published, { [ANNOTATION.supersededAt]: formatSeconds(now) }), kept(rep));
      out.switchTo = { id, value };
      out.note = `scheduled rotation: publishing replacement ${rep.name} (id ${id}); ${published.name} is superseded`;
      break;
    }
    case 'grace':
      // planRotation is in grace only with a superseded credential.
      if (superseded === undefined) break;
      // An unreadable or future superseded-at is stamped again with now (schedule.ts supersededAtOf).
      out.acs.push(kept(superseded, {}, supersededAt?.valid === false ? { [ANNOTATION.supersededAt]: formatSeconds(now) } : {}));
      out.note = `scheduled rotation: superseded ApplicationCredential ${superseded.name} is revoked at ${formatSeconds(step.revokeAt)}${step.materialised ? '' : ' once the materialised clouds.yaml carries its successor'}`;
      break;
    case 'revoke':
    case 'revoking':
      if (superseded) out.releases.push(identity(superseded.ac));
      out.note = `scheduled rotation: revoking superseded ApplicationCredential ${superseded?.name ?? other.name}${step.kind === 'revoke' ? ` (${step.why})` : ''}`;
      break;
  }
  return out;
}

/**
 * Without a schedule step (no schedule, or the published credential is not kept and minted):
 * what happens to a second AC. A re-mint releases it with the published one; otherwise a
 * replacement never published is released at once, a superseded one once the materialised
 * clouds.yaml no longer needs it, and anything else is kept as observed.
 */
export function unscheduledOthers(
  creds: AdminCredentials,
  reminting: boolean,
  publishedMinted: boolean,
  materialisedPublished: boolean,
): { releases: string[]; note?: string } {
  const releases: string[] = [];
  if (reminting) {
    for (const s of [creds.replacement, creds.superseded]) if (s?.ac) releases.push(identity(s.ac));
    return { releases };
  }
  if (!publishedMinted) return { releases };
  if (creds.replacement?.ac) releases.push(identity(creds.replacement.ac));
  if (creds.superseded?.ac && materialisedPublished) releases.push(identity(creds.superseded.ac));
  return { releases, note: releases.length > 0 ? 'no rotation schedule applies: the second ApplicationCredential is released' : undefined };
}

export { matches as materialisedMatches };
