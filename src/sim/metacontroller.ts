// Metacontroller v4.17.2 as the hooks meet it (reference/metacontroller.md §1–§6), for one
// CompositeController and one DecoratorController read from metacontroller/: finalizer, observed
// children (controller ownerRef), customize rules cached per parent generation, the hook call
// (anything but 200 aborts the sync: nothing applied, no status), deletes before creates and
// updates, Terminating children never updated or recreated, AlreadyExists swallowed, claiming
// (a controlled child whose labels do not match the selector is released, a matching orphan is
// adopted; §1.4), the
// three-way merge with the last-applied annotation, InPlace updates, status replaced with
// observedGeneration injected, and `finalized` removing the finalizer before children are applied.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parse } from 'yaml';
import { KNOWN_KINDS, type KindInfo } from '../k8s/kinds.js';
import { Cluster, keyOf, labelOf, refOf, type ClusterOptions, type Obj, type ObjectRef } from './cluster.js';
import { merge } from './merge.js';
import { packageRoot } from '../package-root.js';

export const LAST_APPLIED = 'metacontroller.k8s.io/last-applied-configuration';
export const CONTROLLER_UID = 'controller-uid';
const SYSTEM_FIELDS = ['selfLink', 'uid', 'resourceVersion', 'generation', 'creationTimestamp', 'deletionTimestamp', 'deletionGracePeriodSeconds', 'managedFields'];

export interface HookAnswer {
  statusCode: number;
  body: Obj;
}
export type HookCaller = (path: string, body: Obj) => Promise<HookAnswer>;

/** One hook call, for the timeline and for captures. */
export interface HookCall {
  path: string;
  request: Obj;
  answer: HookAnswer;
  at: Date;
}

export class HookFailed extends Error {
  override name = 'HookFailed';
}

const METACONTROLLER_DIR = pathToFileURL(join(packageRoot(import.meta.url), 'metacontroller/'));

export function loadController(file: string): Obj {
  return parse(readFileSync(new URL(file, METACONTROLLER_DIR), 'utf8')) as Obj;
}

function kindOfRule(rule: { apiVersion: string; resource: string }): KindInfo {
  const kind = KNOWN_KINDS.find((k) => k.apiVersion === rule.apiVersion && k.resource === rule.resource);
  if (!kind) throw new Error(`unknown resource ${rule.apiVersion} ${rule.resource}`);
  return kind;
}

const CLUSTER_SCOPED = new Set(['ClusterSecretStore']);
const objectKey = (o: Obj) => (o.metadata.namespace ? `${o.metadata.namespace}/${o.metadata.name}` : o.metadata.name);

function matchesLabels(o: Obj, selector: Obj | undefined): boolean {
  if (!selector) return true;
  if (selector.matchExpressions) throw new Error('matchExpressions is not modelled');
  return Object.entries(selector.matchLabels ?? {}).every(([k, v]) => o.metadata.labels?.[k] === v);
}

abstract class Controller {
  private readonly customizeCache = new Map<string, Obj[]>();
  readonly calls: HookCall[] = [];

  constructor(
    protected readonly cluster: Cluster,
    readonly object: Obj,
    private readonly call: HookCaller,
  ) {}

  protected async hook(path: string, request: Obj): Promise<Obj> {
    const answer = await this.call(path, request);
    this.calls.push({ path, request, answer, at: this.cluster.now() });
    if (answer.statusCode !== 200) throw new HookFailed(`${path} answered ${answer.statusCode}: ${answer.body.message ?? ''}`);
    return answer.body;
  }

  protected async related(parent: Obj): Promise<Obj> {
    const hooks = this.object.spec.hooks;
    if (!hooks.customize) return {};
    const cacheKey = `${parent.metadata.uid}/${parent.metadata.generation}`;
    let rules = this.customizeCache.get(cacheKey);
    if (!rules) {
      const body = await this.hook(hooks.customize.webhook.path, { controller: this.object, parent });
      rules = (body.relatedResources ?? []) as Obj[];
      this.customizeCache.set(cacheKey, rules);
    }
    const out: Obj = {};
    for (const rule of rules) {
      const kind = kindOfRule(rule as { apiVersion: string; resource: string });
      const group = (out[kind.groupKey] ??= {});
      const ns: string | undefined = rule.namespace || undefined;
      for (const o of this.cluster.list((x) => x.apiVersion === kind.apiVersion && x.kind === kind.kind)) {
        if (!CLUSTER_SCOPED.has(o.kind) && ns !== undefined && o.metadata.namespace !== ns) continue;
        if (rule.names && !rule.names.includes(o.metadata.name)) continue;
        if (!matchesLabels(o, rule.labelSelector)) continue;
        group[objectKey(o)] = o;
      }
    }
    return out;
  }

  protected finalizerName(kind: string): string {
    return `metacontroller.io/${kind}-${this.object.metadata.name}`;
  }
}

/** The CompositeController of the ControlPlane (metacontroller/controlplane-compositecontroller.yaml). */
export class CompositeController extends Controller {
  private readonly childKinds: KindInfo[];
  /** Kinds with updateStrategy OnDelete: an observed child of one is never updated (Job). */
  private readonly onDelete: Set<string>;
  /** When the hook last asked to be called again (ms since epoch), per parent uid. */
  readonly resyncAt = new Map<string, number>();

  constructor(cluster: Cluster, object: Obj, call: HookCaller) {
    super(cluster, object, call);
    this.childKinds = (object.spec.childResources as Obj[]).map((r) => kindOfRule(r as { apiVersion: string; resource: string }));
    this.onDelete = new Set();
    for (const r of object.spec.childResources as Obj[]) {
      const method = r.updateStrategy?.method;
      if (method === 'OnDelete') this.onDelete.add(kindOfRule(r as { apiVersion: string; resource: string }).kind);
      else if (method !== 'InPlace') throw new Error(`only InPlace and OnDelete updates are modelled (${r.resource})`);
    }
  }

  get parentKind(): KindInfo {
    return kindOfRule(this.object.spec.parentResource);
  }

  private get finalizer(): string {
    return this.finalizerName('compositecontroller');
  }

  /** The selector of `generateSelector: true` (reference/metacontroller.md §1.1). */
  private matchesSelector(o: Obj, parent: Obj): boolean {
    return o.metadata.labels?.[CONTROLLER_UID] === parent.metadata.uid;
  }

  private ofChildKind(o: Obj, parent: Obj): boolean {
    return this.childKinds.some((k) => k.apiVersion === o.apiVersion && k.kind === o.kind) && o.metadata.namespace === parent.metadata.namespace;
  }

  /** The children a sync reports: controlled by the parent and matching its selector. */
  observedChildren(parent: Obj): Obj[] {
    return this.cluster.list(
      (o) =>
        this.ofChildKind(o, parent) &&
        this.matchesSelector(o, parent) &&
        (o.metadata.ownerReferences ?? []).some((r: Obj) => r.controller && r.uid === parent.metadata.uid),
    );
  }

  /**
   * ClaimChildren (§1.4): a child controlled by the parent whose labels do not match the
   * selector is released (its owner reference removed, not deleted, not reported); an orphan that
   * matches is adopted, unless it or the parent is being deleted.
   */
  private claimChildren(parent: Obj): void {
    const by = 'metacontroller';
    for (const o of this.cluster.list((x) => this.ofChildKind(x, parent))) {
      const refs: Obj[] = o.metadata.ownerReferences ?? [];
      const controlled = refs.some((r) => r.controller && r.uid === parent.metadata.uid);
      const orphan = !refs.some((r) => r.controller);
      if (controlled && !this.matchesSelector(o, parent)) {
        this.cluster.update({ ...o, metadata: { ...o.metadata, ownerReferences: refs.filter((r) => r.uid !== parent.metadata.uid) } }, `${by} (released)`);
      } else if (orphan && this.matchesSelector(o, parent) && !o.metadata.deletionTimestamp && !parent.metadata.deletionTimestamp) {
        const ref = { apiVersion: parent.apiVersion, kind: parent.kind, name: parent.metadata.name, uid: parent.metadata.uid, controller: true, blockOwnerDeletion: true };
        this.cluster.update({ ...o, metadata: { ...o.metadata, ownerReferences: [...refs, ref] } }, `${by} (adopted)`);
      }
    }
  }

  /** Paused controllers call no hook (Metacontroller not running, or not yet installed). */
  paused = false;

  /** One sync of one parent; throws HookFailed when the hook did not answer 200. */
  async reconcile(ref: ObjectRef): Promise<void> {
    const by = 'metacontroller';
    let parent = this.cluster.get(ref);
    if (!parent || this.paused) return;
    const hooks = this.object.spec.hooks;
    const deleting = !!parent.metadata.deletionTimestamp;
    if (hooks.finalize && !deleting) {
      this.cluster.addFinalizer(ref, this.finalizer, by);
      parent = this.cluster.get(ref)!;
    }
    this.claimChildren(parent);
    const observed = this.observedChildren(parent);
    const children: Obj = Object.fromEntries(this.childKinds.map((k) => [k.groupKey, {}]));
    for (const o of observed) children[`${o.kind}.${o.apiVersion}`][objectKey(o)] = o;
    const related = await this.related(parent);
    const finalizing = deleting && !!hooks.finalize;
    const path = finalizing ? hooks.finalize.webhook.path : hooks.sync.webhook.path;
    const response = await this.hook(path, { controller: this.object, parent, children, related, finalizing });

    if (typeof response.resyncAfterSeconds === 'number' && response.resyncAfterSeconds > 0) {
      this.resyncAt.set(parent.metadata.uid, this.cluster.now().getTime() + response.resyncAfterSeconds * 1000);
    }
    if (response.finalized) this.cluster.removeFinalizer(ref, this.finalizer, by);
    const current = this.cluster.get(ref);
    const gcFinalizer = (current?.metadata.finalizers ?? []).some((f: string) => f === 'foregroundDeletion' || f === 'orphan');
    const shouldFinalize = !!current && (current.metadata.finalizers ?? []).includes(this.finalizer) && !gcFinalizer;
    if (!deleting || shouldFinalize) manageChildren(this.cluster, parent, observed, (response.children ?? []) as Obj[], 'metacontroller', this.onDelete);
    const status = { ...(response.status ?? {}), observedGeneration: parent.metadata.generation };
    this.cluster.updateStatus(ref, status, by);
  }
}

/**
 * What the CompositeController does with the children of a sync answer (pkg/controller/common
 * manageChildren; reference/metacontroller.md §1.3, §4): the namespace defaulted, the controller-uid
 * label set, observed children no longer desired deleted, new ones created with the last-applied
 * annotation and the parent's controller reference (AlreadyExists swallowed), others updated InPlace
 * by the three-way merge, Terminating ones left alone. The API server's part (uids, generation,
 * resourceVersion, finalizers) is `cluster`'s.
 */
export function manageChildren(cluster: Cluster, parent: Obj, observed: Obj[], desiredList: Obj[], by = 'metacontroller', onDelete: ReadonlySet<string> = new Set()): void {
  const desired = desiredList.map((d) => {
    const c = structuredClone(d);
    c.metadata.namespace ||= parent.metadata.namespace;
    c.metadata.labels = { ...(c.metadata.labels ?? {}), [CONTROLLER_UID]: parent.metadata.uid };
    delete c.metadata.annotations?.[LAST_APPLIED];
    return c;
  });
  const wanted = new Set(desired.map((d) => keyOf(refOf(d))));
  for (const o of observed) {
    if (!wanted.has(keyOf(refOf(o))) && !o.metadata.deletionTimestamp) cluster.delete(refOf(o), by);
  }
  const observedByKey = new Map(observed.map((o) => [keyOf(refOf(o)), o]));
  for (const d of desired) {
    const live = observedByKey.get(keyOf(refOf(d)));
    const annotated = (o: Obj) => {
      o.metadata.annotations = { ...(o.metadata.annotations ?? {}), [LAST_APPLIED]: JSON.stringify(d) };
      return o;
    };
    if (!live) {
      const create = annotated(structuredClone(d));
      create.metadata.ownerReferences = [
        ...(create.metadata.ownerReferences ?? []),
        { apiVersion: parent.apiVersion, kind: parent.kind, name: parent.metadata.name, uid: parent.metadata.uid, controller: true, blockOwnerDeletion: true },
      ];
      if (!cluster.create(create, by)) cluster.changes.push({ verb: 'updated', object: `${labelOf(d)} (AlreadyExists, swallowed)`, by });
      continue;
    }
    // OnDelete (pkg/controller/common updateStrategy): an existing child is left as it is.
    if (live.metadata.deletionTimestamp || onDelete.has(live.kind)) continue;
    const last = live.metadata.annotations?.[LAST_APPLIED];
    const merged = merge(live, last ? JSON.parse(last) : undefined, d) as Obj;
    for (const field of SYSTEM_FIELDS) {
      if (live.metadata[field] === undefined) delete merged.metadata[field];
      else merged.metadata[field] = live.metadata[field];
    }
    if (live.status === undefined) delete merged.status;
    else merged.status = live.status;
    cluster.update(annotated(merged), by);
  }
}

/** What the API server holds of a parent's children after one `manageChildren`, outside a simulation. */
export interface AppliedChildren {
  /** The live object of every desired child, in the order desired. */
  desired: Obj[];
  /** Observed children not desired that are still there (Terminating: finalizers hold them). */
  remaining: Obj[];
}

/**
 * `manageChildren` on an API server holding only `observed`, as a function: the HTTP-level tests
 * (test/support/world.ts) apply a sync answer with it. `server` sets the API server's clock and the
 * uids it gives; nothing outside the returned objects is read or kept.
 */
export function applyChildren(parent: Obj, observed: Obj[], desired: Obj[], server: ClusterOptions & { now: () => Date }): AppliedChildren {
  const cluster = new Cluster(server.now, server);
  for (const o of observed) cluster.load(o);
  manageChildren(cluster, parent, observed, desired);
  const live = new Map(cluster.release().map((o) => [keyOf(refOf(o)), o]));
  const keys = desired.map((d) => keyOf({ ...refOf(d), namespace: d.metadata.namespace || parent.metadata.namespace }));
  const wanted = new Set(keys);
  return {
    desired: keys.map((k) => live.get(k)!),
    remaining: observed.map((o) => keyOf(refOf(o))).filter((k) => !wanted.has(k) && live.has(k)).map((k) => live.get(k)!),
  };
}

/** The DecoratorController of CredentialRotations (no attachments): labels, annotations, status. */
export class DecoratorController extends Controller {
  get targetKinds(): KindInfo[] {
    return (this.object.spec.resources as Obj[]).map((r) => kindOfRule(r as { apiVersion: string; resource: string }));
  }

  async reconcile(ref: ObjectRef): Promise<void> {
    const target = this.cluster.get(ref);
    if (!target) return;
    // Without a finalize hook a deleting target still gets sync calls (nothing holds it).
    const hooks = this.object.spec.hooks;
    const related = await this.related(target);
    const response = await this.hook(hooks.sync.webhook.path, { controller: this.object, object: target, attachments: {}, related, finalizing: false });
    const next = structuredClone(target);
    for (const field of ['labels', 'annotations'] as const) {
      for (const [k, v] of Object.entries((response[field] ?? {}) as Record<string, string | null>)) {
        next.metadata[field] ??= {};
        if (v === null) delete next.metadata[field][k];
        else next.metadata[field][k] = v;
      }
    }
    if (response.status !== null && response.status !== undefined) this.cluster.updateStatus(ref, response.status, 'metacontroller');
    const fresh = this.cluster.get(ref);
    if (fresh) this.cluster.update({ ...fresh, metadata: { ...fresh.metadata, labels: next.metadata.labels, annotations: next.metadata.annotations } }, 'metacontroller');
  }
}
