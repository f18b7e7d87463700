// The aggregation itself, a pure function of the spec and the observed source Secrets: the merged
// `data` (values copied as the API server stores them, base64), or why nothing may be published
// yet. Secret values never leave this module except inside `data`: every finding names Secrets
// and keys only.
import { isTerminating, type KubeObject } from '../k8s/observed.js';
import { isObject } from '../k8s/read.js';
import type { Source } from './spec.js';

/** The API server's limit on a Secret: the sum of its keys' and values' lengths (MaxSecretSize). */
export const MAX_SECRET_BYTES = 1024 * 1024;

export interface Conflict {
  key: string;
  /** Indexes into spec.sources of every source that provides the key, in order. */
  sources: number[];
}

export interface Aggregation {
  /** The merged data, keys sorted. Meaningful only when nothing below is set. */
  data: Record<string, string>;
  /** What keeps a source from being complete: "Secret a does not exist", "Secret b has no key x". */
  missing: string[];
  conflicts: Conflict[];
  /** Bytes the target would hold (keys + decoded values), as the API server counts them. */
  bytes: number;
}

export function aggregate(sources: readonly Source[], lookup: (name: string) => KubeObject | undefined): Aggregation {
  const missing: string[] = [];
  const providers = new Map<string, number[]>();
  const values = new Map<string, string>();
  sources.forEach((source, index) => {
    const secret = lookup(source.name);
    if (!secret) return void missing.push(`Secret ${source.name} does not exist`);
    if (isTerminating(secret)) return void missing.push(`Secret ${source.name} is being deleted`);
    const data = stringValues(secret.data);
    const keys = source.keys ?? [...data.keys()];
    if (source.keys === undefined && keys.length === 0) return void missing.push(`Secret ${source.name} has no data`);
    const absent = keys.filter((k) => !data.has(k));
    if (absent.length > 0) missing.push(`Secret ${source.name} has no ${absent.length === 1 ? 'key' : 'keys'} ${absent.join(', ')}`);
    for (const key of keys) {
      const value = data.get(key);
      if (value === undefined) continue;
      const list = providers.get(key) ?? [];
      list.push(index);
      providers.set(key, list);
      if (list.length === 1) values.set(key, value);
    }
  });
  const conflicts = [...providers.entries()].filter(([, list]) => list.length > 1).map(([key, list]) => ({ key, sources: list }));
  conflicts.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  const keys = [...values.keys()].sort();
  const bytes = keys.reduce((sum, key) => sum + key.length + decodedLength(values.get(key)!), 0);
  // fromEntries defines own properties, so even a key named __proto__ stays a key.
  return { data: Object.fromEntries(keys.map((k) => [k, values.get(k)!])), missing, conflicts, bytes };
}

/** A Secret's `data` entries whose values are strings (anything else reads as absent). */
function stringValues(data: unknown): Map<string, string> {
  const out = new Map<string, string>();
  if (isObject(data)) for (const [k, v] of Object.entries(data)) if (typeof v === 'string') out.set(k, v);
  return out;
}

/** Length in bytes of the value a base64 string encodes. */
function decodedLength(b64: string): number {
  const padding = b64.endsWith('==') ? 2 : b64.endsWith('=') ? 1 : 0;
  return Math.floor((b64.length * 3) / 4) - padding;
}
