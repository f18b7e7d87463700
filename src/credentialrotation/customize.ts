// POST /credentialrotation/customize: a CredentialRotation relates the ControlPlanes of its
// namespace (it must resolve exactly one) and the admin ApplicationCredentials the ControlPlane
// labels, to see whether its request was honoured. It reads no Secret (docs/architecture.md §3.7).
import type { CredentialRotationParent, CustomizeHookResponse } from '../api/hooks.js';
import { GVK } from '../k8s/kinds.js';
import { ADMIN_AC_LABEL, ADMIN_AC_LABEL_VALUE } from '../controlplane/names.js';
import { SERVICE_USER_TARGET } from '../controlplane/credential/rotation-requests.js';

export function customizeCredentialRotation(parent: CredentialRotationParent): CustomizeHookResponse {
  const ns = parent.metadata.namespace;
  const spec = (parent.spec ?? {}) as Record<string, unknown>;
  // target serviceUserPassword: the service's K-ORC User, by name (its annotation lists the requests honoured).
  const user = spec.target === SERVICE_USER_TARGET && typeof spec.targetServiceUser === 'string' && spec.targetServiceUser.length > 0 ? spec.targetServiceUser : undefined;
  return {
    relatedResources: [
      ...(user !== undefined ? [{ ...GVK.User.rule, namespace: ns, names: [user] }] : []),
      { ...GVK.ControlPlane.rule, namespace: ns },
      {
        ...GVK.ApplicationCredential.rule,
        namespace: ns,
        labelSelector: { matchLabels: { [ADMIN_AC_LABEL]: ADMIN_AC_LABEL_VALUE } },
      },
    ],
  };
}
