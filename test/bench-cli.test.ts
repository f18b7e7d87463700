// `npm run bench` on a short run: the report on stdout, progress on stderr, BENCHMARKS.md written
// only with --write (here to a copy).
import t from 'tap';
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { REPO_ROOT } from './support/shared.js';

// Two short runs of about 25 s each, on a machine that may be busy.
t.setTimeout(400_000);
const BENCH = join(REPO_ROOT, 'bench', 'bench.mjs');
const tmp = () => mkdtempSync(join(tmpdir(), 'c5c3-bench-'));
const CLIS = { bench: BENCH };

t.test('bench prints its report and progress, and writes only with --write', async (t) => {
  const before = statSync(join(REPO_ROOT, 'BENCHMARKS.md')).mtimeMs;
  const out = join(tmp(), 'bench.md');
  const r = spawnSync(process.execPath, [CLIS.bench!, '--seconds', '1', '--long', '300'], { cwd: REPO_ROOT, encoding: 'utf8', timeout: 300_000 });
  t.equal(r.status, 0, r.status === 0 ? 'exits 0' : r.stderr);
  t.match(r.stdout, /^# Benchmarks/, 'the report on stdout');
  t.match(r.stderr, /bench \[\d+ s\]: \/controlplane\/sync at concurrency 16/, 'progress on stderr');
  t.match(r.stderr, /report not written; run with --write/);
  t.equal(statSync(join(REPO_ROOT, 'BENCHMARKS.md')).mtimeMs, before, 'BENCHMARKS.md untouched');
  copyFileSync(join(REPO_ROOT, 'BENCHMARKS.md'), out);
  const w = spawnSync(process.execPath, [CLIS.bench!, '--seconds', '1', '--long', '300', '--write', '--output', out], { cwd: REPO_ROOT, encoding: 'utf8', timeout: 300_000 });
  t.equal(w.status, 0, w.status === 0 ? 'exits 0' : w.stderr);
  const written = readFileSync(out, 'utf8');
  t.match(written, /^# Benchmarks\n[\s\S]*\n## Reading the numbers/, 'written, the hand-written reading kept');
  t.match(written, /1 s per measurement/);
});
