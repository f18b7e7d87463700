// Stage 6, reconcileAdminCredential → AdminCredentialReady: the minted credential has made the
// round trip. Gates, in order: KORCReady, the ClusterSecretStore, the credential id, the
// app-credential Secret holding the assembled clouds.yaml, the PushSecret, the clouds.yaml
// ExternalSecret, and the materialised Secret carrying the same credential (parsed id + secret,
// not bytes). The objects themselves are emitted by the KORC stage (docs/architecture.md §3.5).
import { GVK } from '../../k8s/kinds.js';
import { isReady, notReadyDetail } from '../../k8s/observed.js';
import { secretString } from '../../k8s/secret.js';
import { CONDITION, REASON, REQUEUE, TIMEOUT_SECONDS, type Reason } from '../conditions.js';
import { secondsSince } from '../../k8s/conditions.js';
import { secretStoreReady } from '../external-secret.js';
import { CLUSTER_SECRET_STORE, childNames } from '../names.js';
import { complete, gate, waiting, type Stage, type StageResult } from '../stage.js';
import { applicationCredentialCloud, cloudTarget, readApplicationCredential } from '../credential/clouds-yaml.js';
import { CLOUDS_YAML_KEY, adminRoundTrip } from '../credential/round-trip.js';
import { publishedCredential } from '../credential/slots.js';
import { invalidSpec } from './invalid-spec.js';

const wait = (reason: Reason, message: string): StageResult => ({
  condition: { status: 'False', reason, message },
  outcome: waiting(REQUEUE.korc),
  children: [],
});

export const adminCredentialStage: Stage = {
  name: 'AdminCredential',
  conditionType: CONDITION.AdminCredential,
  reads: ['spec.korc.adminCredential.cloudCredentialsRef'],
  interval: REQUEUE.korc,
  run(input): StageResult {
    const { cp, children, related } = input;
    const names = childNames(cp.name);
    const gated = gate(input, CONDITION.KORC, REASON.WaitingForKORC, REQUEUE.korc);
    if (gated) return gated;
    if (!secretStoreReady(related)) return wait(REASON.SecretStoreNotReady, `ClusterSecretStore ${CLUSTER_SECRET_STORE} is not Ready`);

    // The published credential: slot A's AC, or under scheduled rotation either slot's (credential/slots.ts).
    const published = publishedCredential(cp, children);
    const id = published.id;
    if (!id) return wait(REASON.WaitingForCredentialID, `ApplicationCredential ${published.name} has no id yet`);

    const settings = input.resolved.korc;
    if (!settings.ok) return invalidSpec(settings.errors, REQUEUE.korc);
    const { cloudName, secretName } = settings.value;
    const secret = children.get(GVK.Secret, cp.namespace, names.adminAppCredential);
    const value = published.value;
    if (!value) return wait(REASON.WaitingForAppCredentialSecret, `Secret ${published.name} holds no application-credential secret yet`);

    // The round trip of the application-credential cloud (credential/round-trip.ts): the push of
    // the Secret as observed is proven, then the ExternalSecret read back is forced and acknowledged.
    const document = applicationCredentialCloud(cloudTarget(input, cloudName), id, value);
    const trip = adminRoundTrip(input, document, secretName);
    if (secretString(secret, CLOUDS_YAML_KEY) === document && !trip.push.done) return wait(REASON.WaitingForPushSecret, trip.push.detail);
    const es = children.get(GVK.ExternalSecret, cp.namespace, secretName);
    if (!isReady(es)) return wait(REASON.WaitingForCloudsYaml, notReadyDetail(`ExternalSecret ${secretName}`, es));

    // The round trip of the assembled document: into the Secret (this answer writes it), to
    // OpenBao, back as the materialised Secret. Any miss, a garbage document included, is a
    // sync not done yet, bounded by the seed's stuck timeout.
    const syncing = (why: string): StageResult => {
      const age = secondsSince(input.credential?.lastRotation, input.now);
      if (age !== undefined && age > TIMEOUT_SECONDS.cloudsYamlSyncStuck) {
        return wait(REASON.CloudsYamlSyncStuck, `${why}, ${Math.floor(age / 60)} minutes after the credential changed: check ExternalSecret ${secretName} and OpenBao`);
      }
      return wait(REASON.WaitingForCloudsYamlSync, why);
    };
    if (secretString(secret, CLOUDS_YAML_KEY) !== document) {
      return syncing(`Secret ${names.adminAppCredential} is being given the clouds.yaml of credential ${id}`);
    }
    const materialised = secretString(related.get(GVK.Secret, cp.namespace, secretName), CLOUDS_YAML_KEY);
    const parsed = materialised === undefined ? undefined : readApplicationCredential(materialised, cloudName);
    if (parsed?.kind !== 'credential' || parsed.auth.id !== id || parsed.auth.secret !== value) {
      const why =
        materialised === undefined
          ? `Secret ${secretName} has no ${CLOUDS_YAML_KEY} yet`
          : parsed?.kind === 'unparsable'
            ? `Secret ${secretName}: key ${CLOUDS_YAML_KEY} is not a clouds.yaml document yet (${parsed.why})`
            : `Secret ${secretName} does not authenticate with credential ${id} yet`;
      return syncing(trip.refresh.detail ? `${why} (${trip.refresh.detail})` : why);
    }
    return {
      condition: { status: 'True', reason: REASON.AdminCredentialReady, message: `Credential ${id} committed to OpenBao and materialised in Secret ${secretName}` },
      outcome: complete(),
      children: [],
    };
  },
};
