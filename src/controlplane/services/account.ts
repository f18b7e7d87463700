// A service's Keystone accounts and catalog entries as K-ORC objects (docs/architecture.md §2.13):
// per account a managed User with its password Secret, a RoleAssignment per role on the shared
// `service` project, and the PushSecret backing the password up to OpenBao; per service the catalog
// Service with a public and an internal Endpoint. Every one authenticates with the admin
// application credential (cloudCredentialsRef).
import { GVK } from '../../k8s/kinds.js';
import type { KubeObject } from '../../k8s/observed.js';
import { child } from '../children.js';
import { CLUSTER_SECRET_STORE, OPENSTACK_SERVICE_ACCOUNT, SERVICE_INTERFACES, childNames, sharedServiceAccountNames } from '../names.js';
import type { KorcSettings } from '../spec.js';
import { internalUrl, publicUrl, type DeclaredService } from './projection.js';
import { SERVICES } from '../../api/services/index.js';
import { allAccounts, type AccountPlan, type ServiceView } from './view.js';
import { regionedRows, type RegionedFamily, type RegionedRows } from '../catalog-region.js';

type Credentials = Pick<KorcSettings, 'cloudName' | 'secretName'>;

const credentialsRef = (korc: Credentials) => ({ cloudName: korc.cloudName, secretName: korc.secretName });

/**
 * The accounts the service needs this pass: its own, and each extra account while the service it
 * is for is declared or that service's CR still exists (its removal is guarded, §2.13).
 */
export function neededAccounts(v: ServiceView): { needed: AccountPlan[]; idle: AccountPlan[] } {
  const needed: AccountPlan[] = [];
  const idle: AccountPlan[] = [];
  for (const a of allAccounts(v.d, v.cp)) {
    const extra = (v.d.extraAccounts ?? []).find((e) => e.key === a.key);
    (extra === undefined || v.servicePresent(extra.whileService) ? needed : idle).push(a);
  }
  return { needed, idle };
}

/** The roles the declared services' needed accounts hold, each with the first declared service holding it (it emits the Role). */
function roleOwners(v: Pick<ServiceView, 'declares' | 'servicePresent'>): Map<string, string> {
  const owners = new Map<string, string>();
  for (const d of SERVICES) {
    if (!v.declares(d.name)) continue;
    const roles = [...d.roles, ...(d.extraAccounts ?? []).filter((a) => v.servicePresent(a.whileService)).flatMap((a) => a.roles)];
    for (const role of roles) if (!owners.has(role)) owners.set(role, d.name);
  }
  return owners;
}

/**
 * The `service` project and the roles the accounts hold (`service`, `admin`): each emitted by the
 * first declared service that needs it (one owner per child), managed so K-ORC creates one
 * Keystone lacks (its bootstrap makes the `admin` and `service` roles but no `service` project)
 * and adopts one it has; detached on delete, so removing them never deletes what other users of
 * that Keystone may hold.
 */
export function sharedAccount(v: ServiceView, korc: Credentials): KubeObject[] {
  const { cp } = v;
  const shared = sharedServiceAccountNames(cp.name);
  const keep = { cloudCredentialsRef: credentialsRef(korc), managementPolicy: 'managed', managedOptions: { onDelete: 'detach' } };
  const owners = roleOwners(v);
  const firstDeclared = SERVICES.find((d) => v.declares(d.name))?.name === v.d.name;
  return [
    ...(firstDeclared ? [child(GVK.Project, cp, shared.project, { spec: { ...keep, resource: { name: OPENSTACK_SERVICE_ACCOUNT.project, domainRef: childNames(cp.name).domain, enabled: true } } })] : []),
    ...[...owners].filter(([, owner]) => owner === v.d.name).map(([role]) => child(GVK.Role, cp, shared.roleOf(role), { spec: { ...keep, resource: { name: role } } })),
  ];
}

/** The shared objects as observed (any service's): a terminal error there fails every service's account. */
export function observedShared(v: ServiceView): KubeObject[] {
  const shared = sharedServiceAccountNames(v.cp.name);
  const roles = new Set(SERVICES.flatMap((d) => [...d.roles, ...(d.extraAccounts ?? []).flatMap((a) => a.roles)]));
  return [v.live(GVK.Project, shared.project), ...[...roles].map((r) => v.live(GVK.Role, shared.roleOf(r)))].filter((o): o is KubeObject => o !== undefined);
}

/** An account's User and its RoleAssignments (the CR is created once they are Available). */
export function accountIdentity(v: ServiceView, a: AccountPlan, korc: Credentials, password: { ref: string; annotations: Record<string, string> | undefined }): KubeObject[] {
  const { cp } = v;
  const shared = sharedServiceAccountNames(cp.name);
  const managed = { cloudCredentialsRef: credentialsRef(korc), managementPolicy: 'managed' };
  return [
    child(
      GVK.User,
      cp,
      a.names.user,
      { spec: { ...managed, resource: { name: a.names.osUser, domainRef: childNames(cp.name).domain, defaultProjectRef: shared.project, passwordRef: password.ref, enabled: true } } },
      { annotations: password.annotations },
    ),
    ...a.roles.map((role) =>
      child(GVK.RoleAssignment, cp, a.names.roleAssignment(role), {
        spec: { ...managed, resource: { roleRef: shared.roleOf(role), userRef: a.names.user, projectRef: shared.project } },
      }),
    ),
  ];
}

/** A service's rows' names in each slot, and its region-less Endpoints of earlier releases (catalog-region.ts). */
export function serviceFamily(n: ServiceView['names']): RegionedFamily {
  return { regionName: n.regionOf, endpointName: n.regionEndpointOf, interfaces: SERVICE_INTERFACES, legacyEndpoints: [n.publicEndpoint, n.internalEndpoint] };
}

/**
 * The catalog Service, and its public and internal Endpoints registered in spec.region through an
 * unmanaged import of that region (upstream's one import per registration: K-ORC holds a Region
 * while an Endpoint names it, so one service's teardown never waits for another's), replacing the
 * rows registered elsewhere (catalog-region.ts).
 */
export function catalog(v: ServiceView, declared: DeclaredService, korc: Credentials, region: string): { service: KubeObject; rows: RegionedRows } {
  const { d, cp, names: n } = v;
  const cloudCredentialsRef = credentialsRef(korc);
  const managed = { cloudCredentialsRef, managementPolicy: 'managed' };
  const urls: Record<(typeof SERVICE_INTERFACES)[number], string> = { public: publicUrl(d, cp, declared), internal: internalUrl(d, cp) };
  const rows = regionedRows({
    cp,
    children: v.index,
    region,
    family: serviceFamily(n),
    regionObject: (name) => child(GVK.Region, cp, name, { spec: { cloudCredentialsRef, managementPolicy: 'unmanaged', import: { filter: { name: region } } } }),
    endpointObject: (name, row, regionRef) => child(GVK.Endpoint, cp, name, { spec: { ...managed, resource: { interface: row.iface, url: row.url, serviceRef: row.serviceRef, regionRef, enabled: true } } }),
    rows: SERVICE_INTERFACES.map((iface) => ({ iface, url: urls[iface], serviceRef: n.service })),
  });
  return { service: child(GVK.Service, cp, n.service, { spec: { ...managed, resource: { name: d.name, type: d.serviceType, enabled: true } } }), rows };
}

/** The PushSecret backing an account's password Secret `source` up to OpenBao (deletionPolicy None: the copy stays). */
export function passwordBackup(v: ServiceView, a: AccountPlan, source: string, annotations: Record<string, string> | undefined): KubeObject {
  return child(
    GVK.PushSecret,
    v.cp,
    a.names.passwordBackup,
    {
      spec: {
        deletionPolicy: 'None',
        secretStoreRefs: [{ kind: 'ClusterSecretStore', name: CLUSTER_SECRET_STORE }],
        selector: { secret: { name: source } },
        data: [{ conversionStrategy: 'None', match: { remoteRef: { remoteKey: a.remoteKey } } }],
      },
    },
    { annotations },
  );
}
