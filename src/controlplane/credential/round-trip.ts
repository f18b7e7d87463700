// The OpenBao round-trip of the admin credential (docs/architecture.md §3.5, the admin credential
// chain): the app-credential Secret the hooks own, the PushSecret that mirrors it to the
// per-ControlPlane OpenBao path (never deleted there), and the ExternalSecret that materialises
// its clouds.yaml as `cloudCredentialsRef.secretName` for K-ORC.
import { GVK } from '../../k8s/kinds.js';
import { isReady, type KubeObject } from '../../k8s/observed.js';
import { secretData, secretString, sha256Hex } from '../../k8s/secret.js';
import { child } from '../children.js';
import { externalSecret } from '../external-secret.js';
import { ANNOTATION, CLUSTER_SECRET_STORE, childNames, remoteKeys } from '../names.js';
import type { ControlPlaneRef } from '../ref.js';
import { annotationOf } from '../../k8s/read.js';

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
export function backupPushSecret(cp: ControlPlaneRef): KubeObject {
  const names = childNames(cp.name);
  return child(GVK.PushSecret, cp, names.adminAppCredentialBackup, {
    spec: {
      deletionPolicy: 'None',
      secretStoreRefs: [{ kind: 'ClusterSecretStore', name: CLUSTER_SECRET_STORE }],
      selector: { secret: { name: names.adminAppCredential } },
      // As the API server stores it (CRD default conversionStrategy): `data` is replaced wholesale.
      data: [{ conversionStrategy: 'None', match: { remoteRef: { remoteKey: remoteKeys(cp.namespace, cp.name).adminAppCredential } } }],
    },
  });
}

export interface CloudsYamlSync {
  /** The clouds.yaml this response puts into the app-credential Secret. */
  document: string;
  observedSecret: KubeObject | undefined;
  observedPushSecret: KubeObject | undefined;
  observedExternalSecret: KubeObject | undefined;
}

/**
 * The force-sync value (docs/architecture.md §3.5): the SHA-256 of the document, stamped only once the
 * observed Secret holds it and the PushSecret is Ready, so ESO re-reads OpenBao after the push;
 * until then the observed value is kept. The password cloud of a bootstrap or a re-mint is
 * stamped the same way, so K-ORC is never left with a revoked credential for an hour.
 */
export function forceSyncValue(s: CloudsYamlSync): string | undefined {
  const pushed = secretString(s.observedSecret, CLOUDS_YAML_KEY) === s.document && isReady(s.observedPushSecret);
  return pushed ? sha256Hex(s.document) : annotationOf(s.observedExternalSecret, ANNOTATION.forceSync);
}

/** The ExternalSecret `cloudCredentialsRef.secretName`, reading the per-ControlPlane path. */
export function cloudsYamlExternalSecret(cp: ControlPlaneRef, name: string, forceSync: string | undefined): KubeObject {
  return externalSecret(
    cp,
    name,
    [{ secretKey: CLOUDS_YAML_KEY, key: remoteKeys(cp.namespace, cp.name).adminAppCredential, property: CLOUDS_YAML_KEY }],
    { annotations: forceSync ? { [ANNOTATION.forceSync]: forceSync } : undefined },
  );
}
