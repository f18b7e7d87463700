// What the fleet scenario measures and prints: Prometheus text read from the service's and
// Metacontroller's /metrics, quantiles estimated from the difference of two histogram scrapes,
// and a process's CPU seconds from /proc. Figures only: no scenario passes or fails on a timing.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** The samples of a Prometheus text exposition (comments skipped). */
export function parseProm(text: string): Sample[] {
  const out: Sample[] = [];
  for (const line of text.split('\n')) {
    if (!line || line.startsWith('#')) continue;
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)/.exec(line);
    if (!m) continue;
    const labels: Record<string, string> = {};
    for (const l of (m[2] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)) labels[l[1]!] = l[2]!.replace(/\\(.)/g, (_, c: string) => (c === 'n' ? '\n' : c));
    out.push({ name: m[1]!, labels, value: Number(m[3]) });
  }
  return out;
}

export async function scrape(url: string): Promise<Sample[]> {
  const res = await fetch(url);
  if (!res.ok) throw new Error(`GET ${url}: HTTP ${res.status}`);
  return parseProm(await res.text());
}

type LabelFilter = Record<string, string>;
const matches = (s: Sample, name: string, filter: LabelFilter) => s.name === name && Object.entries(filter).every(([k, v]) => s.labels[k] === v);

/** The sum of the samples of `name` whose labels include `filter`. */
export function total(samples: Sample[], name: string, filter: LabelFilter = {}): number {
  return samples.filter((s) => matches(s, name, filter)).reduce((a, s) => a + s.value, 0);
}

/** A histogram between two scrapes: its buckets (cumulative counts by upper bound), count and sum. */
export interface HistogramDelta {
  buckets: [number, number][];
  count: number;
  sum: number;
}

/** The observations of histogram `name` (series matching `filter`, summed) made between `before` and `after`. */
export function histogramDelta(before: Sample[], after: Sample[], name: string, filter: LabelFilter = {}): HistogramDelta {
  const byLe = (samples: Sample[]) => {
    const m = new Map<number, number>();
    for (const s of samples.filter((x) => matches(x, `${name}_bucket`, filter))) {
      const le = s.labels.le === '+Inf' ? Infinity : Number(s.labels.le);
      m.set(le, (m.get(le) ?? 0) + s.value);
    }
    return m;
  };
  const a = byLe(after);
  const b = byLe(before);
  const buckets = [...a].map(([le, n]) => [le, n - (b.get(le) ?? 0)] as [number, number]).sort((x, y) => x[0] - y[0]);
  return {
    buckets,
    count: total(after, `${name}_count`, filter) - total(before, `${name}_count`, filter),
    sum: total(after, `${name}_sum`, filter) - total(before, `${name}_sum`, filter),
  };
}

/** `a` plus `sign` times `b`, bucket by bucket (two windows of one histogram joined, or one taken out of another). */
export function combine(a: HistogramDelta, b: HistogramDelta, sign: 1 | -1 = 1): HistogramDelta {
  const les = [...new Set([...a.buckets, ...b.buckets].map(([le]) => le))].sort((x, y) => x - y);
  const at = (h: HistogramDelta, le: number) => h.buckets.find(([l]) => l === le)?.[1] ?? 0;
  return { buckets: les.map((le) => [le, at(a, le) + sign * at(b, le)] as [number, number]), count: a.count + sign * b.count, sum: a.sum + sign * b.sum };
}

/**
 * The q-quantile of a histogram, estimated as Prometheus' histogram_quantile does: linear within
 * the bucket it falls in (so no finer than the bucket bounds); the highest finite bound when it
 * falls in +Inf; undefined without observations.
 */
export function quantile(h: HistogramDelta, q: number): number | undefined {
  const all = h.buckets.at(-1)?.[1] ?? 0;
  if (all <= 0) return undefined;
  const rank = q * all;
  let lower = 0;
  let below = 0;
  for (const [le, n] of h.buckets) {
    if (n >= rank) {
      if (le === Infinity) return lower;
      return lower + (le - lower) * ((rank - below) / Math.max(n - below, 1e-12));
    }
    lower = le;
    below = n;
  }
  return lower;
}

const ms = (s: number | undefined) => (s === undefined ? '–' : `${(s * 1000).toFixed(1)} ms`);

/** `p50 … p99 … mean … (N calls)` of a histogram delta. */
export function latencyLine(h: HistogramDelta): string {
  if (h.count <= 0) return 'no calls';
  return `p50 ${ms(quantile(h, 0.5))}, p99 ${ms(quantile(h, 0.99))}, mean ${ms(h.sum / h.count)} (${h.count} calls)`;
}

let clockTicks: number | undefined;

/**
 * User plus system CPU seconds of a process so far, from /proc/<pid>/stat; undefined where there
 * is no /proc (the caller then says so, or reads the process's own process_cpu_seconds_total).
 */
export function procCpuSeconds(pid: number): number | undefined {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  // Fields after the command (which may hold spaces, inside parentheses): state is field 3,
  // utime 14 and stime 15, in clock ticks.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  if (clockTicks === undefined) {
    try {
      clockTicks = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
    } catch {
      clockTicks = 100;
    }
  }
  return (Number(fields[11]) + Number(fields[12])) / clockTicks;
}
