// POST /credentialrotation/customize: a CredentialRotation relates the ControlPlanes of its
// namespace (it must resolve exactly one) and the admin ApplicationCredentials the ControlPlane
// labels, to see whether its request was honoured. It reads no Secret (docs/architecture.md §3.7).
import type { CredentialRotationParent, CustomizeHookResponse } from '../api/hooks.js';
import { GVK } from '../k8s/kinds.js';
import { ADMIN_AC_LABEL, ADMIN_AC_LABEL_VALUE } from '../controlplane/names.js';

export function customizeCredentialRotation(parent: CredentialRotationParent): CustomizeHookResponse {
  const ns = parent.metadata.namespace;
  return {
    relatedResources: [
      { ...GVK.ControlPlane.rule, namespace: ns },
      {
        ...GVK.ApplicationCredential.rule,
        namespace: ns,
        labelSelector: { matchLabels: { [ADMIN_AC_LABEL]: ADMIN_AC_LABEL_VALUE } },
      },
    ],
  };
}
