// `npm run bench` on its smoke configuration (--smoke: every section, tiny cells): the report on
// stdout, progress on stderr, BENCHMARKS.md written only with --write (here to a copy). No
// figure is asserted (no timed tests): only that every section and row is there.
import t from 'tap';
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { REPO_ROOT } from '../support/shared.js';

// Two smoke runs of about 15 s each, on a machine that may be busy.
t.setTimeout(300_000);
const BENCH = join(REPO_ROOT, 'bench', 'bench.mjs');
const tmp = () => mkdtempSync(join(tmpdir(), 'c5c3-bench-'));
const run = (...args: string[]) => spawnSync(process.execPath, [BENCH, ...args], { cwd: REPO_ROOT, encoding: 'utf8', timeout: 200_000 });

t.test('usage errors exit 2 without measuring', async (t) => {
  for (const args of [['--seconds', '0'], ['--repeats', '1.5'], ['--nope']]) {
    const r = run(...args);
    t.equal(r.status, 2, args.join(' '));
    t.match(r.stderr, /usage: npm run bench/);
    t.equal(r.stdout, '');
  }
  const help = run('--help');
  t.equal(help.status, 0);
  t.match(help.stdout, /--long .*BENCH_LONG requests \(default 1000000\)/);
});

t.test('bench prints its report and progress, and writes only with --write', async (t) => {
  const before = statSync(join(REPO_ROOT, 'BENCHMARKS.md')).mtimeMs;
  const r = run('--smoke');
  t.equal(r.status, 0, r.status === 0 ? 'exits 0' : r.stderr);
  t.match(r.stdout, /^# Benchmarks\n\nMachine: .* Node v\d+\.\d+\.\d+\. Date: \d{4}-\d{2}-\d{2}\. .*log level info .*in-flight bodies 8Mi, NODE_OPTIONS `--max-old-space-size=128/, 'machine, Node, date, production configuration');
  t.match(r.stdout, /overload guard off \(smoke run only\)/, 'a smoke run on a busy machine is not failed by the overload guard');
  // One row per case and concurrency, each with its ratio to the same-size floor.
  for (const name of ['sync, converged', 'sync, steady', 'sync, fresh', 'finalize, first step']) {
    for (const conc of [1, 16]) t.match(r.stdout, new RegExp(`\\n\\| ${name} \\| \\d+ \\| \\d+ \\| ${conc} \\| .*\\| ratio \\d+\\.\\d\\d`), `${name} at ${conc}`);
  }
  // The scaling rows, still converged.
  for (const dimension of ['observed children', 'CredentialRotations', 'access rules']) {
    for (const n of [1, 3]) t.match(r.stdout, new RegExp(`\\n\\| ${dimension} \\| ${n} \\| \\d+ \\| True AllReady \\| .*\\| ratio \\d+\\.\\d\\d`), `${dimension} × ${n}`);
  }
  // The fleet rows (issue 34): each fleet (Keystone only, every service: issue 43) and size,
  // steady and with one member changing, with the memo hit rates (the kept answers first: a call
  // they answer looks nothing else up).
  for (const fleet of ['Keystone only', 'every service']) {
    for (const n of [1, 3]) {
      for (const changing of ['none', 'one per round']) {
        t.match(r.stdout, new RegExp(`\\n\\| fleet \\(${fleet}\\), N = ${n} \\| ${changing} \\| 16 \\| .*\\| ratio \\d+\\.\\d\\d .*\\| \\d+ \\| answer \\d+ %`), `${fleet}: fleet of ${n}, ${changing} changing`);
      }
    }
  }
  // The partial floor (issue 43): the hook, the floor and the partial floor on the fleet with every
  // service, with both CPU ratios against the goal.
  t.match(r.stdout, /\n\| every service, N = 3 \| 16 \| \d+ .*\| \d+\.\d\d \| \d+\.\d\d \| ≤ 1\.3 \|/, 'the partial floor row');
  // The fleet at Metacontroller's pace (issue 43 in absolute terms): its 5 workers (3 for the
  // smoke run's fleet of 3), both restart rounds with their memo hits, and the paced resync.
  for (const phase of ['after a restart, hook server fresh', 'after a restart, hook server warm']) {
    t.match(r.stdout, new RegExp(`\\n\\| ${phase} \\| hook \\| 3 \\| 3 \\| [\\d.]+ \\| \\d+ \\| [\\d.]+ \\| [\\d.]+ \\| \\d+ \\| [\\d.]+ \\| \\d\\.\\d{3} \\| answer \\d+ %`), phase);
  }
  t.match(r.stdout, /\n\| after a restart, hook server fresh \| hook \|[^\n]*answer 0 %/, 'the fresh round finds no kept answer: the memos were emptied');
  t.match(r.stdout, /\n\| after a restart \| floor \| 3 \| 3 \|/, 'the floor after a restart');
  for (const route of ['hook', 'floor']) t.match(r.stdout, new RegExp(`\\n\\| resync \\| ${route} \\| 3 \\| 3 \\| [\\d.]+ \\| \\d+ \\| [\\d.]+ \\| [\\d.]+ \\| \\d+ \\| [\\d.]+ \\| \\d\\.\\d{3} \\|`), `paced resync: ${route}`);
  // What each memo saves, on each traffic (issue 54): every memo of the service has its row.
  for (const traffic of ['steady', 'one changing', 'ESO refresh']) {
    for (const memo of ['answer']) {
      t.match(r.stdout, new RegExp(`\\n\\| ${traffic} \\| ${memo} \\| (\\d+ % \\| \\d+ \\| \\d+ \\| -?\\d+ %|not looked up)`), `memo table: ${traffic}, ${memo}`);
    }
  }
  // ESO's hourly refreshes (issue 54): the fleet in turn against the floor, and at Metacontroller's pace.
  t.match(r.stdout, /\n\| turn \| 3 \| 16 \| \d+ [^\n]*\| ratio \d+\.\d\d [^\n]*\| answer \d+ %/, 'ESO refresh: the fleet in turn');
  t.match(r.stdout, /\n\| pace \| 3 \| 3 \| \d+ \| \d+ \| \| \d+ \| \d+\.\d\d \| \d\.\d{3} \| \d\.\d{3} \| answer \d+ %/, 'ESO refresh: at Metacontroller\'s pace');
  t.notMatch(r.stdout, /extra Secrets/, 'the unrelated-Secrets case is gone');
  t.match(r.stdout, /slope -?\d+\.\d\d MB per 100,000 requests/, 'RSS slope');
  // Sampled every fortieth of the long run's requests, not by time: as many samples on a busy machine.
  t.match(r.stdout, /least squares over (3\d|4\d) samples after the first tenth/, 'RSS sampled by requests, not by time');
  t.match(r.stdout, /\| package \| inclusive \| self \|\n\|---\|---\|---\|\n\| [^\n]+ \| \d+\.\d % \| \d+\.\d % \|/, 'profile by package');
  t.match(r.stdout, /Log lines written by the server during the run: [1-9]/, 'the server logged');
  t.match(r.stderr, /bench \[\d+ s\]: \/controlplane\/sync at concurrency 16/, 'progress on stderr');
  t.match(r.stderr, /report not written; run with --write/);
  t.equal(statSync(join(REPO_ROOT, 'BENCHMARKS.md')).mtimeMs, before, 'BENCHMARKS.md untouched');

  const out = join(tmp(), 'bench.md');
  copyFileSync(join(REPO_ROOT, 'BENCHMARKS.md'), out);
  const w = run('--smoke', '--write', '--output', out);
  t.equal(w.status, 0, w.status === 0 ? 'exits 0' : w.stderr);
  const written = readFileSync(out, 'utf8');
  t.match(written, /^# Benchmarks\n[\s\S]*\n## Reading the numbers/, 'written, the hand-written reading kept');
  t.match(written, /Smoke run/);
  t.equal(written.split('\n## Reading the numbers')[0]!.trimEnd(), w.stdout.trimEnd(), 'what was printed is what was written');
});
