// What happened, for the assertions: every change of the watched kinds as the API server reports
// it (in etcd revision order, so "gone before" is exact), and the JSON lines of Metacontroller's
// and the service's logs since a mark.
import { createHash } from 'node:crypto';
import { readFileSync, statSync, existsSync, readdirSync } from 'node:fs';
import type { Obj } from '../src/sim/cluster.js';
import type { Kube } from './kube.js';

export interface Event {
  type: 'ADDED' | 'MODIFIED' | 'DELETED';
  kind: string;
  namespace: string;
  name: string;
  uid: string;
  rv: number;
  /** The object carried a deletionTimestamp (Terminating) or was deleted. */
  terminating: boolean;
  generation: number | undefined;
  /** The object carried `spec.managedOptions.onDelete: detach` (K-ORC). */
  detach: boolean;
  /** A ControlPlane's status.updatePhase (release rollouts); every status write is an event. */
  updatePhase?: string;
  /** A K-ORC object's status.id: its resource in OpenStack. */
  orcId?: string;
  /** The uid of its controller (owner reference with `controller: true`), if any. */
  owner?: string;
  /**
   * SHA-256 of what a writer other than the object's operator changes: everything but `status`
   * and the server-written metadata (resourceVersion, generation, managedFields, timestamps). Two
   * events of one object with different content are an update of the object, not of its status.
   */
  content: string;
  at: number;
}

const SERVER_WRITTEN = ['resourceVersion', 'generation', 'managedFields', 'creationTimestamp', 'deletionTimestamp', 'deletionGracePeriodSeconds', 'uid', 'selfLink'];

/** What `Event.content` hashes: the object without its status and the server-written metadata. */
export function contentOf(o: Obj): string {
  const metadata = Object.fromEntries(Object.entries(o.metadata ?? {}).filter(([k]) => !SERVER_WRITTEN.includes(k)));
  const rest = Object.fromEntries(Object.entries(o).filter(([k]) => k !== 'status' && k !== 'metadata'));
  return createHash('sha256').update(stableJson({ ...rest, metadata })).digest('hex');
}

function stableJson(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(stableJson).join(',')}]`;
  if (v && typeof v === 'object') return `{${Object.keys(v).sort().map((k) => `${JSON.stringify(k)}:${stableJson((v as Obj)[k])}`).join(',')}}`;
  return JSON.stringify(v);
}

export class Recorder {
  readonly events: Event[] = [];
  readonly errors: string[] = [];
  private stops: (() => void)[] = [];

  constructor(private readonly kube: Kube) {}

  async watch(kinds: readonly { apiVersion: string; kind: string }[]): Promise<void> {
    for (const k of kinds) {
      const { items, resourceVersion } = await this.kube.listWithVersion(k.apiVersion, k.kind);
      // The last event of each object of this kind (the listed ones as they were at the start),
      // so a relist after the API server's restart (kube.ts watch) records what changed meanwhile.
      const last = new Map<string, Event>(items.map((o) => [String(o.metadata?.uid), eventOf('ADDED', k.kind, o)]));
      const push = (e: Event) => {
        this.events.push(e);
        last.set(e.uid, e);
      };
      this.stops.push(
        this.kube.watch(
          k.apiVersion,
          k.kind,
          resourceVersion,
          (e) => push(eventOf(e.type as Event['type'], k.kind, e.object)),
          (err) => this.errors.push(err.message),
          (listed) => {
            const now = new Set<string>();
            for (const o of listed) {
              const uid = String(o.metadata?.uid);
              now.add(uid);
              const prev = last.get(uid);
              if (!prev || prev.type === 'DELETED') push(eventOf('ADDED', k.kind, o));
              else if (prev.rv !== Number(o.metadata?.resourceVersion)) push(eventOf('MODIFIED', k.kind, o));
            }
            for (const [uid, prev] of last) if (!now.has(uid) && prev.type !== 'DELETED') push({ ...prev, type: 'DELETED', terminating: true, at: Date.now() });
          },
        ),
      );
    }
  }

  stop(): void {
    for (const s of this.stops) s();
  }

  since(mark: number, filter: (e: Event) => boolean = () => true): Event[] {
    return this.events.filter((e) => e.at >= mark && filter(e));
  }

  /**
   * The updates since `mark` of objects `filter` picks: MODIFIED events whose content
   * (`Event.content`) differs from the object's event before it, status writes left out.
   */
  updates(mark: number, filter: (e: Event) => boolean = () => true): Event[] {
    const last = new Map<string, string>();
    const out: Event[] = [];
    for (const e of this.events) {
      const before = last.get(e.uid);
      last.set(e.uid, e.content);
      if (e.at >= mark && e.type === 'MODIFIED' && before !== undefined && before !== e.content && filter(e)) out.push(e);
    }
    return out;
  }
}

const controllerOf = (o: Obj): string | undefined => ((o.metadata?.ownerReferences ?? []) as Obj[]).find((r) => r.controller)?.uid;

function eventOf(type: Event['type'], kind: string, o: Obj): Event {
  const owner = controllerOf(o);
  return {
    type,
    kind,
    namespace: o.metadata?.namespace ?? '',
    name: o.metadata?.name,
    uid: o.metadata?.uid,
    rv: Number(o.metadata?.resourceVersion),
    terminating: type === 'DELETED' || !!o.metadata?.deletionTimestamp,
    generation: o.metadata?.generation,
    detach: o.spec?.managedOptions?.onDelete === 'detach',
    ...(typeof o.status?.updatePhase === 'string' ? { updatePhase: o.status.updatePhase } : {}),
    ...(typeof o.status?.id === 'string' ? { orcId: o.status.id } : {}),
    ...(owner ? { owner } : {}),
    content: contentOf(o),
    at: Date.now(),
  };
}

/** A log file read from a byte offset on: one mark per phase. */
export class LogView {
  constructor(readonly file: string) {}

  mark(): number {
    return existsSync(this.file) ? statSync(this.file).size : 0;
  }

  lines(from = 0): string[] {
    if (!existsSync(this.file)) return [];
    return readFileSync(this.file).subarray(from).toString('utf8').split('\n').filter(Boolean);
  }

  /** The JSON lines since `from` (Metacontroller's zap and the service's pino both write JSON). */
  json(from = 0): Obj[] {
    return this.lines(from).flatMap((l) => {
      try {
        return [JSON.parse(l) as Obj];
      } catch {
        return [];
      }
    });
  }
}

/** Capture files (one per hook call) written since a set of names was taken. */
export function captureFiles(dir: string): string[] {
  return existsSync(dir) ? readdirSync(dir).sort() : [];
}
