// What one service's stage reads of the request, read once (docs/architecture.md §2.13): its
// declared spec, its children's names, and its observed children by the role they play. The
// stage, the guarded removal and the account builders take everything from here.
import { GVK } from '../../k8s/kinds.js';
import { identity, isTerminating, type KubeObject } from '../../k8s/observed.js';
import type { KindInfo } from '../../k8s/kind-info.js';
import { serviceChildNames, serviceRemoteKeys } from '../names.js';
import type { ControlPlaneRef } from '../ref.js';
import type { StageInput } from '../stage.js';
import type { DeclaredService } from './descriptor.js';
import type { Service } from './index.js';
import { observedPasswordSecrets } from './password-rotation.js';

export interface ServiceView {
  d: Service;
  cp: ControlPlaneRef;
  /** spec.services.<svc>, undefined when not declared. */
  declared: DeclaredService | undefined;
  names: ReturnType<typeof serviceChildNames>;
  keys: ReturnType<typeof serviceRemoteKeys>;
  /** The observed child with the identity of `o` (a desired child), if any. */
  observed(o: KubeObject): KubeObject | undefined;
  /** An observed child of `kind` and `name` in the ControlPlane's namespace, unless it is Terminating. */
  live(kind: KindInfo, name: string): KubeObject | undefined;
  /** Every observed child of the service (its named ones, its parts, its rotated password Secrets). */
  children: KubeObject[];
  /** The observed parts (`{cp}-<svc>-<name>` of a part kind). */
  parts: KubeObject[];
}

/** The service's own children as they would be named (to find them once it is no longer declared). */
export function ownedIdentities(d: Service, cp: ControlPlaneRef): { kind: KindInfo; name: string }[] {
  const n = serviceChildNames(cp.name, d.name);
  return [
    { kind: GVK.Endpoint, name: n.publicEndpoint },
    { kind: GVK.Endpoint, name: n.internalEndpoint },
    { kind: GVK.Service, name: n.service },
    { kind: GVK.RoleAssignment, name: n.roleAssignment },
    { kind: GVK.User, name: n.user },
    { kind: d.kind, name: n.cr },
    ...d.databases.map((db) => ({ kind: GVK.ExternalSecret, name: n.dbCredentialsOf(db.infix) })),
    { kind: GVK.PushSecret, name: n.passwordBackup },
    { kind: GVK.Secret, name: n.password },
  ];
}

/** Every observed child of the service: its named ones, its rotated password Secrets and its parts. */
export function observedServiceChildren(d: Service, input: Pick<StageInput, 'cp' | 'children'>): { all: KubeObject[]; parts: KubeObject[] } {
  const { cp, children } = input;
  const named = ownedIdentities(d, cp).flatMap(({ kind, name }) => {
    const o = children.get(kind, cp.namespace, name);
    return o ? [o] : [];
  });
  const n = serviceChildNames(cp.name, d.name);
  const prefix = `${n.cr}-`;
  const partKinds: readonly KindInfo[] = d.partKinds;
  const parts = children.all().filter((o) => partKinds.some((k) => o.apiVersion === k.apiVersion && o.kind === k.kind) && o.metadata.name.startsWith(prefix));
  // The rotated password Secrets (`…-service-user-v2`, …; the first is named above).
  const rotated = [...observedPasswordSecrets(children, cp.namespace, n.password)].filter(([serial]) => serial > 1).map(([, o]) => o);
  return { all: [...named, ...rotated, ...parts], parts };
}

export function serviceView(d: Service, input: StageInput): ServiceView {
  const cp = input.cp;
  const declared = (input.spec.services as Record<string, DeclaredService | undefined>)[d.name];
  const { all, parts } = observedServiceChildren(d, input);
  return {
    d,
    cp,
    declared: declared ?? undefined,
    names: serviceChildNames(cp.name, d.name),
    keys: serviceRemoteKeys(cp.namespace, cp.name, d.name),
    observed: (o) => input.children.getById(identity(o)),
    live(kind, name) {
      const o = input.children.get(kind, cp.namespace, name);
      return o && !isTerminating(o) ? o : undefined;
    },
    children: all,
    parts,
  };
}
