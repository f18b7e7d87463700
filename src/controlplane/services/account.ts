// A service's Keystone account and catalog entries as K-ORC objects (docs/architecture.md §2.13):
// the managed User with its password Secret, its role on the shared `service` project, the
// catalog Service with a public and an internal Endpoint, and the PushSecret backing the password
// up to OpenBao. Every one authenticates with the admin application credential (cloudCredentialsRef).
import { GVK } from '../../k8s/kinds.js';
import type { KubeObject } from '../../k8s/observed.js';
import { child } from '../children.js';
import { CLUSTER_SECRET_STORE, OPENSTACK_SERVICE_ACCOUNT, childNames, sharedServiceAccountNames } from '../names.js';
import type { ControlPlaneRef } from '../ref.js';
import type { KorcSettings } from '../spec.js';
import { internalUrl, publicUrl, type DeclaredService } from './descriptor.js';
import type { ServiceView } from './view.js';

type Credentials = Pick<KorcSettings, 'cloudName' | 'secretName'>;

const credentialsRef = (korc: Credentials) => ({ cloudName: korc.cloudName, secretName: korc.secretName });

/**
 * The `service` project and role, emitted by the first declared service in SERVICES order (one
 * owner per child): managed, so K-ORC creates them when Keystone lacks them (its bootstrap makes
 * no `service` project) and adopts them when it has them; detached on delete, so removing them
 * never deletes what other users of that Keystone may hold.
 */
export function sharedAccount(cp: ControlPlaneRef, korc: Credentials): KubeObject[] {
  const names = childNames(cp.name);
  const shared = sharedServiceAccountNames(cp.name);
  const keep = { cloudCredentialsRef: credentialsRef(korc), managementPolicy: 'managed', managedOptions: { onDelete: 'detach' } };
  return [
    child(GVK.Project, cp, shared.project, { spec: { ...keep, resource: { name: OPENSTACK_SERVICE_ACCOUNT.project, domainRef: names.domain, enabled: true } } }),
    child(GVK.Role, cp, shared.role, { spec: { ...keep, resource: { name: OPENSTACK_SERVICE_ACCOUNT.role } } }),
  ];
}

export interface Account {
  /** The User and its role assignments: the CR is created once they are Available. */
  identity: KubeObject[];
  /** The catalog Service and its Endpoints. */
  catalog: KubeObject[];
}

export function account(v: ServiceView, declared: DeclaredService, korc: Credentials, password: { ref: string; annotations: Record<string, string> | undefined }): Account {
  const { d, cp, names: n } = v;
  const shared = sharedServiceAccountNames(cp.name);
  const managed = { cloudCredentialsRef: credentialsRef(korc), managementPolicy: 'managed' };
  const endpoint = (name: string, iface: 'public' | 'internal', url: string) =>
    child(GVK.Endpoint, cp, name, { spec: { ...managed, resource: { interface: iface, url, serviceRef: n.service, enabled: true } } });
  const user = child(
    GVK.User,
    cp,
    n.user,
    { spec: { ...managed, resource: { name: d.name, domainRef: childNames(cp.name).domain, defaultProjectRef: shared.project, passwordRef: password.ref, enabled: true } } },
    { annotations: password.annotations },
  );
  const roleAssignment = child(GVK.RoleAssignment, cp, n.roleAssignment, {
    spec: { ...managed, resource: { roleRef: shared.role, userRef: n.user, projectRef: shared.project } },
  });
  return {
    identity: [user, roleAssignment],
    catalog: [
      child(GVK.Service, cp, n.service, { spec: { ...managed, resource: { name: d.name, type: d.serviceType, enabled: true } } }),
      endpoint(n.publicEndpoint, 'public', publicUrl(d, cp, declared)),
      endpoint(n.internalEndpoint, 'internal', internalUrl(d, cp)),
    ],
  };
}

/** The PushSecret backing the password Secret `source` up to OpenBao (deletionPolicy None: the copy stays). */
export function passwordBackup(v: ServiceView, source: string, annotations: Record<string, string> | undefined): KubeObject {
  return child(
    GVK.PushSecret,
    v.cp,
    v.names.passwordBackup,
    {
      spec: {
        deletionPolicy: 'None',
        secretStoreRefs: [{ kind: 'ClusterSecretStore', name: CLUSTER_SECRET_STORE }],
        selector: { secret: { name: source } },
        data: [{ conversionStrategy: 'None', match: { remoteRef: { remoteKey: v.keys.password } } }],
      },
    },
    { annotations },
  );
}
