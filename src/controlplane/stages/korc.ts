// Stage 5, reconcileKORC → KORCReady: the admin ApplicationCredential and everything it needs.
// Emits the password cloud {cp}-admin-password-cloud, the Domain/User imports, the
// app-credential Secret with its PushSecret and the clouds.yaml ExternalSecret (docs/architecture.md §3.5),
// and the AC itself, which it mints, keeps, or re-mints (credential/mint.ts).
import { GVK } from '../../k8s/kinds.js';
import { identity, type KubeObject } from '../../k8s/observed.js';
import { isAvailable, openstackId, progressingNote, terminalError } from '../../k8s/orc.js';
import { sha256Hex } from '../../k8s/secret.js';
import { CONDITION, REASON, REQUEUE, TIMEOUT_SECONDS, type Reason } from '../conditions.js';
import { secondsSince } from '../../k8s/conditions.js';
import { ANNOTATION, childNames } from '../names.js';
import { complete, failed, waiting, type Stage, type StageInput, type StageResult } from '../stage.js';
import { readAdminPassword } from '../credential/password.js';
import { keptAc, managedResource, mintedAc } from '../credential/application-credential.js';
import { annotationOf } from '../../k8s/read.js';
import { applicationCredentialCloud, cloudTarget, passwordCloud } from '../credential/clouds-yaml.js';
import { adminImports, stuckImport } from '../credential/imports.js';
import { planMint, type MintFacts, type MintPlan } from '../credential/mint.js';
import {
  CLOUDS_YAML_KEY,
  VALUE_KEY,
  appCredentialSecret,
  adminRoundTrip,
  backupPushSecret,
  cloudsYamlExternalSecret,
  ownedSecret,
} from '../credential/round-trip.js';
import { formatRequests, rotationRequests, type LatchedRequest } from '../credential/rotation-requests.js';
import { invalidSpec } from './invalid-spec.js';
import { adminCredentials, slotValue, type Slot, type AdminCredentials } from '../credential/slots.js';
import { readSchedule } from '../credential/schedule.js';
import { formatSeconds } from '../../k8s/time.js';
import { materialisedMatches, scheduledRotation, unscheduledOthers, type RotationResult } from '../credential/rotation.js';
import { type ScheduledMint } from '../credential/application-credential.js';
import { mintedSecret } from '../credential/minted-secret.js';

const SECRET_BYTES = 32;

interface Decided {
  condition: StageResult['condition'];
  outcome: StageResult['outcome'];
  ac?: KubeObject;
  release: boolean;
  value: string;
  /** The live AC's credential id, when it holds one for `value`. */
  id?: string;
  mintedSecretHash?: string;
}

/** The annotations an adopted AC gets: the ones it lacks, with what this pass knows. */
function adoptionStamp(unknown: string[], value: string, passwordHash: string, requests: LatchedRequest[]): Record<string, string> {
  const known: Record<string, string> = {
    [ANNOTATION.passwordHash]: passwordHash,
    [ANNOTATION.secretHash]: sha256Hex(value),
    // Kept, so every request latched now is honoured by this credential.
    [ANNOTATION.rotationRequests]: formatRequests(requests),
  };
  return Object.fromEntries(unknown.flatMap((k) => (known[k] === undefined ? [] : [[k, known[k]]])));
}

function withImports(input: StageInput, message: string): string {
  const stuck = stuckImport(input.cp, input.children);
  return stuck ? `${message}; ${stuck}` : message;
}

function decide(input: StageInput, plan: MintPlan, facts: MintFacts, cloudName: string, name: string, scheduled?: ScheduledMint): Decided {
  const { live, passwordHash, mintedSecretHash } = facts;
  const fresh = () => input.random(SECRET_BYTES).toString('base64url');
  const common = { cp: input.cp, cloudName, name };
  const wait = (reason: Reason, message: string) => ({ condition: { status: 'False' as const, reason, message }, outcome: waiting(REQUEUE.korc) });
  switch (plan.kind) {
    case 'keep': {
      const live = plan.live;
      const id = openstackId(live);
      const minted = isAvailable(live) && id !== undefined;
      // Adoption (docs/architecture.md §3.4): stamp what an AC minted elsewhere lacks, once it is proven minted.
      const stamp = minted ? adoptionStamp(plan.unknown, plan.value, passwordHash, facts.requests) : {};
      const ac = keptAc(common, live, stamp);
      const adopted = Object.keys(stamp).length > 0 ? [`adopted: ${Object.keys(stamp).sort().join(', ')} stamped`] : [];
      const allNotes = [...plan.notes, ...adopted];
      const notes = allNotes.length > 0 ? ` (${allNotes.join('; ')})` : '';
      const base = { ac, release: false, value: plan.value, id, mintedSecretHash: annotationOf(ac, ANNOTATION.secretHash) ?? mintedSecretHash };
      const terminal = terminalError(live);
      if (terminal) {
        return { ...base, ...wait(REASON.ApplicationCredentialFailed, withImports(input, `ApplicationCredential ${name} failed (${terminal})`)) };
      }
      if (!minted) {
        return { ...base, ...wait(REASON.WaitingForApplicationCredential, withImports(input, `ApplicationCredential ${name} is not yet Available with an id${notes}${progressingNote(live)}`)) };
      }
      return {
        ...base,
        condition: { status: 'True', reason: REASON.ApplicationCredentialMinted, message: `ApplicationCredential ${name} minted (id ${id})${notes}` },
        outcome: complete(),
      };
    }
    case 'remint':
      return {
        ...wait(REASON.ReMinting, `Re-minting ApplicationCredential ${name}: ${plan.reasons.join('; ')}`),
        release: true,
        value: fresh(),
        mintedSecretHash: annotationOf(live, ANNOTATION.secretHash) ?? mintedSecretHash,
      };
    case 'terminating': {
      const age = secondsSince(plan.since, input.now) ?? 0;
      const stalled = age > TIMEOUT_SECONDS.reMintStall;
      const message = stalled
        ? `ApplicationCredential ${name} has been Terminating for ${Math.floor(age / 60)} minutes: K-ORC cannot revoke the old credential (check that Keystone is reachable with ${childNames(input.cp.name).adminPasswordCloud})`
        : `Re-minting: waiting for ApplicationCredential ${name} to be deleted`;
      return {
        ...wait(stalled ? REASON.ReMintStalled : REASON.ReMinting, message),
        release: true,
        value: plan.value ?? fresh(),
        mintedSecretHash: annotationOf(live, ANNOTATION.secretHash) ?? mintedSecretHash,
      };
    }
    case 'mint': {
      const value = plan.value ?? fresh();
      return {
        ...wait(REASON.WaitingForApplicationCredential, withImports(input, `ApplicationCredential ${name} is being created`)),
        ac: mintedAc(common, facts.want, value, passwordHash, facts.requests, scheduled),
        release: false,
        value,
        mintedSecretHash: sha256Hex(value),
      };
    }
    case 'await-secret':
      return {
        ...wait(REASON.ReMinting, `Re-minting: writing a fresh secret to Secret ${name} before the new ApplicationCredential`),
        release: false,
        value: fresh(),
        mintedSecretHash,
      };
  }
}

/** Slot B's Secret: only the secret its AC is minted with. */
function slotSecret(cp: StageInput['cp'], name: string, value: string, mintedSecretHash: string | undefined): KubeObject {
  return ownedSecret(cp, name, { [VALUE_KEY]: value }, mintedSecretHash ? { [ANNOTATION.mintedSecretHash]: mintedSecretHash } : undefined);
}

type SlotSecret = { value: string; mintedSecretHash: string | undefined };

/**
 * The `value` (and minted-secret record) of each slot's Secret: the decided slot's from the mint
 * decision, the other's from the rotation step or as observed. Slot A's Secret always exists (it
 * carries the clouds.yaml); slot B's only once it is observed or written.
 */
function slotSecretValues(creds: AdminCredentials, slot: Slot, d: Decided, rotation: RotationResult | undefined, fresh: () => string): [SlotSecret, SlotSecret | undefined] {
  const out: (SlotSecret | undefined)[] = [undefined, undefined];
  out[slot.index] = { value: d.value, mintedSecretHash: d.mintedSecretHash };
  if (rotation?.otherValue) out[rotation.otherValue.slot.index] = { value: rotation.otherValue.value, mintedSecretHash: rotation.otherValue.mintedSecretHash };
  for (const s of creds.slots) {
    if (out[s.index] || !s.secret) continue;
    const value = slotValue(s);
    if (value !== undefined) out[s.index] = { value, mintedSecretHash: annotationOf(s.secret, ANNOTATION.mintedSecretHash) };
  }
  // Slot A's Secret without a value of its own (only when slot B is decided): an unused fresh one.
  return [out[0] ?? { value: fresh(), mintedSecretHash: annotationOf(creds.slots[0].secret, ANNOTATION.mintedSecretHash) }, out[1]];
}

export const korcStage: Stage = {
  name: 'KORC',
  conditionType: CONDITION.KORC,
  reads: ['spec.korc'],
  interval: REQUEUE.korc,
  run(input): StageResult {
    const settings = input.resolved.korc;
    if (!settings.ok) return invalidSpec(settings.errors, REQUEUE.korc);
    const k = settings.value;
    const password = readAdminPassword(input);
    if (password.kind === 'missing') {
      return {
        condition: { status: 'False', reason: REASON.WaitingForAdminPassword, message: `Waiting for the admin password: ${password.detail}` },
        outcome: waiting(REQUEUE.korc),
        children: [],
      };
    }
    if (password.kind === 'unreadable') {
      return {
        condition: { status: 'False', reason: REASON.AdminPasswordError, message: `Cannot read the admin password: ${password.detail}` },
        outcome: failed(REQUEUE.korc),
        children: [],
      };
    }

    const { cp, children } = input;
    const names = childNames(cp.name);
    const target = cloudTarget(input, k.cloudName);
    const pwCloud = passwordCloud(target, password.password);
    // The slot the mint decision is about: the published AC's (credential/slots.ts), slot A otherwise.
    const creds = adminCredentials(cp, children);
    const slot = creds.published ?? creds.terminating[0] ?? creds.slots[0];
    const live = slot.ac;
    // A secret edited or deleted by hand is put back when the AC's secret hash proves it (credential/minted-secret.ts).
    const restored = mintedSecret(live, slot.secret, input.related.get(GVK.Secret, cp.namespace, k.secretName), k.secretName, k.cloudName);
    const facts: MintFacts = {
      live,
      observedValue: restored?.value ?? slotValue(slot),
      mintedSecretHash: annotationOf(slot.secret, ANNOTATION.mintedSecretHash),
      passwordHash: password.hash,
      mode: k.mode,
      want: { ...managedResource(cp.name, k.restricted, k.accessRules), secretRef: slot.name },
      requests: rotationRequests(input.related, cp.namespace),
    };
    if (input.rollout?.holdReMint !== undefined) facts.holdReMint = input.rollout.holdReMint;
    const scheduleRead = k.mode === 'Scheduled' ? readSchedule(input.related, cp.namespace) : undefined;
    const schedule = scheduleRead?.kind === 'schedule' ? scheduleRead.schedule : undefined;
    const scheduledMint = schedule ? { expiresAt: formatSeconds(input.now().getTime() + schedule.intervalMs), sequence: 0 } : undefined;
    let plan = planMint(facts);
    const publishedId = creds.published && isAvailable(creds.published.ac) ? openstackId(creds.published.ac) : undefined;
    const rotation = plan.kind === 'keep' && schedule && creds.published && publishedId !== undefined
      ? scheduledRotation({
          input, creds, published: creds.published, publishedId, publishedValue: plan.value, schedule,
          common: { cp, cloudName: k.cloudName }, want: facts.want, passwordHash: password.hash, requests: facts.requests,
          target, cloudName: k.cloudName, materialised: input.related.get(GVK.Secret, cp.namespace, k.secretName),
          ...(input.rollout?.holdReMint !== undefined ? { hold: input.rollout.holdReMint } : {}),
        })
      : undefined;
    if (plan.kind === 'keep' && restored) plan = { ...plan, notes: [...plan.notes, `its secret was put back into Secret ${slot.name} from ${restored.from}`] };
    if (rotation?.step.kind === 'expired') plan = { kind: 'remint', reasons: [`ApplicationCredential ${slot.name} ${rotation.note}`] };
    else if (plan.kind === 'keep') plan = { ...plan, notes: [...plan.notes, ...(rotation ? [rotation.note] : scheduleRead?.kind === 'none' && scheduleRead.note ? [scheduleRead.note] : [])] };
    const d = decide(input, plan, facts, k.cloudName, slot.name, scheduledMint);

    const published = rotation?.switchTo ?? (d.id ? { id: d.id, value: d.value } : undefined);
    const cloudsYaml = published ? applicationCredentialCloud(target, published.id, published.value) : pwCloud;
    // The round trip of this document through OpenBao (credential/round-trip.ts, docs/architecture.md §3.5).
    const trip = adminRoundTrip(input, cloudsYaml, k.secretName);
    const slotSecrets = slotSecretValues(creds, slot, d, rotation, () => input.random(SECRET_BYTES).toString('base64url'));
    const desired: KubeObject[] = [
      ownedSecret(cp, names.adminPasswordCloud, { [CLOUDS_YAML_KEY]: pwCloud }),
      ...adminImports(cp, { cloudName: k.cloudName, secretName: k.secretName }),
      appCredentialSecret(cp, slotSecrets[0].value, cloudsYaml, slotSecrets[0].mintedSecretHash),
      backupPushSecret(cp, trip.pushAnnotations),
      cloudsYamlExternalSecret(cp, k.secretName, trip.refresh.annotations),
    ];
    if (slotSecrets[1]) desired.push(slotSecret(cp, creds.slots[1].name, slotSecrets[1].value, slotSecrets[1].mintedSecretHash));
    // The rotation's version of the decided AC (the switch stamps superseded-at) replaces it.
    const decidedAc = d.ac;
    if (decidedAc && !rotation?.acs.some((ac) => ac.metadata.name === decidedAc.metadata.name)) desired.push(decidedAc);
    const releases = new Set<string>();
    if (d.release && live) releases.add(identity(live));
    if (rotation) {
      desired.push(...rotation.acs);
      rotation.releases.forEach((r) => releases.add(r));
    } else {
      const materialisedPublished = d.id !== undefined && materialisedMatches(input.related.get(GVK.Secret, cp.namespace, k.secretName), k.cloudName, d.id, d.value);
      unscheduledOthers(creds, d.release, d.id !== undefined, materialisedPublished).releases.forEach((r) => releases.add(r));
    }
    // A Terminating AC of the other slot (a superseded one being revoked) stays released.
    for (const s of creds.terminating) if (s !== slot && s.ac) releases.add(identity(s.ac));
    const result: StageResult = { condition: d.condition, outcome: d.outcome, children: desired };
    if (releases.size > 0) result.releases = [...releases].sort();
    if (rotation?.resyncAfterSeconds !== undefined && d.outcome.kind === 'complete') result.resyncAfterSeconds = rotation.resyncAfterSeconds;
    return result;
  },
};
