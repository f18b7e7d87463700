// The OpenBao round-trip of the admin credential (docs/architecture.md §3.5, the admin credential
// chain): the app-credential Secret the hooks own, the PushSecret that mirrors it to the
// per-ControlPlane OpenBao path (never deleted there), and the ExternalSecret that materialises
// its clouds.yaml as `cloudCredentialsRef.secretName` for K-ORC.
import { GVK } from '../../k8s/kinds.js';
import { type KubeObject } from '../../k8s/observed.js';
import { secretData, secretString, sha256Hex } from '../../k8s/secret.js';
import { child } from '../children.js';
import { externalSecret } from '../external-secret.js';
import { ANNOTATION, CLUSTER_SECRET_STORE, childNames, remoteKeys } from '../names.js';
import type { ControlPlaneRef } from '../ref.js';
import { pushState, pushTrigger, refreshPlan, type PushState, type RefreshPlan } from '../eso-round-trip.js';
import type { StageInput } from '../stage.js';
import { sameYaml } from './clouds-yaml.js';

export const CLOUDS_YAML_KEY = 'clouds.yaml';
export const VALUE_KEY = 'value';

/** An Opaque Secret the hooks own whole. */
export function ownedSecret(cp: ControlPlaneRef, name: string, values: Record<string, string>, annotations?: Record<string, string>): KubeObject {
  return child(GVK.Secret, cp, name, { type: 'Opaque', data: secretData(values) }, { annotations });
}

/** `{cp}-admin-app-credential`: `value` (the secret K-ORC mints with) and `clouds.yaml`. */
export function appCredentialSecret(cp: ControlPlaneRef, value: string, cloudsYaml: string, mintedSecretHash: string | undefined): KubeObject {
  const annotations = mintedSecretHash ? { [ANNOTATION.mintedSecretHash]: mintedSecretHash } : undefined;
  return ownedSecret(cp, childNames(cp.name).adminAppCredential, { [VALUE_KEY]: value, [CLOUDS_YAML_KEY]: cloudsYaml }, annotations);
}

/** `{cp}-admin-app-credential-backup`: the whole Secret to OpenBao, kept there on deletion. */
export function backupPushSecret(cp: ControlPlaneRef, annotations: Record<string, string> | undefined): KubeObject {
  const names = childNames(cp.name);
  return child(
    GVK.PushSecret,
    cp,
    names.adminAppCredentialBackup,
    {
      spec: {
        deletionPolicy: 'None',
        secretStoreRefs: [{ kind: 'ClusterSecretStore', name: CLUSTER_SECRET_STORE }],
        selector: { secret: { name: names.adminAppCredential } },
        // As the API server stores it (CRD default conversionStrategy): `data` is replaced wholesale.
        data: [{ conversionStrategy: 'None', match: { remoteRef: { remoteKey: remoteKeys(cp.namespace, cp.name).adminAppCredential } } }],
      },
    },
    { annotations },
  );
}

/** The ExternalSecret `cloudCredentialsRef.secretName`, reading the per-ControlPlane path. */
export function cloudsYamlExternalSecret(cp: ControlPlaneRef, name: string, annotations: Record<string, string> | undefined): KubeObject {
  return externalSecret(
    cp,
    name,
    [{ secretKey: CLOUDS_YAML_KEY, key: remoteKeys(cp.namespace, cp.name).adminAppCredential, property: CLOUDS_YAML_KEY }],
    { annotations },
  );
}

/** Whether the materialised Secret's clouds.yaml is `document` (parsed, so a re-serialisation reads the same). */
export function materialisedHolds(materialised: KubeObject | undefined, document: string): boolean {
  const text = secretString(materialised, CLOUDS_YAML_KEY);
  return text === document || (text !== undefined && sameYaml(text, document));
}

export interface AdminRoundTrip {
  /** The PushSecret's trigger annotation (eso-round-trip.ts pushTrigger). */
  pushAnnotations: Record<string, string> | undefined;
  /** The push of the observed app-credential Secret is proven, and that Secret holds `document`. */
  push: PushState;
  /** The ExternalSecret's force-sync annotations and the read-back state. */
  refresh: RefreshPlan;
}

/**
 * The round trip of `document` (the clouds.yaml this answer puts into the app-credential Secret)
 * through OpenBao to the Secret K-ORC reads (docs/architecture.md §3.5). The KORC stage emits its
 * annotations; the AdminCredential stage reports where it waits.
 */
export function adminRoundTrip(input: Pick<StageInput, 'cp' | 'children' | 'related' | 'now'>, document: string, secretName: string): AdminRoundTrip {
  const { cp, children } = input;
  const names = childNames(cp.name);
  const observedSecret = children.get(GVK.Secret, cp.namespace, names.adminAppCredential);
  const observedPush = children.get(GVK.PushSecret, cp.namespace, names.adminAppCredentialBackup);
  const proven = pushState(names.adminAppCredentialBackup, names.adminAppCredential, observedSecret, observedPush);
  const holds = secretString(observedSecret, CLOUDS_YAML_KEY) === document;
  const push: PushState = proven.done && !holds ? { done: false, detail: `Secret ${names.adminAppCredential} is being given the clouds.yaml on its way` } : proven;
  const refresh = refreshPlan({
    esName: secretName,
    documentHash: sha256Hex(document),
    pushed: push.done,
    observedEs: children.get(GVK.ExternalSecret, cp.namespace, secretName),
    materialised: materialisedHolds(input.related.get(GVK.Secret, cp.namespace, secretName), document),
    now: input.now,
  });
  return { pushAnnotations: pushTrigger(observedSecret, observedPush), push, refresh };
}
