// The unmanaged K-ORC imports the admin AC hangs off (docs/architecture.md §3.1):
// `{cp}-domain-default` (OpenStack domain Default) and `{cp}-user-admin` (OpenStack user admin
// in it). Removing them never touches OpenStack. They authenticate with cloudCredentialsRef.
import { GVK } from '../../k8s/kinds.js';
import type { KubeObject, ObjectIndex } from '../../k8s/observed.js';
import { isAvailable, orcDetail, terminalError } from '../../k8s/orc.js';
import { child } from '../children.js';
import { OPENSTACK_ADMIN, childNames } from '../names.js';
import type { ControlPlaneRef } from '../ref.js';

export interface CloudCredentialsRef {
  cloudName: string;
  secretName: string;
}

export function adminImports(cp: ControlPlaneRef, credentials: CloudCredentialsRef): KubeObject[] {
  const names = childNames(cp.name);
  const cloudCredentialsRef = { cloudName: credentials.cloudName, secretName: credentials.secretName };
  return [
    child(GVK.Domain, cp, names.domain, {
      spec: { cloudCredentialsRef, managementPolicy: 'unmanaged', import: { filter: { name: OPENSTACK_ADMIN.domain } } },
    }),
    child(GVK.User, cp, names.user, {
      spec: {
        cloudCredentialsRef,
        managementPolicy: 'unmanaged',
        import: { filter: { name: OPENSTACK_ADMIN.user, domainRef: names.domain } },
      },
    }),
  ];
}

/** The first import that failed or is not Available yet, named for a condition message. */
export function stuckImport(cp: ControlPlaneRef, children: ObjectIndex): string | undefined {
  const names = childNames(cp.name);
  for (const [kind, name, label] of [
    [GVK.Domain, names.domain, 'Domain import'],
    [GVK.User, names.user, 'admin User import'],
  ] as const) {
    const obj = children.get(kind, cp.namespace, name);
    if (terminalError(obj) || !isAvailable(obj)) return orcDetail(`${label} ${name}`, obj);
  }
  return undefined;
}
