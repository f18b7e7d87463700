// The simulated API server: objects by kind/namespace/name, uids, resourceVersion and generation
// as the API server keeps them, finalizers, deletion and background garbage collection.
export type Obj = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

export interface ObjectRef {
  apiVersion: string;
  kind: string;
  namespace?: string;
  name: string;
}

export const keyOf = (o: ObjectRef) => `${o.apiVersion}|${o.kind}|${o.namespace ?? ''}|${o.name}`;
export const refOf = (o: Obj): ObjectRef => ({ apiVersion: o.apiVersion, kind: o.kind, namespace: o.metadata.namespace, name: o.metadata.name });
export const labelOf = (o: Obj) => `${o.kind}/${o.metadata.name}`;

/** A change the API server accepted, for the timeline. */
export interface Change {
  verb: 'created' | 'updated' | 'status' | 'deleting' | 'deleted';
  object: string;
  by: string;
}

/** Kinds without a spec/status split: every write counts as a generation change for them. */
const NO_GENERATION = new Set(['Secret', 'ConfigMap']);

export interface ClusterOptions {
  /**
   * The uid a created object gets; by default `uid-0001`, `uid-0002`, … in order of creation. The
   * HTTP-level tests' world (test/support/world.ts) names them after the object instead.
   */
  uid?: (obj: Obj) => string;
}

export class Cluster {
  private readonly objects = new Map<string, Obj>();
  private uidCounter = 0;
  private version = 0;
  readonly changes: Change[] = [];
  private readonly newUid: (obj: Obj) => string;

  constructor(
    public now: () => Date,
    options: ClusterOptions = {},
  ) {
    this.newUid = options.uid ?? (() => `uid-${String(++this.uidCounter).padStart(4, '0')}`);
  }

  get(ref: ObjectRef): Obj | undefined {
    const o = this.objects.get(keyOf(ref));
    return o ? structuredClone(o) : undefined;
  }

  list(filter: (o: Obj) => boolean = () => true): Obj[] {
    return [...this.objects.values()].filter(filter).map((o) => structuredClone(o));
  }

  byUid(uid: string): Obj | undefined {
    return [...this.objects.values()].find((o) => o.metadata.uid === uid);
  }

  /**
   * Put an object in exactly as given (uid, resourceVersion and all): one read from a real API
   * server. Later writes get a resourceVersion above every one loaded, as the API server's
   * counter is above every version it handed out.
   */
  load(input: Obj): void {
    this.objects.set(keyOf(refOf(input)), structuredClone(input));
    const rv = Number(input.metadata?.resourceVersion);
    if (Number.isSafeInteger(rv) && rv > this.version) this.version = rv;
  }

  /** Create; false (nothing written) when the name is taken, as AlreadyExists. */
  create(input: Obj, by: string): boolean {
    const key = keyOf(refOf(input));
    if (this.objects.has(key)) return false;
    const obj = structuredClone(input);
    obj.metadata.uid = this.newUid(obj);
    obj.metadata.resourceVersion = String(++this.version);
    obj.metadata.creationTimestamp = this.now().toISOString();
    if (!NO_GENERATION.has(obj.kind)) obj.metadata.generation = 1;
    delete obj.metadata.deletionTimestamp;
    this.objects.set(key, obj);
    this.changes.push({ verb: 'created', object: labelOf(obj), by });
    return true;
  }

  /** Update everything but status; false when unchanged or gone. Generation moves with the spec. */
  update(input: Obj, by: string): boolean {
    const key = keyOf(refOf(input));
    const live = this.objects.get(key);
    if (!live) return false;
    // Compared before it is copied: most updates change nothing.
    const next: Obj = { ...input, metadata: { ...input.metadata } };
    for (const field of ['uid', 'creationTimestamp', 'deletionTimestamp', 'generation', 'resourceVersion'] as const) {
      if (live.metadata[field] === undefined) delete next.metadata[field];
      else next.metadata[field] = live.metadata[field];
    }
    if (live.status === undefined) delete next.status;
    else next.status = live.status;
    if (JSON.stringify(next) === JSON.stringify(live)) return false;
    const { metadata: _a, status: _b, ...restNext } = next;
    const { metadata: _c, status: _d, ...restLive } = live;
    const stored = structuredClone(next);
    if (live.metadata.generation !== undefined && JSON.stringify(restNext) !== JSON.stringify(restLive)) {
      stored.metadata.generation = live.metadata.generation + 1;
    }
    stored.metadata.resourceVersion = String(++this.version);
    this.objects.set(key, stored);
    this.changes.push({ verb: 'updated', object: labelOf(stored), by });
    if (live.metadata.deletionTimestamp && (stored.metadata.finalizers ?? []).length === 0) this.remove(key, by);
    return true;
  }

  /** Replace the status (the /status subresource); false when unchanged or gone. */
  updateStatus(ref: ObjectRef, status: Obj | undefined, by: string): boolean {
    const key = keyOf(ref);
    const live = this.objects.get(key);
    if (!live) return false;
    if (JSON.stringify(live.status) === JSON.stringify(status)) return false;
    if (status === undefined) delete live.status;
    else live.status = structuredClone(status);
    live.metadata.resourceVersion = String(++this.version);
    this.changes.push({ verb: 'status', object: labelOf(live), by });
    return true;
  }

  /** Delete: gone at once, or Terminating while finalizers remain. */
  delete(ref: ObjectRef, by: string): void {
    const key = keyOf(ref);
    const live = this.objects.get(key);
    if (!live || live.metadata.deletionTimestamp) return;
    if ((live.metadata.finalizers ?? []).length === 0) {
      this.remove(key, by);
      return;
    }
    live.metadata.deletionTimestamp = this.now().toISOString();
    live.metadata.resourceVersion = String(++this.version);
    this.changes.push({ verb: 'deleting', object: labelOf(live), by });
  }

  /** Remove one finalizer (the owner of it is done); the object goes once none is left. */
  removeFinalizer(ref: ObjectRef, finalizer: string, by: string): void {
    const live = this.get(ref);
    if (!live || !(live.metadata.finalizers ?? []).includes(finalizer)) return;
    live.metadata.finalizers = live.metadata.finalizers.filter((f: string) => f !== finalizer);
    if (live.metadata.finalizers.length === 0) delete live.metadata.finalizers;
    this.update(live, by);
  }

  addFinalizer(ref: ObjectRef, finalizer: string, by: string): void {
    const live = this.get(ref);
    if (!live || live.metadata.deletionTimestamp || (live.metadata.finalizers ?? []).includes(finalizer)) return;
    live.metadata.finalizers = [...(live.metadata.finalizers ?? []), finalizer];
    this.update(live, by);
  }

  private remove(key: string, by: string): void {
    const live = this.objects.get(key)!;
    this.objects.delete(key);
    this.changes.push({ verb: 'deleted', object: labelOf(live), by });
  }

  /** Background garbage collection: dependents of an owner that is gone are deleted. */
  collectGarbage(): void {
    const uids = new Set([...this.objects.values()].map((o) => o.metadata.uid));
    for (const o of [...this.objects.values()]) {
      const owners: Obj[] = o.metadata.ownerReferences ?? [];
      if (owners.length > 0 && owners.every((r) => !uids.has(r.uid))) this.delete(refOf(o), 'garbage collector');
    }
  }

  /** Every object stored, handed over as it is (no copies) and forgotten: for a cluster used once and dropped. */
  release(): Obj[] {
    const out = [...this.objects.values()];
    this.objects.clear();
    return out;
  }

  /** A fingerprint of everything stored (a round that leaves it unchanged changed nothing). */
  fingerprint(): string {
    return String(this.version);
  }
}
