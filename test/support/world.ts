// The world of the HTTP-level sync tests: v2 request maps, sync answers applied as Metacontroller
// does (the simulator's model, src/sim/metacontroller.ts `applyChildren`: last-applied annotation,
// controller-uid label, three-way merge, server fields, generation), child readiness set by the
// test, and the world around the ControlPlane: the admin-password Secret and the OpenBao round
// trip of the clouds.yaml.
import { CONTROLPLANE_CHILD_KINDS, KNOWN_KINDS, type KindInfo } from '../../src/k8s/kinds.js';
import { applyChildren } from '../../src/sim/metacontroller.js';
import { esoTargetSecret, healthyStatusOf, orcStatusOf, ovnCentralStatusOf, pushedStatusOf, refreshedStatusOf } from '../../src/sim/operators.js';
import { FIXED_NOW } from './server.js';
import type { Obj } from './shared.js';

export const ADMIN_PASSWORD = 's3cr3t-Admin-Passw0rd';

/** The world's clock of the API server and the operators (not the hooks'): before every clock the tests use. */
const CREATED = new Date('2026-01-01T00:00:00Z');

const kindOf = (obj: Obj): KindInfo | undefined =>
  KNOWN_KINDS.find((k) => k.apiVersion === obj.apiVersion && k.kind === obj.kind);

/** Objects grouped the way a v2 hook receives them (group key → namespace/name → object). */
export function objectMap(objects: Obj[], groups: readonly KindInfo[] = []): Obj {
  const map: Obj = {};
  for (const g of groups) map[g.groupKey] = {};
  for (const o of objects) {
    const key = kindOf(o)?.groupKey ?? `${o.kind}.${o.apiVersion}`;
    map[key] ??= {};
    map[key][o.metadata.namespace ? `${o.metadata.namespace}/${o.metadata.name}` : o.metadata.name] = o;
  }
  return map;
}

export function syncRequest(parent: Obj, children: Obj[] = [], related: Obj[] = [], finalizing = false): Obj {
  return { controller: { kind: 'CompositeController', metadata: { name: 'c5c3-controlplane' } }, parent, children: objectMap(children, CONTROLPLANE_CHILD_KINDS), related: objectMap(related), finalizing };
}

export function readyCondition(ready: boolean, reason = ready ? 'Ready' : 'NotReady'): Obj {
  return { type: 'Ready', status: ready ? 'True' : 'False', reason, message: ready ? 'ready' : 'not ready', lastTransitionTime: '2026-01-01T00:00:00Z' };
}

export const isOrc = (obj: Obj) => obj.apiVersion === 'openstack.k-orc.cloud/v1alpha1';

/** K-ORC's status at `generation` (the simulator's K-ORC, src/sim/operators.ts `orcStatusOf`). */
export function orcStatus(generation: number, opts: { available?: boolean; reason?: string; message?: string; id?: string } = {}): Obj {
  const available = opts.available ?? true;
  const reason = opts.reason ?? (available ? 'Success' : 'Progressing');
  const message = opts.message ?? (available ? 'OpenStack resource is up to date' : 'Waiting for OpenStack resource to be created externally');
  return orcStatusOf({ metadata: { generation } }, available, reason, message, CREATED, opts.id);
}

/** The OpenStack id K-ORC would give the credential minted for this AC object. */
export const acIdOf = (ac: Obj) => `id-${ac.spec.resource.name}`;

/**
 * Every child healthy: the status its operator writes once all it waits for is there (the
 * simulator's operators, src/sim/operators.ts `healthyStatusOf`) at `generation`; K-ORC objects
 * with the OpenStack id `id-<name>` (an AC: `acIdOf`). None for Secrets and ConfigMaps.
 */
export function healthy(child: Obj, generation = 1): Obj | undefined {
  const id = isOrc(child) ? (child.kind === 'ApplicationCredential' ? acIdOf(child) : `id-${child.metadata.name}`) : undefined;
  return healthyStatusOf({ ...child, metadata: { ...child.metadata, generation } }, CREATED, id);
}

export type StatusOf = (child: Obj, generation: number) => Obj | undefined;

const sameObject = (a: Obj, b: Obj) => a.kind === b.kind && a.apiVersion === b.apiVersion && a.metadata.name === b.metadata.name;

/**
 * The world's API server for one apply (src/sim/cluster.ts): its clock at CREATED, and a created
 * child's uid `uid-<Kind>-<name>`, so that the uid a test meets does not depend on the order of
 * creation (unlike a real API server's, it is the same again for a child deleted and created again).
 */
const API_SERVER = { now: () => CREATED, uid: (o: Obj) => `uid-${o.kind}-${o.metadata.name}` };

/**
 * The live object Metacontroller leaves after applying `desired` for `parent` (the simulator's
 * model, src/sim/metacontroller.ts `applyChildren`): namespace defaulted, controller-uid label,
 * last-applied annotation, the parent's controller reference, server fields; `status` as the
 * operator reports it.
 */
export function applied(desired: Obj, parent: Obj, status?: Obj): Obj {
  const live = applyChildren(parent, [], [desired], API_SERVER).desired[0]!;
  if (status) live.status = status;
  return live;
}

/**
 * Applies a response as Metacontroller does (src/sim/metacontroller.ts `applyChildren`): returned
 * children created or updated by the three-way merge (the API server moves `generation` with the
 * spec), Terminating ones left as they are, the others deleted. The world has no operator holding
 * finalizers: a child deleted now is gone, and one that was already Terminating is gone once no
 * longer returned (whoever held it has finished). Statuses from `statusOf`, the operators.
 */
export function applyResponse(children: Obj[], parent: Obj, statusOf: StatusOf, previous: Obj[] = []): Obj[] {
  const { desired, remaining } = applyChildren(parent, previous, children, API_SERVER);
  const wasTerminating = (o: Obj) => previous.some((p) => sameObject(p, o) && p.metadata.deletionTimestamp);
  const out = desired.map((live, i) => {
    if (live.metadata.deletionTimestamp) return live; // never updated while Terminating
    // A status from statusOf is the operator acting on this object (ESO pushing or refreshing it);
    // none keeps the one it had.
    const fresh = statusOf(children[i]!, live.metadata.generation);
    if (fresh !== undefined) live.status = esoStatus(live, fresh);
    if (live.status === undefined) delete live.status;
    return live;
  });
  return [...out, ...remaining.filter((o) => !wasTerminating(o))];
}

/**
 * A Ready PushSecret or ExternalSecret as ESO leaves it right after a successful push or refresh
 * of the object as applied (the simulator's ESO, src/sim/operators.ts): its success reason,
 * `syncedResourceVersion` of the live metadata, `refreshTime` at the tests' clock (FIXED_NOW: no
 * forced refresh is due yet). Other statuses as given.
 */
function esoStatus(live: Obj, status: Obj): Obj {
  if (!isReadyObj({ status })) return status;
  if (live.kind === 'PushSecret') return pushedStatusOf({ ...live, status }, FIXED_NOW);
  if (live.kind === 'ExternalSecret') return refreshedStatusOf({ ...live, status }, FIXED_NOW);
  return status;
}

export const clusterSecretStore = (ready = true): Obj => ({
  apiVersion: 'external-secrets.io/v1',
  kind: 'ClusterSecretStore',
  metadata: { name: 'openbao-cluster-store', uid: 'uid-store' },
  spec: {},
  status: { conditions: [readyCondition(ready, ready ? 'Valid' : 'InvalidProviderConfig')] },
});

/** Every child Ready. */
export const allReady = (): Obj => ({ conditions: [readyCondition(true)] });

export const b64 = (text: string) => Buffer.from(text, 'utf8').toString('base64');
export const unb64 = (text: string) => Buffer.from(text, 'base64').toString('utf8');

/** A Secret as the API server would hand it to a hook as a related object. */
export function secret(namespace: string, name: string, values: Record<string, string>, extra: Obj = {}): Obj {
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name, namespace, uid: `uid-secret-${name}`, ...extra },
    type: 'Opaque',
    data: Object.fromEntries(Object.entries(values).map(([k, v]) => [k, b64(v)])),
  };
}

/** The admin-password Secret the parent's spec names (managed: the ESO-materialised one). */
export function adminPasswordSecret(parent: Obj, password = ADMIN_PASSWORD): Obj {
  const managed = !!parent.spec?.infrastructure?.database?.clusterRef;
  const ref = parent.spec?.korc?.adminCredential?.passwordSecretRef ?? {};
  const name = managed ? `${parent.metadata.name}-keystone-admin-credentials` : ref.name ?? 'keystone-admin';
  const key = managed ? 'password' : ref.key ?? 'password';
  return secret(parent.metadata.namespace, name, { [key]: password });
}

const isReadyObj = (o: Obj | undefined) => !!o?.status?.conditions?.some((c: Obj) => c.type === 'Ready' && c.status === 'True');

/**
 * The OpenBao round trip as ESO would complete it: once the PushSecret and the clouds.yaml
 * ExternalSecret are Ready, the materialised Secret (as the simulator's ESO writes it,
 * src/sim/operators.ts `esoTargetSecret`) holds what the app-credential Secret holds.
 */
export function materialisedCloudsYaml(parent: Obj, children: Obj[]): Obj | undefined {
  const cp = parent.metadata.name;
  const secretName = parent.spec?.korc?.adminCredential?.cloudCredentialsRef?.secretName ?? 'k-orc-clouds-yaml';
  const source = children.find((c) => c.kind === 'Secret' && c.metadata.name === `${cp}-admin-app-credential`);
  const push = children.find((c) => c.kind === 'PushSecret' && c.metadata.name === `${cp}-admin-app-credential-backup`);
  const es = children.find((c) => c.kind === 'ExternalSecret' && c.metadata.name === secretName);
  if (!source?.data?.['clouds.yaml'] || !isReadyObj(push) || !isReadyObj(es)) return undefined;
  const materialised = esoTargetSecret(es!, { 'clouds.yaml': unb64(source.data['clouds.yaml']) });
  return { ...materialised, metadata: { ...materialised.metadata, uid: `uid-secret-${materialised.metadata.name}` } };
}

/** Related objects around the parent: `base`, the admin password, the materialised clouds.yaml. */
export function surroundings(parent: Obj, children: Obj[], base: Obj[], password: string | null = ADMIN_PASSWORD): Obj[] {
  const out = [...base];
  const has = (o: Obj) => out.some((r) => sameObject(r, o) && (r.metadata.namespace ?? '') === (o.metadata.namespace ?? ''));
  if (password !== null) {
    const pw = adminPasswordSecret(parent, password);
    if (!has(pw)) out.push(pw);
  }
  const materialised = materialisedCloudsYaml(parent, children);
  if (materialised && !has(materialised)) out.push(materialised);
  return out;
}

/** The label of the objects platformObjects makes (a test world keeps them across passes). */
export const PLATFORM_LABEL = 'test.c5c3.io/platform';

/**
 * What the platform provides beside a ControlPlane that its services read (related, never
 * children): the bus credentials (the RabbitmqCluster's default-user Secret as the cluster
 * operator writes it, or the user's brownfield bus Secret) and a Ready OVNCentral of the name
 * Neutron's spec gives, as the simulator's operators write them.
 */
export function platformObjects(parent: Obj): Obj[] {
  const ns = parent.metadata.namespace;
  const cp = parent.metadata.name;
  const messaging = parent.spec?.infrastructure?.messaging;
  const out: Obj[] = [];
  const labels = { labels: { [PLATFORM_LABEL]: 'true' } };
  if (messaging?.secretRef?.name) out.push(secret(ns, messaging.secretRef.name, { [messaging.secretRef.key ?? 'transport_url']: 'rabbit://bus-user:bus-Passw0rd@bus.example.com:5672/' }, labels));
  else if (messaging) out.push(secret(ns, `${cp}-rabbitmq-default-user`, { username: 'rabbit-default-user', password: 'rabbit-Passw0rd/x', host: `${cp}-rabbitmq.${ns}.svc`, port: '5672' }, labels));
  const ovn = parent.spec?.services?.neutron?.ovn?.centralRef?.name;
  if (ovn) {
    const central: Obj = { apiVersion: 'ovn.openstack.c5c3.io/v1alpha1', kind: 'OVNCentral', metadata: { name: ovn, namespace: ns, uid: `uid-ovn-${ovn}`, generation: 1, ...labels }, spec: {} };
    out.push({ ...central, status: ovnCentralStatusOf(central, true, FIXED_NOW) });
  }
  return out;
}
