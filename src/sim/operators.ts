// The operators around a ControlPlane, reduced to what the hooks observe of them: MariaDB and
// Memcached become Ready; ESO materialises ExternalSecrets from OpenBao and pushes PushSecrets to
// it; the Keystone operator becomes Ready once its database, cache and Secrets exist and takes
// the admin password; K-ORC authenticates with the clouds.yaml Secret, imports the Domain/User,
// mints and revokes application credentials and creates the catalog entries.
import { createHash } from 'node:crypto';
import { parse } from 'yaml';
import type { Cluster, Obj } from './cluster.js';
import { refOf, labelOf } from './cluster.js';
import { ESO_READ_FAILURE, ESO_REASON, ESO_TARGET, esoDataHash, esoResourceVersion } from '../k8s/eso.js';
import { SERVICES, type Service, type ServiceName } from '../api/services/index.js';
import { backupStatusOf, mariadbBackups, type BackupRecord, type CatalogRow } from './mariadb-backups.js';
import { jobs } from './jobs.js';
import { condition } from './conditions.js';
import { terminalError } from '../k8s/orc.js';

export const b64 = (text: string) => Buffer.from(text, 'utf8').toString('base64');
const unb64 = (text: string) => Buffer.from(text, 'base64').toString('utf8');
const durationSeconds = (d: string) => [...d.matchAll(/(\d+)(h|m|s)/g)].reduce((n, [, v, u]) => n + Number(v) * ({ h: 3600, m: 60, s: 1 } as Record<string, number>)[u!]!, 0);

/** The OpenStack side as Keystone would hold it. */
export interface OpenStack {
  adminPassword: string | undefined;
  /** Live application credentials by id. */
  applicationCredentials: Map<string, { name: string; secret: string; expiresAt?: string }>;
  /** Every mint ever made, in order (ids). */
  mints: string[];
  revoked: string[];
  catalog: Map<string, string>;
  /** Managed (service) users K-ORC created, by OpenStack name: the password it set. */
  users: Map<string, string>;
  /**
   * Projects and roles by name: what `keystone-manage bootstrap` creates (keystone 28.1.0,
   * keystone/cmd/bootstrap.py: the admin project; the reader, member, manager, admin and service
   * roles — no `service` project), then what K-ORC created. An import of a name not here waits.
   */
  projects: Set<string>;
  roles: Set<string>;
  /**
   * Regions by id, with their descriptions: the bootstrap's (keystone-manage bootstrap
   * --bootstrap-region-id, with no description), then what K-ORC created.
   */
  regions: Map<string, string>;
  /** Catalog rows by id: what K-ORC's Endpoint adoption lists (endpoint/actuator.go ListOSResourcesForAdoption). */
  endpoints: Map<string, CatalogRow>;
  /** The last id handed out, per id prefix. */
  counters: Map<string, number>;
}

export interface World {
  cluster: Cluster;
  /** OpenBao KV: path → properties. */
  openbao: Map<string, Record<string, string>>;
  openstack: OpenStack;
  /** Objects (`Kind/name`) whose operator reports them down. */
  down: Set<string>;
  /** Things worth a line in the timeline. */
  notes: { by: string; text: string }[];
  /**
   * Failure knob of the stand-in Keystone operator: a Keystone whose `spec.image` is one of these
   * (`repository:tag`) never becomes Ready (Ready=False `CrashLoopBackOff` at its current
   * generation), as a release whose pods cannot start. The `upgrade-fails` scenario uses it.
   */
  keystoneImagesNeverReady: Set<string>;
  /**
   * Namespaces whose Keystone is not the model's (the e2e suite serves a real Keystone per
   * Keystone CR there): the model's Keystone operator leaves their Keystone CRs alone, and the
   * other operators read those CRs' status as it is.
   */
  realKeystoneNamespaces: Set<string>;
  /** The stand-in mariadb-operator's Backups (`namespace/name`) and their snapshots (mariadb-backups.ts). */
  backups: Map<string, BackupRecord>;
  /** Failure knob of the stand-in mariadb-operator: every backup Job fails while set. */
  backupsFail: boolean;
  /**
   * Failure knob of the stand-in K-ORC: objects (`Kind/name`) it reports in a terminal error
   * (Progressing=False with this reason at the current generation, Available=False), keeping any
   * OpenStack id, as an update K-ORC gave up on. Deletion does not look at it: K-ORC's
   * reconcileDelete never checks ShouldReconcile (generic/reconciler/controller.go, c22784ca), so
   * such an object with an id is deleted (revoked) like any other.
   */
  korcTerminal: Map<string, { reason: string; message: string }>;
  /**
   * Failure knob of the stand-in K-ORC: managed objects (`Kind/name`) for which OpenStack holds more
   * than one resource of their name, made by someone else. K-ORC's adoption lookup
   * (ListOSResourcesForAdoption, atMostOne in generic/reconciler/resource_actions.go, c22784ca)
   * finds both: an object without a status.id gets the terminal InvalidConfiguration
   * `AMBIGUOUS_ADOPTION`, on creation and on every deletion attempt, unless it is detached
   * (DeleteResource reads onDelete before that lookup).
   */
  korcAmbiguousAdoption: Set<string>;
  /** Failure knob of the stand-in Job controller (jobs.ts): every Job that ends fails. */
  jobsFail: boolean;
}

/** K-ORC's terminal error of an ambiguous adoption lookup (resource_actions.go getResourceForAdoption, c22784ca). */
export const AMBIGUOUS_ADOPTION = 'found more than one matching OpenStack resource during adoption';

export function newWorld(cluster: Cluster): World {
  return {
    cluster,
    openbao: new Map(),
    openstack: { adminPassword: undefined, applicationCredentials: new Map(), mints: [], revoked: [], catalog: new Map(), users: new Map(), projects: new Set(['admin']), roles: new Set(['reader', 'member', 'manager', 'admin', 'service']), regions: new Map(), endpoints: new Map(), counters: new Map() },
    down: new Set(),
    notes: [],
    realKeystoneNamespaces: new Set(),
    keystoneImagesNeverReady: new Set(),
    backups: new Map(),
    backupsFail: false,
    korcTerminal: new Map(),
    korcAmbiguousAdoption: new Set(),
    jobsFail: false,
  };
}

const KORC_GROUP = 'openstack.k-orc.cloud/v1alpha1';
const FINALIZER = 'openstack.k-orc.cloud/finalizer';

export { condition };

/** Kinds whose operators report the generation they reconciled in status.observedGeneration. */
const REPORTS_GENERATION = new Set(['Keystone', 'Memcached']);

/** The status of an operator that reports a Ready condition (MariaDB, Memcached, Keystone). */
export function readyStatusOf(o: Obj, ready: boolean, reason: string, message: string, now: Date): Obj {
  const status: Obj = { ...(o.status ?? {}), conditions: [condition(o.status, 'Ready', ready, reason, message, now)] };
  if (REPORTS_GENERATION.has(o.kind)) status.observedGeneration = o.metadata.generation;
  return status;
}

function setReady(w: World, o: Obj, by: string, ready: boolean, reason: string, message: string): void {
  w.cluster.updateStatus(refOf(o), readyStatusOf(o, ready, reason, message, w.cluster.now()), by);
}

const isReady = (o: Obj | undefined) => !!o?.status?.conditions?.some((c: Obj) => c.type === 'Ready' && c.status === 'True');
const live = (o: Obj) => !o.metadata.deletionTimestamp;

function secretValue(w: World, ns: string, name: string, key: string): string | undefined {
  const s = w.cluster.get({ apiVersion: 'v1', kind: 'Secret', namespace: ns, name });
  const raw = s?.data?.[key];
  return typeof raw === 'string' ? unb64(raw) : undefined;
}

function infrastructure(w: World): void {
  for (const [kind, by] of [['MariaDB', 'mariadb-operator'], ['Memcached', 'memcached-operator']] as const) {
    for (const o of w.cluster.list((x) => x.kind === kind && live(x))) {
      const down = w.down.has(labelOf(o));
      setReady(w, o, by, !down, down ? 'Unavailable' : 'Ready', down ? `${kind} is down` : `${kind} is ready`);
    }
  }
}

/** RFC 3339 at one-second resolution, as ESO's metav1.Time serialises (ms since the epoch → text). */
const esoTime = (ms: number) => new Date(Math.floor(ms / 1000) * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');

/** A timestamp ESO wrote, in ms; NaN when absent. */
const timeOf = (text: unknown) => (typeof text === 'string' ? Date.parse(text) : NaN);

/**
 * ESO's ExternalSecret controller (Periodic refresh policy; external-secrets v0.16.2
 * `shouldRefreshPeriodic`, `isSecretValid`, `markAsDone`): a refresh when the object's metadata
 * changed since the last one (`status.syncedResourceVersion`), when `refreshInterval` passed since
 * `status.refreshTime` (or that time is in the future), or when the target Secret is missing or was
 * edited (its data-hash annotation). A refresh writes the target only when its content changes,
 * and always `refreshTime`, `syncedResourceVersion` and Ready/SecretSynced. A failed read leaves both
 * fields as they were, so the refresh stays owed.
 */
function externalSecretPass(w: World): void {
  const now = w.cluster.now().getTime();
  const store = w.cluster.list((o) => o.kind === 'ClusterSecretStore');
  for (const es of w.cluster.list((o) => o.kind === 'ExternalSecret' && live(o))) {
    const rv = esoResourceVersion(es);
    const interval = durationSeconds(es.spec.refreshInterval ?? '1h') * 1000;
    const synced = es.status?.syncedResourceVersion as string | undefined;
    const refreshed = timeOf(es.status?.refreshTime);
    const targetName = es.spec.target?.name ?? es.metadata.name;
    const ref = { apiVersion: 'v1', kind: 'Secret', namespace: es.metadata.namespace, name: targetName };
    const existing = w.cluster.get(ref);
    const valid =
      existing !== undefined &&
      existing.metadata.labels?.[ESO_TARGET.managedLabel] === 'true' &&
      existing.metadata.annotations?.[ESO_TARGET.dataHashAnnotation] === esoDataHash(existing.data);
    const refresh = interval <= 0 && synced ? false : synced !== rv || Number.isNaN(refreshed) || refreshed > now || refreshed + interval < now;
    if (!refresh && valid) continue;
    const storeReady = isReady(store.find((s) => s.metadata.name === es.spec.secretStoreRef?.name));
    const values: Record<string, string> = {};
    const missing: string[] = [];
    for (const d of es.spec.data ?? []) {
      const value = w.openbao.get(d.remoteRef.key)?.[d.remoteRef.property];
      if (value === undefined) missing.push(`${d.remoteRef.key}#${d.remoteRef.property}`);
      else values[d.secretKey] = value;
    }
    if (!storeReady || missing.length > 0) {
      // ESO's words for both (a missing key with deletionPolicy Retain, a store that is not Ready);
      // what failed goes into an Event only (k8s/eso.ts ESO_READ_FAILURE). The target stays as it is.
      w.cluster.updateStatus(refOf(es), { ...(es.status ?? {}), conditions: [condition(es.status, 'Ready', false, ESO_READ_FAILURE.reason, ESO_READ_FAILURE.message, w.cluster.now())] }, 'external-secrets');
      continue;
    }
    const secret = esoTargetSecret(es, values, existing);
    const { metadata, data } = secret;
    const same = existing && JSON.stringify([existing.data ?? {}, existing.metadata.labels, existing.metadata.annotations, existing.metadata.ownerReferences]) === JSON.stringify([data, metadata.labels, metadata.annotations, metadata.ownerReferences]);
    if (!same && (existing ? w.cluster.update(secret, 'external-secrets') : w.cluster.create(secret, 'external-secrets'))) {
      w.notes.push({ by: 'external-secrets', text: `materialised Secret ${targetName} from OpenBao` });
    }
    w.cluster.updateStatus(refOf(es), refreshedStatusOf(es, w.cluster.now()), 'external-secrets');
  }
}

/**
 * The target Secret ESO writes for an ExternalSecret from `values` (plain text): the data, its
 * managed label and data-hash annotation, owned by the ExternalSecret; what else `existing` has
 * stays.
 */
export function esoTargetSecret(es: Obj, values: Record<string, string>, existing?: Obj): Obj {
  const data = Object.fromEntries(Object.keys(values).sort().map((k) => [k, b64(values[k]!)]));
  const owner = { apiVersion: es.apiVersion, kind: es.kind, name: es.metadata.name, uid: es.metadata.uid, controller: true, blockOwnerDeletion: true };
  const metadata = {
    ...(existing?.metadata ?? {}),
    name: es.spec.target?.name ?? es.metadata.name,
    namespace: es.metadata.namespace,
    labels: { ...(existing?.metadata.labels ?? {}), [ESO_TARGET.managedLabel]: 'true' },
    annotations: { ...(existing?.metadata.annotations ?? {}), [ESO_TARGET.dataHashAnnotation]: esoDataHash(data) },
    ownerReferences: [owner],
  };
  return { ...(existing ?? {}), apiVersion: 'v1', kind: 'Secret', metadata, type: 'Opaque', data };
}

/** An ExternalSecret's status after a successful refresh at `now` of the object as it is. */
export function refreshedStatusOf(es: Obj, now: Date): Obj {
  return {
    ...(es.status ?? {}),
    refreshTime: esoTime(now.getTime()),
    syncedResourceVersion: esoResourceVersion(es),
    binding: { name: es.spec.target?.name ?? es.metadata.name },
    conditions: [condition(es.status, 'Ready', true, ESO_REASON.refreshed, 'secret synced', now)],
  };
}

/**
 * ESO's PushSecret controller (v0.16.2 `shouldRefresh`, `resolveSecrets`, `markAsDone`; the Vault
 * provider's push): it does NOT watch the source Secret. It pushes when the PushSecret's own
 * metadata changed since the last push (`status.syncedResourceVersion`), or once `refreshInterval`
 * (1h) passed since `status.refreshTime`; it then reads the Secret live and writes OpenBao only
 * when the content differs. Ready/Synced is the result of the last push and stays as it is
 * between pushes; a failure leaves `refreshTime` and `syncedResourceVersion` as they were.
 */
function pushSecretPass(w: World): void {
  const now = w.cluster.now().getTime();
  for (const ps of w.cluster.list((o) => o.kind === 'PushSecret' && live(o))) {
    const rv = esoResourceVersion(ps);
    const interval = durationSeconds(ps.spec.refreshInterval ?? '1h') * 1000;
    const synced = ps.status?.syncedResourceVersion as string | undefined;
    const refreshed = timeOf(ps.status?.refreshTime);
    const due = synced !== rv || (interval > 0 ? Number.isNaN(refreshed) || refreshed + interval < now : !synced);
    if (!due) continue;
    const name = ps.spec.selector?.secret?.name;
    const source = w.cluster.get({ apiVersion: 'v1', kind: 'Secret', namespace: ps.metadata.namespace, name });
    const fail = (message: string) =>
      w.cluster.updateStatus(refOf(ps), { ...(ps.status ?? {}), conditions: [condition(ps.status, 'Ready', false, 'Errored', message, w.cluster.now())] }, 'external-secrets');
    if (!source) {
      fail('could not get source secret');
      continue;
    }
    const decoded = Object.fromEntries(Object.entries(source.data ?? {}).map(([k, v]) => [k, unb64(v as string)]));
    for (const d of ps.spec.data ?? []) {
      const path = d.match.remoteRef.remoteKey;
      const value = d.match.secretKey ? { [d.match.remoteRef.property ?? d.match.secretKey]: decoded[d.match.secretKey]! } : decoded;
      if (JSON.stringify(w.openbao.get(path)) !== JSON.stringify(value)) {
        w.openbao.set(path, value);
        w.notes.push({ by: 'external-secrets', text: `pushed Secret ${name} to OpenBao ${path}` });
      }
    }
    w.cluster.updateStatus(refOf(ps), pushedStatusOf(ps, w.cluster.now()), 'external-secrets');
  }
}

/** A PushSecret's status after a successful push at `now` of the object as it is. */
export function pushedStatusOf(ps: Obj, now: Date): Obj {
  const entries: Record<string, Obj> = {};
  for (const d of ps.spec.data ?? []) entries[d.match.remoteRef.property ? `${d.match.remoteRef.remoteKey}/${d.match.remoteRef.property}` : d.match.remoteRef.remoteKey] = d;
  const stores = (ps.spec.secretStoreRefs ?? []).map((r: Obj) => `${r.kind ?? 'SecretStore'}/${r.name}`);
  return {
    ...(ps.status ?? {}),
    refreshTime: esoTime(now.getTime()),
    syncedResourceVersion: esoResourceVersion(ps),
    syncedPushSecrets: Object.fromEntries(stores.map((k: string) => [k, entries])),
    conditions: [condition(ps.status, 'Ready', true, ESO_REASON.pushed, 'PushSecret synced successfully', now)],
  };
}

/**
 * ESO's two controllers run independently; nothing orders a push before a refresh. The model runs
 * the refreshes first, the order that exposes a hook which forces a refresh before the push it
 * depends on is proven.
 */
function externalSecrets(w: World): void {
  externalSecretPass(w);
  pushSecretPass(w);
}

function keystones(w: World): void {
  for (const k of w.cluster.list((o) => o.kind === 'Keystone' && live(o) && !w.realKeystoneNamespaces.has(o.metadata.namespace))) {
    const ns = k.metadata.namespace;
    const missing: string[] = [];
    const db = k.spec.database ?? {};
    if (db.secretRef && secretValue(w, ns, db.secretRef.name, db.secretRef.key ?? 'password') === undefined) missing.push(`Secret ${db.secretRef.name}`);
    const adminRef = k.spec.bootstrap?.adminPasswordSecretRef ?? {};
    const password = secretValue(w, ns, adminRef.name, adminRef.key ?? 'password');
    if (password === undefined) missing.push(`Secret ${adminRef.name}`);
    for (const [kind, ref] of [['MariaDB', db.clusterRef], ['Memcached', k.spec.cache?.clusterRef]] as const) {
      if (!ref) continue;
      const backing = w.cluster.list((o) => o.kind === kind && o.metadata.namespace === ns && o.metadata.name === ref.name)[0];
      if (!isReady(backing)) missing.push(`${kind} ${ref.name} Ready`);
    }
    if (w.down.has(labelOf(k))) missing.push('its pods (down)');
    const image = `${k.spec.image?.repository}:${k.spec.image?.tag}`;
    if (w.keystoneImagesNeverReady.has(image)) {
      setReady(w, k, 'keystone-operator', false, 'CrashLoopBackOff', `pods with image ${image} crash on start`);
      continue;
    }
    if (missing.length > 0) {
      setReady(w, k, 'keystone-operator', false, 'NotReady', `waiting for ${missing.join(', ')}`);
      continue;
    }
    if (w.openstack.adminPassword !== password) {
      if (w.openstack.adminPassword !== undefined) w.notes.push({ by: 'keystone-operator', text: 'bootstrap set the new admin password' });
      w.openstack.adminPassword = password;
    }
    // keystone-manage bootstrap --bootstrap-region-id (the Keystone operator's reconcileBootstrap):
    // the region, with an empty description, unless it exists.
    const region = k.spec.bootstrap?.region;
    if (typeof region === 'string' && !w.openstack.regions.has(region)) w.openstack.regions.set(region, '');
    setReady(w, k, 'keystone-operator', true, 'Ready', 'Keystone is ready');
  }
}

/** Whether the cloud named in cloudCredentialsRef authenticates against the simulated Keystone (undefined: it does). */
export function authenticate(w: World, o: Obj): string | undefined {
  const ref = o.spec.cloudCredentialsRef ?? {};
  const doc = secretValue(w, o.metadata.namespace, ref.secretName, 'clouds.yaml');
  if (doc === undefined) return `Secret ${ref.secretName} has no clouds.yaml`;
  if (!w.cluster.list((k) => k.kind === 'Keystone' && k.metadata.namespace === o.metadata.namespace).some(isReady)) return 'Keystone is not reachable';
  let auth: Obj | undefined;
  try {
    auth = parse(doc)?.clouds?.[ref.cloudName]?.auth;
  } catch {
    return 'clouds.yaml is not YAML';
  }
  if (!auth) return `clouds.yaml has no cloud ${ref.cloudName}`;
  if (auth.application_credential_id !== undefined) {
    const ac = w.openstack.applicationCredentials.get(auth.application_credential_id);
    // Keystone enforces expires_at: an expired application credential no longer authenticates.
    const expired = ac?.expiresAt !== undefined && Date.parse(ac.expiresAt) <= w.cluster.now().getTime();
    return ac && !expired && ac.secret === auth.application_credential_secret ? undefined : 'The request you have made requires authentication (application credential)';
  }
  return auth.username === 'admin' && auth.password === w.openstack.adminPassword ? undefined : 'The request you have made requires authentication (password)';
}

/**
 * The model's K-ORC success messages, one for both conditions. (K-ORC c22784ca writes "OpenStack
 * resource is available" on Available and "OpenStack resource is up to date" on Progressing,
 * imported or managed: generic/status/conditions.go SetCommonConditions.)
 */
const ORC_SUCCESS = { managed: 'OpenStack resource is up to date', imported: 'OpenStack resource is available' } as const;

/**
 * K-ORC's status of an object: Available and Progressing at its generation with one reason and
 * message (Progressing unless available or the error is terminal), and the OpenStack id, kept once
 * known.
 */
export function orcStatusOf(o: Obj, available: boolean, reason: string, message: string, now: Date, id?: string): Obj {
  const generation = o.metadata.generation;
  const progressing = !available && !['InvalidConfiguration', 'UnrecoverableError'].includes(reason);
  const status: Obj = {
    conditions: [
      condition(o.status, 'Available', available, reason, message, now, generation),
      condition(o.status, 'Progressing', progressing, reason, message, now, generation),
    ],
  };
  const keep = id ?? o.status?.id;
  if (keep) status.id = keep;
  if (o.status?.resource) status.resource = o.status.resource;
  return status;
}

function orcStatus(w: World, o: Obj, available: boolean, reason: string, message: string, id?: string): void {
  w.cluster.updateStatus(refOf(o), orcStatusOf(o, available, reason, message, w.cluster.now(), id), 'k-orc');
}

function nextId(os: OpenStack, prefix: string): string {
  const n = (os.counters.get(prefix) ?? 0) + 1;
  os.counters.set(prefix, n);
  return `${prefix}-${n}`;
}

function createInOpenStack(w: World, o: Obj): { id?: string; wait?: string; terminal?: string } {
  const os = w.openstack;
  const ns = o.metadata.namespace;
  if (o.kind === 'ApplicationCredential') {
    const user = w.cluster.get({ apiVersion: KORC_GROUP, kind: 'User', namespace: ns, name: o.spec.resource.userRef });
    if (!user?.status?.id) return { wait: `waiting for User ${o.spec.resource.userRef}` };
    const secret = secretValue(w, ns, o.spec.resource.secretRef, 'value');
    if (secret === undefined) return { wait: `waiting for Secret ${o.spec.resource.secretRef}` };
    // K-ORC resolves an access rule's serviceRef to the K-ORC Service object of that name and sends
    // its type (applicationcredential/actuator.go CreateResource): no such object, no mint.
    for (const rule of (o.spec.resource.accessRules ?? []) as Obj[]) {
      if (!rule.serviceRef) continue;
      const service = w.cluster.get({ apiVersion: KORC_GROUP, kind: 'Service', namespace: ns, name: rule.serviceRef });
      const available = (service?.status?.conditions ?? []).some((c: Obj) => c.type === 'Available' && c.status === 'True');
      if (!available || !service?.status?.id) return { wait: `Waiting for Service/${rule.serviceRef} to be created` };
    }
    const id = nextId(os, 'ac');
    os.applicationCredentials.set(id, { name: o.spec.resource.name, secret, ...(o.spec.resource.expiresAt ? { expiresAt: o.spec.resource.expiresAt } : {}) });
    os.mints.push(id);
    w.notes.push({ by: 'k-orc', text: `minted application credential ${id} (${o.spec.resource.name})` });
    return { id };
  }
  if (o.kind === 'User' && o.spec.resource?.passwordRef) {
    const password = secretValue(w, ns, o.spec.resource.passwordRef, 'password');
    if (password === undefined) return { wait: `waiting for Secret ${o.spec.resource.passwordRef}` };
    os.users.set(o.spec.resource.name, password);
    w.notes.push({ by: 'k-orc', text: `created service user ${o.spec.resource.name}` });
  }
  if (o.kind === 'RoleAssignment') {
    const user = w.cluster.get({ apiVersion: KORC_GROUP, kind: 'User', namespace: ns, name: o.spec.resource.userRef });
    if (!user?.status?.id) return { wait: `waiting for User ${o.spec.resource.userRef}` };
  }
  if (o.kind === 'Endpoint') {
    const service = w.cluster.get({ apiVersion: KORC_GROUP, kind: 'Service', namespace: ns, name: o.spec.resource.serviceRef });
    if (!service?.status?.id) return { wait: `waiting for Service ${o.spec.resource.serviceRef}` };
    const r = o.spec.resource;
    const regionRef: string | undefined = r.regionRef;
    const region = regionRef === undefined ? undefined : w.cluster.get({ apiVersion: KORC_GROUP, kind: 'Region', namespace: ns, name: regionRef });
    const available = (region?.status?.conditions ?? []).some((c: Obj) => c.type === 'Available' && c.status === 'True');
    const regionId: string = available && region?.status?.id ? region.status.id : '';
    // Adoption comes first: a row of the same interface, service and URL, listed in the Region's
    // region, or in every region while the Region is missing or not Available (FetchDependency
    // hands back an empty Region: RegionID "", endpoint/actuator.go ListOSResourcesForAdoption).
    for (const [id, row] of os.endpoints) {
      if (row.service === service.status.id && row.iface === r.interface && row.url === r.url && (regionId === '' || row.region === regionId)) return { id };
    }
    // A create names the Region once it is Available (CreateResource, regionDependency).
    if (regionRef !== undefined && regionId === '') return { wait: `Waiting for Region/${regionRef} to be ready` };
    const id = nextId(os, 'endpoint');
    os.endpoints.set(id, { service: service.status.id, iface: r.interface, url: r.url, region: regionId });
    os.catalog.set(id, regionId ? `Endpoint ${o.metadata.name} in region ${regionId}` : `Endpoint ${o.metadata.name}`);
    return { id };
  }
  if (o.kind === 'Region') {
    // Adopted when a region of that id exists and, if the spec describes it, with that description
    // (region/actuator.go ListOSResourcesForAdoption); created otherwise, which Keystone refuses
    // (409) when the id is taken: K-ORC reports that as terminal.
    const name = o.spec.resource?.name ?? o.metadata.name;
    const description = o.spec.resource?.description;
    if (os.regions.has(name)) {
      if (description === undefined || os.regions.get(name) === description) return { id: name };
      return { terminal: `invalid configuration creating resource: Conflict: region ${name} exists` };
    }
    os.regions.set(name, description ?? '');
    w.notes.push({ by: 'k-orc', text: `created region ${name}` });
    return { id: name };
  }
  if (o.kind === 'Project' || o.kind === 'Role') {
    // Adopted when one of that name exists (ListOSResourcesForAdoption), created otherwise.
    const name = o.spec.resource?.name ?? o.metadata.name;
    const named = o.kind === 'Project' ? os.projects : os.roles;
    if (named.has(name)) return { id: `${name}-${o.kind.toLowerCase()}-id` };
    named.add(name);
  }
  const id = nextId(os, o.kind.toLowerCase());
  os.catalog.set(id, `${o.kind} ${o.metadata.name}`);
  return { id };
}

/**
 * K-ORC's reconcilePassword (user/actuator.go, c22784ca): the password is sent only when
 * passwordRef names another Secret than status.resource.appliedPasswordRef; an empty applied ref
 * is the creation's (the password was set by the create), so nothing is sent then. The applied
 * ref is merge-patched into the status. Returns what it waits for, if anything.
 */
function reconcilePassword(w: World, o: Obj): string | undefined {
  const ref = o.spec.resource?.passwordRef;
  if (o.kind !== 'User' || !ref) return undefined;
  const applied = o.status?.resource?.appliedPasswordRef ?? '';
  if (applied === ref) return undefined;
  const password = secretValue(w, o.metadata.namespace, ref, 'password');
  if (password === undefined) return `waiting for Secret ${ref}`;
  if (applied !== '') {
    w.openstack.users.set(o.spec.resource.name, password);
    w.notes.push({ by: 'k-orc', text: `updated the password of user ${o.spec.resource.name}` });
  }
  w.cluster.updateStatus(refOf(o), { ...o.status, resource: { ...(o.status?.resource ?? {}), appliedPasswordRef: ref } }, 'k-orc');
  return undefined;
}

function deleteInOpenStack(w: World, o: Obj): void {
  const id = o.status?.id;
  if (!id) return;
  if (o.kind === 'ApplicationCredential') {
    if (w.openstack.applicationCredentials.delete(id)) {
      w.openstack.revoked.push(id);
      w.notes.push({ by: 'k-orc', text: `revoked application credential ${id}` });
    }
  } else {
    if (o.kind === 'User' && o.spec.resource?.name) w.openstack.users.delete(o.spec.resource.name);
    if (o.kind === 'Project') w.openstack.projects.delete(o.spec.resource?.name ?? o.metadata.name);
    if (o.kind === 'Role') w.openstack.roles.delete(o.spec.resource?.name ?? o.metadata.name);
    if (o.kind === 'Region') w.openstack.regions.delete(id);
    if (o.kind === 'Endpoint') w.openstack.endpoints.delete(id);
    w.openstack.catalog.delete(id);
  }
}

/** K-ORC's hold on a Region an Endpoint names (endpoint/controller.go regionDependency: a deletion guard finalizer, managed or imported). */
const REGION_GUARD = 'openstack.k-orc.cloud/endpoint';

function korc(w: World): void {
  for (const o of w.cluster.list((x) => x.apiVersion === KORC_GROUP)) {
    const managed = o.spec.managementPolicy !== 'unmanaged';
    const authError = authenticate(w, o);
    if (o.kind === 'Region') {
      const named = w.cluster.list((e) => e.apiVersion === KORC_GROUP && e.kind === 'Endpoint' && e.metadata.namespace === o.metadata.namespace && e.spec?.resource?.regionRef === o.metadata.name).length > 0;
      if (named) w.cluster.addFinalizer(refOf(o), REGION_GUARD, 'k-orc');
      else if ((o.metadata.finalizers ?? []).includes(REGION_GUARD)) w.cluster.removeFinalizer(refOf(o), REGION_GUARD, 'k-orc');
      if (named && o.metadata.deletionTimestamp) continue;
    }
    if (o.metadata.deletionTimestamp) {
      // K-ORC authenticates before it deletes anything and reads the resource by its status id
      // before it looks at managementPolicy or onDelete (scope/provider.go NewProviderClient,
      // generic/reconciler/resource_actions.go DeleteResource, c22784ca): without Keystone no
      // object is released, detached or imported alike.
      // A terminal error does not gate deletion (reconcileDelete never checks ShouldReconcile); an
      // object without an id is looked up by name, which fails the same way when ambiguous.
      if (authError !== undefined) {
        orcStatus(w, o, false, 'TransientError', `cannot delete: ${authError}`);
      } else if (!managed || o.spec.managedOptions?.onDelete === 'detach') {
        w.cluster.removeFinalizer(refOf(o), FINALIZER, 'k-orc');
      } else if (!o.status?.id && w.korcAmbiguousAdoption.has(labelOf(o))) {
        orcStatus(w, o, false, 'InvalidConfiguration', AMBIGUOUS_ADOPTION);
      } else {
        deleteInOpenStack(w, o);
        w.cluster.removeFinalizer(refOf(o), FINALIZER, 'k-orc');
      }
      continue;
    }
    if (managed) w.cluster.addFinalizer(refOf(o), FINALIZER, 'k-orc');
    const current = w.cluster.get(refOf(o))!;
    // ShouldReconcile (generic/reconciler/controller.go, c22784ca): a terminal error at the current
    // generation is not reconciled again (no resync period here), so its status stays as it is.
    if (terminalError(current) !== undefined) continue;
    if (authError !== undefined) {
      orcStatus(w, current, false, 'TransientError', authError);
      continue;
    }
    if (!managed) {
      const imported = o.spec.import?.filter?.name ?? 'x';
      const named = o.kind === 'Project' ? w.openstack.projects : o.kind === 'Role' ? w.openstack.roles : o.kind === 'Region' ? w.openstack.regions : undefined;
      if (named && !named.has(imported)) {
        orcStatus(w, current, false, 'Progressing', 'Waiting for OpenStack resource to be created externally');
        continue;
      }
      // A region's id is its name (identity/v3/regions).
      const id = o.kind === 'Domain' ? 'default' : o.kind === 'Region' ? imported : o.kind === 'Project' || o.kind === 'Role' ? `${imported}-${o.kind.toLowerCase()}-id` : `${imported}-user-id`;
      orcStatus(w, current, true, 'Success', ORC_SUCCESS.imported, id);
      continue;
    }
    const terminal = w.korcTerminal.get(labelOf(o));
    if (terminal) {
      orcStatus(w, current, false, terminal.reason, terminal.message);
      continue;
    }
    if (!current.status?.id && w.korcAmbiguousAdoption.has(labelOf(o))) {
      orcStatus(w, current, false, 'InvalidConfiguration', AMBIGUOUS_ADOPTION);
      continue;
    }
    if (current.status?.id) {
      // A managed Region's description is asserted on every pass (region/actuator.go updateResource: absent reads as empty).
      if (current.kind === 'Region' && w.openstack.regions.get(current.status.id) !== (current.spec.resource?.description ?? '')) {
        w.openstack.regions.set(current.status.id, current.spec.resource?.description ?? '');
        w.notes.push({ by: 'k-orc', text: `described region ${current.status.id}` });
      }
      const wait = reconcilePassword(w, current);
      if (wait) orcStatus(w, w.cluster.get(refOf(o))!, false, 'Progressing', wait);
      else orcStatus(w, w.cluster.get(refOf(o))!, true, 'Success', ORC_SUCCESS.managed);
      continue;
    }
    const made = createInOpenStack(w, current);
    if (made.terminal) orcStatus(w, current, false, 'InvalidConfiguration', made.terminal);
    else if (made.id) {
      orcStatus(w, current, true, 'Success', ORC_SUCCESS.managed, made.id);
      if (current.kind === 'User') reconcilePassword(w, w.cluster.get(refOf(o))!);
    } else orcStatus(w, current, false, 'Progressing', made.wait!);
  }
}

/** The RabbitMQ cluster operator: AllReplicasReady (it writes no Ready condition) and observedGeneration. */
function rabbitmq(w: World): void {
  for (const o of w.cluster.list((x) => x.kind === 'RabbitmqCluster' && live(x))) {
    // The default user's Secret `<name>-default-user` (rabbitmq/cluster-operator @ 06cda8e8
    // internal/resource/default_user_secret.go: keys username, password, default_user.conf, host
    // `<name>.<ns>.svc` (api/v1beta1 ServiceSubDomain), port 5672, …), created once, before the
    // cluster reports ready.
    const ns = o.metadata.namespace;
    const secret = `${o.metadata.name}-default-user`;
    if (!w.cluster.get({ apiVersion: 'v1', kind: 'Secret', namespace: ns, name: secret })) {
      // The password as the operator makes it (erlang_cookie.go randomEncodedString: 24 random
      // bytes, base64url), here derived from the name: never a '/', which oslo.messaging 18.3.1
      // cannot carry (impl_rabbit _transform_transport_url re-quotes the decoded password with
      // '/' left safe, and kombu then reads it as the end of the host: found with the real bus).
      const values = { username: `sim-rabbit-user-${o.metadata.name}`, password: createHash('sha256').update(`rabbitmq/${ns}/${o.metadata.name}`).digest().subarray(0, 24).toString('base64url'), host: `${o.metadata.name}.${ns}.svc`, port: '5672', type: 'rabbitmq', provider: 'rabbitmq-cluster-operator' };
      w.cluster.create({ apiVersion: 'v1', kind: 'Secret', metadata: { name: secret, namespace: ns }, type: 'Opaque', data: Object.fromEntries(Object.entries(values).map(([k, v]) => [k, b64(v)])) }, 'rabbitmq-cluster-operator');
    }
    w.cluster.updateStatus(refOf(o), { ...rabbitmqStatusOf(o, !w.down.has(labelOf(o)), w.cluster.now()), defaultUser: { secretReference: { name: secret, namespace: ns, keys: { username: 'username', password: 'password', host: 'host', port: 'port' } } } }, 'rabbitmq-cluster-operator');
  }
}

/**
 * The OVN operator, for the OVNCentrals a platform team runs beside the ControlPlane (never one of
 * its children): Ready at its generation with its databases' internal addresses and the client
 * Secret (C5C3/cobaltcore docs/reference/ovn/ovn-central-crd.md §Status @ 1680aca9), unless down.
 */
function ovnCentrals(w: World): void {
  for (const o of w.cluster.list((x) => x.kind === 'OVNCentral' && live(x))) {
    w.cluster.updateStatus(refOf(o), ovnCentralStatusOf(o, !w.down.has(labelOf(o)), w.cluster.now()), 'ovn-operator');
  }
}

/** An OVNCentral's status: Ready (or not) with the northbound and southbound internal addresses and the client Secret. */
export function ovnCentralStatusOf(o: Obj, up: boolean, now: Date): Obj {
  const db = (port: number) => ({ internalDbAddress: `ssl:${o.metadata.name}-${port === 6641 ? 'nb' : 'sb'}.${o.metadata.namespace}.svc:${port}`, readyReplicas: up ? 3 : 0 });
  return {
    observedGeneration: o.metadata.generation,
    conditions: [condition(o.status, 'Ready', up, up ? 'AllReady' : 'NotAllReady', up ? 'OVN central is ready' : 'OVN central is down', now, o.metadata.generation)],
    northbound: db(6641),
    southbound: db(6642),
    clientSecretName: `${o.metadata.name}-client`,
  };
}

/** A RabbitmqCluster's status: AllReplicasReady (no Ready condition) and observedGeneration. */
export function rabbitmqStatusOf(o: Obj, up: boolean, now: Date): Obj {
  return {
    ...(o.status ?? {}),
    observedGeneration: o.metadata.generation,
    conditions: [condition(o.status, 'AllReplicasReady', up, up ? 'AllPodsAreReady' : 'NotAllReplicasReady', up ? `${o.spec.replicas ?? 1} replicas ready` : 'RabbitMQ is down', now)],
  };
}

/**
 * A service operator (one per SERVICES entry: Placement, Glance, …), modelled on what upstream's
 * service reconcilers wait for before they report Ready (the C5C3/cobaltcore operators' reconcilers):
 * each database's credential Secret, the MariaDB and Memcached it names, Keystone, its service
 * user authenticating with the password in its Secret (K-ORC created it with that password), and
 * every part attached to it (a part is Ready once its CR exists).
 */
function serviceOperator(d: Service): (w: World) => void {
  const by = `${d.name}-operator`;
  return (w) => {
    for (const k of d.partKinds) {
      for (const p of w.cluster.list((x) => x.kind === k.kind && live(x))) {
        const attached = w.cluster.get({ apiVersion: d.kind.apiVersion, kind: d.kind.kind, namespace: p.metadata.namespace, name: p.spec?.[k.ref]?.name });
        w.cluster.updateStatus(refOf(p), partStatusOf(p, d, !!attached, w.cluster.now()), by);
      }
    }
    for (const o of w.cluster.list((x) => x.kind === d.kind.kind && live(x))) {
      const ns = o.metadata.namespace;
      const missing: string[] = [];
      for (const block of d.databases) {
        const db = o.spec[block.field] ?? {};
        if (db.secretRef && secretValue(w, ns, db.secretRef.name, db.secretRef.key ?? 'password') === undefined) missing.push(`Secret ${db.secretRef.name}`);
      }
      // Every other Secret it names: the bus URL, the metadata shared secret (upstream's operators
      // wait for them: SecretsReady=False/WaitingForMessagingCredentials, WaitingForMetadataSharedSecret).
      for (const ref of [o.spec.messaging?.secretRef, o.spec.metadata?.sharedSecretRef]) {
        if (ref && secretValue(w, ns, ref.name, ref.key) === undefined) missing.push(`Secret ${ref.name} key ${ref.key}`);
      }
      const central = o.spec.ovn?.centralRef;
      if (central && !isReady(w.cluster.get({ apiVersion: 'ovn.openstack.c5c3.io/v1alpha1', kind: 'OVNCentral', namespace: central.namespace ?? ns, name: central.name }))) missing.push(`OVNCentral ${central.name} Ready`);
      for (const [k, ref] of [['MariaDB', o.spec.database?.clusterRef], ['Memcached', o.spec.cache?.clusterRef]] as const) {
        if (ref && !isReady(w.cluster.list((x) => x.kind === k && x.metadata.namespace === ns && x.metadata.name === ref.name)[0])) missing.push(`${k} ${ref.name} Ready`);
      }
      if (!w.cluster.list((k) => k.kind === 'Keystone' && k.metadata.namespace === ns).some(isReady)) missing.push('Keystone');
      // Its service user, and Neutron's notifier account for Nova, authenticate with their passwords.
      for (const user of [o.spec.serviceUser ?? {}, ...(o.spec.nova?.serviceUser ? [o.spec.nova.serviceUser] : [])]) {
        const password = secretValue(w, ns, user.secretRef?.name, user.secretRef?.key ?? 'password');
        if (password === undefined || w.openstack.users.get(user.username) !== password) missing.push(`service user ${user.username} to authenticate`);
      }
      for (const k of d.partKinds) {
        const attached = (p: Obj) => p.kind === k.kind && p.metadata.namespace === ns && p.spec?.[k.ref]?.name === o.metadata.name;
        if (!w.cluster.list((p) => attached(p) && isReady(p)).length) missing.push(`a Ready ${k.kind}`);
      }
      if (w.down.has(labelOf(o))) missing.push('its pods (down)');
      w.cluster.updateStatus(refOf(o), serviceStatusOf(o, missing, w.cluster.now()), by);
    }
  };
}

/** A service CR's status: Ready at its generation unless something is `missing`. */
export function serviceStatusOf(o: Obj, missing: string[], now: Date): Obj {
  const ready = missing.length === 0;
  const status: Obj = {
    ...(o.status ?? {}),
    observedGeneration: o.metadata.generation,
    conditions: [condition(o.status, 'Ready', ready, ready ? 'Ready' : 'NotReady', ready ? `${o.kind} is ready` : `waiting for ${missing.join(', ')}`, now, o.metadata.generation)],
  };
  if (ready) status.installedRelease = o.spec.openStackRelease;
  return status;
}

/** A service part's status (a GlanceBackend): Ready at its generation once its CR exists. */
export function partStatusOf(p: Obj, d: Service, attached: boolean, now: Date): Obj {
  const ref = d.partKinds.find((k) => k.kind === p.kind)?.ref ?? '';
  const cr = p.spec?.[ref]?.name;
  return {
    observedGeneration: p.metadata.generation,
    conditions: [condition(p.status, 'Ready', attached, attached ? 'Ready' : `WaitingFor${d.title}`, attached ? 'backend attached' : `waiting for ${d.kind.kind} ${cr}`, now, p.metadata.generation)],
  };
}

/**
 * The status each operator writes for `o` once everything it waits for is there, at `now` (K-ORC
 * with the OpenStack `id`); undefined for objects no operator writes a status to (Secrets,
 * ConfigMaps). The HTTP-level tests' world (test/support/world.ts) takes its healthy children
 * from here.
 */
export function healthyStatusOf(o: Obj, now: Date, id?: string): Obj | undefined {
  if (o.apiVersion === KORC_GROUP) {
    const status = orcStatusOf(o, true, 'Success', o.spec?.managementPolicy === 'unmanaged' ? ORC_SUCCESS.imported : ORC_SUCCESS.managed, now, id);
    // At rest K-ORC has applied the password the User names (reconcilePassword).
    const passwordRef = o.kind === 'User' && o.spec?.managementPolicy !== 'unmanaged' ? o.spec?.resource?.passwordRef : undefined;
    return passwordRef ? { ...status, resource: { ...(status.resource ?? {}), appliedPasswordRef: passwordRef } } : status;
  }
  switch (o.kind) {
    case 'MariaDB':
    case 'Memcached':
    case 'Keystone':
      return readyStatusOf(o, true, 'Ready', `${o.kind} is ready`, now);
    case 'ExternalSecret':
      return refreshedStatusOf(o, now);
    case 'PushSecret':
      return pushedStatusOf(o, now);
    case 'RabbitmqCluster':
      return rabbitmqStatusOf(o, true, now);
    case 'Backup':
      return backupStatusOf(o, 'succeeded', now);
    case 'OVNCentral':
      return ovnCentralStatusOf(o, true, now);
    default: {
      const svc = SERVICES.find((d) => d.kind.kind === o.kind);
      if (svc) return serviceStatusOf(o, [], now);
      const owner = SERVICES.find((d) => d.partKinds.some((k) => k.kind === o.kind));
      return owner ? partStatusOf(o, owner, true, now) : undefined;
    }
  }
}

/** The operators the model holds, in the order one pass runs them. */
export const OPERATORS = {
  infrastructure,
  'mariadb-backup': mariadbBackups,
  'external-secrets': externalSecrets,
  keystone: keystones,
  'k-orc': korc,
  rabbitmq,
  ovn: ovnCentrals,
  'job-controller': jobs,
  // One per service beside Keystone, in SERVICES order.
  ...(Object.fromEntries(SERVICES.map((d) => [d.name, serviceOperator(d)])) as Record<ServiceName, (w: World) => void>),
} as const;
export type OperatorName = keyof typeof OPERATORS;

/**
 * One pass of the operators over the cluster: every one, or those named (the e2e suite runs the
 * real External Secrets Operator and leaves the model's out).
 */
export function runOperators(w: World, only?: ReadonlySet<OperatorName>): void {
  for (const [name, run] of Object.entries(OPERATORS) as [OperatorName, (w: World) => void][]) {
    if (!only || only.has(name)) run(w);
  }
}

/**
 * A refresh that would write what the target Secret already holds changes nothing the hooks or
 * the operators can observe but the ExternalSecret's refreshTime, so the clock need not stop for it
 * (long scenarios such as `scheduled` would otherwise spend a round per refreshInterval). It still
 * happens in the next round that runs after it is due. PushSecrets' hourly re-pushes are left out
 * likewise: they push what OpenBao holds unless the hooks moved the PushSecret, which they do at
 * once.
 */
function refreshIsNoOp(w: World, es: Obj): boolean {
  const target = w.cluster.get({ apiVersion: 'v1', kind: 'Secret', namespace: es.metadata.namespace, name: es.spec.target?.name ?? es.metadata.name });
  if (!target) return false;
  const data: Record<string, string> = {};
  for (const d of es.spec.data ?? []) {
    const value = w.openbao.get(d.remoteRef.key)?.[d.remoteRef.property];
    if (value === undefined) return false;
    data[d.secretKey] = b64(value);
  }
  return JSON.stringify(Object.fromEntries(Object.keys(data).sort().map((k) => [k, data[k]]))) === JSON.stringify(target.data ?? {});
}

/** When ESO next refreshes an ExternalSecret on its own (ms since epoch), if any is synced. */
export function nextRefresh(w: World): number | undefined {
  const times = w.cluster
    .list((o) => o.kind === 'ExternalSecret' && live(o) && !Number.isNaN(timeOf(o.status?.refreshTime)) && !refreshIsNoOp(w, o))
    .map((o) => timeOf(o.status.refreshTime) + durationSeconds(o.spec.refreshInterval ?? '1h') * 1000 + 1000);
  return times.length > 0 ? Math.min(...times) : undefined;
}
