// The observed children and related objects of a hook request, indexed by identity.
// Metacontroller's inner keys differ between hook versions (name vs namespace/name), so the
// index is built from the objects themselves, never from the keys (docs/architecture.md §1.4). A namespaced
// object that does not say its namespace (a v1-style payload trimmed by hand) is in the
// parent's, as Metacontroller's namespace defaulting has it.
import { isObject, stringAt } from './read.js';
import { CLUSTER_SCOPED_KINDS, type KindInfo } from './kinds.js';
import { findCondition, isConditionTrue } from './conditions.js';
import { parseBounded } from './json-depth.js';
import { deepFreeze } from '../memo.js';

export const LAST_APPLIED_ANNOTATION = 'metacontroller.k8s.io/last-applied-configuration';

export type KubeObject = Record<string, unknown> & {
  apiVersion: string;
  kind: string;
  metadata: Record<string, unknown> & { name: string; namespace?: string };
};

/** Identity of an object as Metacontroller matches desired to observed: GVK + namespace/name. */
export function identity(obj: { apiVersion: string; kind: string; metadata: { name: string; namespace?: string } }): string {
  return `${obj.apiVersion}|${obj.kind}|${obj.metadata.namespace ?? ''}|${obj.metadata.name}`;
}

export class ObjectIndex {
  private readonly byId = new Map<string, KubeObject>();
  /** The same objects by `apiVersion|kind` (ofKind without a scan of everything). */
  private readonly byKind = new Map<string, Map<string, KubeObject>>();

  constructor(map: unknown, defaultNamespace?: string) {
    if (!isObject(map)) return;
    for (const group of Object.values(map)) {
      if (!isObject(group)) continue;
      for (const obj of Object.values(group)) {
        if (!isKubeObject(obj)) continue;
        const placed =
          defaultNamespace && !obj.metadata.namespace && !CLUSTER_SCOPED_KINDS.has(obj.kind)
            ? { ...obj, metadata: { ...obj.metadata, namespace: defaultNamespace } }
            : obj;
        const id = identity(placed);
        this.byId.set(id, placed);
        const kindKey = `${placed.apiVersion}|${placed.kind}`;
        let ofKind = this.byKind.get(kindKey);
        if (!ofKind) this.byKind.set(kindKey, (ofKind = new Map()));
        ofKind.set(id, placed);
      }
    }
  }

  get(kind: KindInfo, namespace: string | undefined, name: string): KubeObject | undefined {
    return this.byId.get(`${kind.apiVersion}|${kind.kind}|${namespace ?? ''}|${name}`);
  }

  getById(id: string): KubeObject | undefined {
    return this.byId.get(id);
  }

  /** Every object of one kind. */
  ofKind(kind: KindInfo): KubeObject[] {
    const ofKind = this.byKind.get(`${kind.apiVersion}|${kind.kind}`);
    return ofKind ? [...ofKind.values()] : [];
  }

  all(): KubeObject[] {
    return [...this.byId.values()];
  }

  /** Every object's identity (as identity() computes it), in the order of all(). */
  ids(): string[] {
    return [...this.byId.keys()];
  }

  /** Every object with its identity, in the order of all(). */
  entries(): [string, KubeObject][] {
    return [...this.byId.entries()];
  }
}

function isKubeObject(obj: unknown): obj is KubeObject {
  return (
    isObject(obj) &&
    typeof obj.apiVersion === 'string' &&
    typeof obj.kind === 'string' &&
    isObject(obj.metadata) &&
    typeof obj.metadata.name === 'string'
  );
}

/**
 * The annotation of each observed object as parsed, for as long as the object lives (its request):
 * a call reads one child's annotation in several places (the stages, keepObserved, finalize), and
 * each read must not parse another copy (a request of dense annotations held one copy per read and
 * ran out of heap). The parsed object goes into the answer as it is, shared by those reads, so it is
 * frozen through.
 */
const parsedOf = new WeakMap<KubeObject, { readonly text: string; readonly parsed: unknown }>();

/** The object as we last applied it (the last-applied annotation), if readable. */
export function lastApplied(obj: KubeObject): KubeObject | undefined {
  const raw = stringAt(obj, 'metadata', 'annotations', LAST_APPLIED_ANNOTATION);
  if (raw === undefined) return undefined;
  let seen = parsedOf.get(obj);
  if (seen?.text !== raw) {
    // Bounded like a request body (json-depth.ts): deeper reads as unreadable, never a stack overflow.
    seen = { text: raw, parsed: deepFreeze(parseBounded(raw)) };
    parsedOf.set(obj, seen);
  }
  const parsed = seen.parsed;
  return isKubeObject(parsed) && identity(parsed) === identity(obj) ? parsed : undefined;
}

/**
 * What to return for an observed child that must stay exactly as it is: its last-applied
 * content, or (no readable annotation: adopted, restored, or applied another way) its observed
 * content without status and without the metadata others write (uid, versions, timestamps,
 * ownerReferences, finalizers, managedFields). That changes nothing on the live object, stays a
 * complete object its CRD admits, and, unlike a bare identity, cannot make a server-side apply
 * drop the fields it owned.
 */
export function keepAsIs(obj: KubeObject): KubeObject {
  const applied = lastApplied(obj);
  if (applied) return applied;
  // A shallow copy: the answer is only serialised, never changed, so the object's content is
  // shared with the request instead of cloned (a large observed child would double in memory).
  const { status: _status, metadata, ...rest } = obj;
  const kept: Record<string, unknown> = { name: metadata.name };
  if (metadata.namespace) kept.namespace = metadata.namespace;
  if (isObject(metadata.labels)) kept.labels = metadata.labels;
  if (isObject(metadata.annotations)) {
    const { [LAST_APPLIED_ANNOTATION]: _ignored, ...annotations } = metadata.annotations;
    if (Object.keys(annotations).length > 0) kept.annotations = annotations;
  }
  return { ...rest, metadata: kept } as KubeObject;
}

export function isTerminating(obj: unknown): boolean {
  return stringAt(obj, 'metadata', 'deletionTimestamp') !== undefined;
}

/** Ready=True and not being deleted (a Terminating child never counts as healthy). */
export function isReady(obj: unknown): boolean {
  return obj !== undefined && !isTerminating(obj) && isConditionTrue(obj, 'Ready');
}

/** Why a child is not ready, for condition messages: absent, being deleted, or its own words. */
export function notReadyDetail(label: string, obj: KubeObject | undefined): string {
  if (!obj) return `${label} is being created`;
  if (isTerminating(obj)) return `${label} is being deleted`;
  const ready = findCondition(obj, 'Ready');
  const reason = typeof ready?.reason === 'string' && ready.reason ? ` (${ready.reason})` : '';
  const message = typeof ready?.message === 'string' && ready.message ? `: ${ready.message}` : '';
  return `${label} is not Ready yet${reason}${message}`;
}
