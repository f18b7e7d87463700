/** The API group and version of the c5c3.io kinds this service serves. */
export const API_GROUP = 'c5c3.io';
export const API_VERSION = 'v1alpha1';

/** The names of one c5c3.io kind, as its CRD and Metacontroller use them. */
export function kindNames<K extends string, P extends string>(kind: K, plural: P) {
  return {
    group: API_GROUP,
    version: API_VERSION,
    apiVersion: `${API_GROUP}/${API_VERSION}` as const,
    kind,
    plural,
    singular: kind.toLowerCase(),
    listKind: `${kind}List` as const,
  };
}

/** The c5c3.io kinds this service serves, named once (the API files re-export them). */
export const CONTROLPLANE = kindNames('ControlPlane', 'controlplanes');
export const CREDENTIALROTATION = kindNames('CredentialRotation', 'credentialrotations');
export const SECRETAGGREGATE = kindNames('SecretAggregate', 'secretaggregates');
