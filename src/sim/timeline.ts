// The simulation as a person reads it: per round that changed something, the time since the
// start, the conditions that moved, what Metacontroller and the operators did, hook errors.
import type { RoundRecord } from './simulation.js';

function elapsed(from: Date, at: Date): string {
  const s = Math.round((at.getTime() - from.getTime()) / 1000);
  const pad = (n: number) => String(n).padStart(2, '0');
  return `+${Math.floor(s / 3600)}:${pad(Math.floor((s % 3600) / 60))}:${pad(s % 60)}`;
}

export function formatRound(record: RoundRecord, start: Date): string[] {
  const lines: string[] = [];
  for (const p of record.phases ?? []) lines.push(`  ${p.object}  updatePhase=${p.phase}`);
  for (const c of record.conditions) {
    lines.push(`  ${c.object}  ${c.type}=${c.status} ${c.reason}${c.message ? `: ${c.message}` : ''}`);
  }
  const grouped = new Map<string, string[]>();
  for (const c of record.changes) {
    if (c.verb === 'status') continue;
    const key = `${c.by} ${c.verb}`;
    grouped.set(key, [...(grouped.get(key) ?? []), c.object]);
  }
  for (const [key, objects] of grouped) lines.push(`  ${key} ${[...new Set(objects)].join(', ')}`);
  for (const n of record.notes) lines.push(`  ${n.by}: ${n.text}`);
  for (const e of record.errors) lines.push(`  hook error: ${e}`);
  return lines.length > 0 ? [`${elapsed(start, record.at)}  round ${record.round}`, ...lines] : [];
}
