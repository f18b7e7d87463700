// Stage 5, reconcileKORC → KORCReady: the admin ApplicationCredential and everything it needs.
// Emits the password cloud {cp}-admin-password-cloud, the Domain/User imports, the
// app-credential Secret with its PushSecret and the clouds.yaml ExternalSecret (DESIGN §9.1),
// and the AC itself, which it mints, keeps, or re-mints (korc/mint.ts).
import { GVK } from '../../k8s/kinds.js';
import { identity, type KubeObject } from '../../k8s/observed.js';
import { isAvailable, openstackId, terminalError } from '../../k8s/orc.js';
import { secretString, sha256Hex } from '../../k8s/secret.js';
import { CONDITION, REASON, REQUEUE, TIMEOUT_SECONDS, type Reason } from '../conditions.js';
import { secondsSince } from '../../k8s/conditions.js';
import { ANNOTATION, childNames } from '../names.js';
import { complete, waiting, type Stage, type StageInput, type StageResult } from '../stage.js';
import { readAdminPassword } from '../korc/admin-password.js';
import { keptAc, managedResource, mintedAc } from '../korc/application-credential.js';
import { annotationOf } from '../../k8s/read.js';
import { applicationCredentialCloud, cloudTarget, passwordCloud } from '../korc/clouds-yaml.js';
import { adminImports, stuckImport } from '../korc/imports.js';
import { planMint, type MintFacts, type MintPlan } from '../korc/mint.js';
import {
  CLOUDS_YAML_KEY,
  VALUE_KEY,
  appCredentialSecret,
  backupPushSecret,
  cloudsYamlExternalSecret,
  forceSyncValue,
  ownedSecret,
} from '../korc/round-trip.js';
import { formatRequests, rotationRequests, type LatchedRequest } from '../korc/rotation-requests.js';
import { invalidSpec } from './invalid-spec.js';

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
  return Object.fromEntries(unknown.map((k) => [k, known[k]!]));
}

function withImports(input: StageInput, message: string): string {
  const stuck = stuckImport(input.cp, input.children);
  return stuck ? `${message}; ${stuck}` : message;
}

function decide(input: StageInput, plan: MintPlan, facts: MintFacts, cloudName: string): Decided {
  const { live, passwordHash, mintedSecretHash } = facts;
  const fresh = () => input.random(SECRET_BYTES).toString('base64url');
  const name = childNames(input.cp.name).adminAppCredential;
  const common = { cp: input.cp, cloudName };
  const wait = (reason: Reason, message: string) => ({ condition: { status: 'False' as const, reason, message }, outcome: waiting(REQUEUE.korc) });
  switch (plan.kind) {
    case 'keep': {
      const id = openstackId(live);
      const minted = isAvailable(live) && id !== undefined;
      // Adoption (DESIGN §10.16): stamp what an AC minted elsewhere lacks, once it is proven minted.
      const stamp = minted ? adoptionStamp(plan.unknown, plan.value, passwordHash, facts.requests) : {};
      const ac = keptAc(common, live!, stamp);
      const adopted = Object.keys(stamp).length > 0 ? [`adopted: ${Object.keys(stamp).sort().join(', ')} stamped`] : [];
      const allNotes = [...plan.notes, ...adopted];
      const notes = allNotes.length > 0 ? ` (${allNotes.join('; ')})` : '';
      const base = { ac, release: false, value: plan.value, id, mintedSecretHash: annotationOf(ac, ANNOTATION.secretHash) ?? mintedSecretHash };
      const terminal = terminalError(live);
      if (terminal) {
        return { ...base, ...wait(REASON.ApplicationCredentialFailed, withImports(input, `ApplicationCredential ${name} failed (${terminal})`)) };
      }
      if (!minted) {
        return { ...base, ...wait(REASON.WaitingForApplicationCredential, withImports(input, `ApplicationCredential ${name} is not yet Available with an id${notes}`)) };
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
        ac: mintedAc(common, facts.want, value, passwordHash, facts.requests),
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

    const { cp, children } = input;
    const names = childNames(cp.name);
    const target = cloudTarget(input, k.cloudName);
    const pwCloud = passwordCloud(target, password.password);
    const live = children.get(GVK.ApplicationCredential, cp.namespace, names.adminAppCredential);
    const observedSecret = children.get(GVK.Secret, cp.namespace, names.adminAppCredential);
    const facts: MintFacts = {
      live,
      observedValue: secretString(observedSecret, VALUE_KEY),
      mintedSecretHash: annotationOf(observedSecret, ANNOTATION.mintedSecretHash),
      passwordHash: password.hash,
      mode: k.mode,
      want: managedResource(cp.name, k.restricted, k.accessRules),
      requests: rotationRequests(input.related, cp.namespace),
    };
    if (input.rollout?.holdReMint !== undefined) facts.holdReMint = input.rollout.holdReMint;
    const d = decide(input, planMint(facts), facts, k.cloudName);

    const cloudsYaml = d.id ? applicationCredentialCloud(target, d.id, d.value) : pwCloud;
    const forceSync = forceSyncValue({
      document: cloudsYaml,
      observedSecret,
      observedPushSecret: children.get(GVK.PushSecret, cp.namespace, names.adminAppCredentialBackup),
      observedExternalSecret: children.get(GVK.ExternalSecret, cp.namespace, k.secretName),
    });
    const desired: KubeObject[] = [
      ownedSecret(cp, names.adminPasswordCloud, { [CLOUDS_YAML_KEY]: pwCloud }),
      ...adminImports(cp, { cloudName: k.cloudName, secretName: k.secretName }),
      appCredentialSecret(cp, d.value, cloudsYaml, d.mintedSecretHash),
      backupPushSecret(cp),
      cloudsYamlExternalSecret(cp, k.secretName, forceSync),
    ];
    if (d.ac) desired.push(d.ac);
    const result: StageResult = { condition: d.condition, outcome: d.outcome, children: desired };
    if (d.release && live) result.releases = [identity(live)];
    return result;
  },
};
