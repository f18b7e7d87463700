// ExternalSecret children (external-secrets.io/v1) reading OpenBao through the ClusterSecretStore.
import { GVK } from '../k8s/kinds.js';
import type { KubeObject, ObjectIndex } from '../k8s/observed.js';
import { isReady } from '../k8s/observed.js';
import { child, type ChildMeta } from './children.js';
import { CLUSTER_SECRET_STORE } from './names.js';
import type { ControlPlaneRef } from './ref.js';

export const EXTERNAL_SECRET_REFRESH = '1h';

/**
 * What the ExternalSecret CRD defaults inside a `data[].remoteRef`. `data` is an atomic list
 * that Metacontroller replaces wholesale, so items are emitted as the API server stores them;
 * without these every sync would UPDATE the ExternalSecret (docs/architecture.md §2.6).
 */
export const REMOTE_REF_DEFAULTS = { conversionStrategy: 'Default', decodingStrategy: 'None', metadataPolicy: 'None' } as const;

export interface RemoteValue {
  secretKey: string;
  key: string;
  property: string;
}

/** An ExternalSecret materialising the Secret of the same name, owned by ESO (creationPolicy Owner). */
export function externalSecret(cp: ControlPlaneRef, name: string, data: RemoteValue[], meta: ChildMeta = {}): KubeObject {
  return child(
    GVK.ExternalSecret,
    cp,
    name,
    {
      spec: {
        refreshInterval: EXTERNAL_SECRET_REFRESH,
        secretStoreRef: { kind: 'ClusterSecretStore', name: CLUSTER_SECRET_STORE },
        target: { name, creationPolicy: 'Owner' },
        data: data.map((d) => ({ secretKey: d.secretKey, remoteRef: { key: d.key, property: d.property, ...REMOTE_REF_DEFAULTS } })),
      },
    },
    meta,
  );
}

/** The OpenBao-backed ClusterSecretStore is Ready (absent counts as not ready). */
export function secretStoreReady(related: ObjectIndex): boolean {
  return isReady(related.get(GVK.ClusterSecretStore, undefined, CLUSTER_SECRET_STORE));
}

