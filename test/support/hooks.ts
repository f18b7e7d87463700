// The captured hook payloads of hooks/ (test/hooks-replay*.test.ts).
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import type { Test } from 'tap';
import { HOOKS_KEY, replayCaptured } from '../../src/cli/hook-payloads.js';
import { Sanitizer } from '../../src/capture/sanitize.js';
import { post, testServer } from './server.js';
import type { CapturedCall } from '../../src/capture/capture.js';
import { REPO_ROOT } from './shared.js';

export const HOOKS_DIR = join(REPO_ROOT, 'hooks');

export function payloadFiles(): string[] {
  return readdirSync(HOOKS_DIR, { withFileTypes: true })
    .filter((d) => d.isDirectory())
    .flatMap((d) => readdirSync(join(HOOKS_DIR, d.name)).map((f) => join(HOOKS_DIR, d.name, f)))
    .sort();
}

export const read = (file: string) => JSON.parse(readFileSync(file, 'utf8')) as CapturedCall;

/**
 * The `shard`-th of `of` parts of hooks/ (every `of`-th file): each replays to its recorded
 * response, in process, at its clock and seed; and alike when its body is remembered (parsed once,
 * shared, frozen: src/json-body.ts): of three calls in a row through one server at least two answer
 * from the frozen body. A hook that tried to change its request would be answered from a copy
 * (src/http/hooks.ts) and say so in the log.
 */
export async function replayShard(t: Test, shard: number, of: number): Promise<void> {
  const files = payloadFiles().filter((_, i) => i % of === shard);
  t.ok(files.length >= 10, `${files.length} payloads`);
  for (const file of files) {
    const call = read(file);
    t.same(await replayCaptured(call), call.response, relative(HOOKS_DIR, file));
    const clock = new Date(call.clock);
    const { app, logs } = await testServer({ clock: () => clock, randomSeed: call.randomSeed, level: 'info' });
    const name = relative(HOOKS_DIR, file);
    try {
      for (const n of [1, 2, 3]) {
        const res = await post(app, call.hook, JSON.stringify(call.request));
        t.equal(res.status, 200, `${name}: call ${n}`);
        t.same(new Sanitizer(HOOKS_KEY).sanitize(call.request, res.json)[1], call.response, `${name}: call ${n}`);
      }
      t.same(logs.filter((l) => l.includes('private copy')), [], `${name}: no hook changed its request`);
    } finally {
      await app.close();
    }
  }
}
