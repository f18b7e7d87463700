// What one service's stage reads of the request, read once (docs/architecture.md §2.13): its
// declared spec, its children's names, and its observed children by the role they play. The
// stage, the guarded removal and the account builders take everything from here.
import { GVK } from '../../k8s/kinds.js';
import { identity, isTerminating, type KubeObject, type ObjectIndex } from '../../k8s/observed.js';
import type { KindInfo } from '../../api/kind-info.js';
import { at } from '../../k8s/read.js';
import { CATALOG_SLOTS, SERVICE_INTERFACES, accountNames, serviceChildNames, serviceRemoteKeys } from '../names.js';
import type { ControlPlaneRef } from '../ref.js';
import type { StageInput } from '../stage.js';
import type { DeclaredService } from './projection.js';
import { SERVICES, serviceNamed, type Service } from '../../api/services/index.js';
import { observedPasswordSecrets } from './password-rotation.js';

/** One Keystone account of a service: its own (key '') or an extra one (Neutron's `nova`). */
export interface AccountPlan {
  key: string;
  names: ReturnType<typeof accountNames>;
  roles: readonly string[];
  /** The OpenBao key its password is backed up to. */
  remoteKey: string;
  /** Where the service CR names its password Secret. */
  secretRefPath: readonly string[];
}

const OWN_SECRET_REF = ['spec', 'serviceUser', 'secretRef', 'name'] as const;

/** Every account the service can have, its own first (whether needed or not). */
export function allAccounts(d: Service, cp: ControlPlaneRef): AccountPlan[] {
  const keys = serviceRemoteKeys(cp.namespace, cp.name, d.name);
  return [
    { key: '', names: accountNames(cp.name, d.name, ''), roles: d.roles, remoteKey: keys.password, secretRefPath: OWN_SECRET_REF },
    ...(d.extraAccounts ?? []).map((a) => ({ key: a.key, names: accountNames(cp.name, d.name, a.key), roles: a.roles, remoteKey: keys.accountPassword(a.key), secretRefPath: a.secretRefPath })),
  ];
}

export interface ServiceView {
  d: Service;
  cp: ControlPlaneRef;
  /** spec.services.<svc>, undefined when not declared. */
  declared: DeclaredService | undefined;
  names: ReturnType<typeof serviceChildNames>;
  keys: ReturnType<typeof serviceRemoteKeys>;
  /** Whether the ControlPlane declares service `svc`. */
  declares(svc: string): boolean;
  /** Whether `svc` is declared or its CR still exists (a guarded removal keeps it). */
  servicePresent(svc: string): boolean;
  /** The observed child with the identity of `o` (a desired child), if any. */
  observed(o: KubeObject): KubeObject | undefined;
  /** Every observed child of the ControlPlane. */
  index: ObjectIndex;
  /** An observed child of `kind` and `name` in the ControlPlane's namespace, unless it is Terminating. */
  live(kind: KindInfo, name: string): KubeObject | undefined;
  /** Every observed child of the service (its named ones, its parts, its rotated password Secrets). */
  children: KubeObject[];
  /** The observed parts (children of a part kind attached to its CR). */
  parts: KubeObject[];
  /** The observed, live password Secrets of the family `base` (password-rotation.ts). */
  passwordFamily(base: string): KubeObject[];
}

/** The service's own children as they would be named (to find them once it is no longer declared), every account's included. */
export function ownedIdentities(d: Service, cp: ControlPlaneRef): { kind: KindInfo; name: string }[] {
  const n = serviceChildNames(cp.name, d.name);
  return [
    // The catalog rows before the Regions they name and the Service (a guarded removal releases in this order).
    ...CATALOG_SLOTS.flatMap((slot) => SERVICE_INTERFACES.map((iface) => ({ kind: GVK.Endpoint, name: n.regionEndpointOf(slot, iface) }))),
    { kind: GVK.Endpoint, name: n.publicEndpoint },
    { kind: GVK.Endpoint, name: n.internalEndpoint },
    ...CATALOG_SLOTS.map((slot) => ({ kind: GVK.Region, name: n.regionOf(slot) })),
    { kind: GVK.Service, name: n.service },
    ...allAccounts(d, cp).flatMap((a) => [
      ...a.roles.map((role) => ({ kind: GVK.RoleAssignment, name: a.names.roleAssignment(role) })),
      { kind: GVK.User, name: a.names.user },
    ]),
    { kind: d.kind, name: n.cr },
    ...d.databases.map((db) => ({ kind: GVK.ExternalSecret, name: n.dbCredentialsOf(db.infix) })),
    ...allAccounts(d, cp).flatMap((a) => [
      { kind: GVK.PushSecret, name: a.names.passwordBackup },
      { kind: GVK.Secret, name: a.names.password },
    ]),
    ...(d.messaging ? [{ kind: GVK.Secret, name: n.messaging }] : []),
    ...(d.generatedSecrets ?? []).map((g) => ({ kind: GVK.Secret, name: n.generated(g.name) })),
  ];
}

/** Every observed child of the service: its named ones, its rotated password Secrets and its parts. */
export function observedServiceChildren(d: Service, input: Pick<StageInput, 'cp' | 'children'>): { all: KubeObject[]; parts: KubeObject[] } {
  const { cp, children } = input;
  const named = ownedIdentities(d, cp).flatMap(({ kind, name }) => {
    const o = children.get(kind, cp.namespace, name);
    return o ? [o] : [];
  });
  const cr = serviceChildNames(cp.name, d.name).cr;
  const parts = d.partKinds.flatMap((k) => children.ofKind(k).filter((o) => o.metadata.namespace === cp.namespace && at(o, 'spec', k.ref, 'name') === cr));
  // The rotated password Secrets (`…-service-user-v2`, …; the first is named above).
  const rotated = allAccounts(d, cp).flatMap((a) => [...observedPasswordSecrets(children, cp.namespace, a.names.password)].filter(([serial]) => serial > 1).map(([, o]) => o));
  return { all: [...named, ...rotated, ...parts], parts };
}

export function serviceView(d: Service, input: StageInput): ServiceView {
  const cp = input.cp;
  const services = input.spec.services;
  const declared: DeclaredService | undefined = services?.[d.name] ?? undefined;
  const { all, parts } = observedServiceChildren(d, input);
  const declares = (svc: string) => SERVICES.some((s) => s.name === svc && services?.[s.name] !== undefined && services?.[s.name] !== null);
  const live = (kind: KindInfo, name: string) => {
    const o = input.children.get(kind, cp.namespace, name);
    return o && !isTerminating(o) ? o : undefined;
  };
  return {
    d,
    cp,
    declared,
    names: serviceChildNames(cp.name, d.name),
    keys: serviceRemoteKeys(cp.namespace, cp.name, d.name),
    declares,
    servicePresent(svc) {
      const other = serviceNamed(svc);
      return declares(svc) || (other !== undefined && live(other.kind, serviceChildNames(cp.name, svc).cr) !== undefined);
    },
    observed: (o) => input.children.getById(identity(o)),
    index: input.children,
    live,
    children: all,
    parts,
    passwordFamily: (base) => [...observedPasswordSecrets(input.children, cp.namespace, base).values()],
  };
}
