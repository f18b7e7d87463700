// What happened, for the assertions: every change of the watched kinds as the API server reports
// it (in etcd revision order, so "gone before" is exact), and the JSON lines of Metacontroller's
// and the service's logs since a mark.
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
  at: number;
}

export class Recorder {
  readonly events: Event[] = [];
  readonly errors: string[] = [];
  private stops: (() => void)[] = [];

  constructor(private readonly kube: Kube) {}

  async watch(kinds: readonly { apiVersion: string; kind: string }[]): Promise<void> {
    for (const k of kinds) {
      const { resourceVersion } = await this.kube.listWithVersion(k.apiVersion, k.kind);
      this.stops.push(
        this.kube.watch(
          k.apiVersion,
          k.kind,
          resourceVersion,
          (e) => {
            const o: Obj = e.object;
            this.events.push({
              type: e.type as Event['type'],
              kind: k.kind,
              namespace: o.metadata?.namespace ?? '',
              name: o.metadata?.name,
              uid: o.metadata?.uid,
              rv: Number(o.metadata?.resourceVersion),
              terminating: e.type === 'DELETED' || !!o.metadata?.deletionTimestamp,
              generation: o.metadata?.generation,
              detach: o.spec?.managedOptions?.onDelete === 'detach',
              ...(typeof o.status?.updatePhase === 'string' ? { updatePhase: o.status.updatePhase } : {}),
              ...(typeof o.status?.id === 'string' ? { orcId: o.status.id } : {}),
              at: Date.now(),
            });
          },
          (err) => this.errors.push(err.message),
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
