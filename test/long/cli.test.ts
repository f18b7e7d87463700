// The command-line tools (built, in dist/ and bench/): --help answers with usage, defaults and
// exit codes and does nothing else (no generated file or BENCHMARKS.md touched); gen lists only
// what it changed; replay runs a recorded call and diffs it; bench writes BENCHMARKS.md only when
// asked.
import t from 'tap';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { REPO_ROOT } from '../support/shared.js';

const CLIS: Record<string, string> = {
  simulate: join(REPO_ROOT, 'dist', 'cli', 'simulate.js'),
  gen: join(REPO_ROOT, 'dist', 'cli', 'gen.js'),
  replay: join(REPO_ROOT, 'dist', 'cli', 'replay.js'),
  bench: join(REPO_ROOT, 'bench', 'bench.mjs'),
};
const run = (cli: string, ...args: string[]) => spawnSync(process.execPath, [CLIS[cli]!, ...args], { cwd: REPO_ROOT, encoding: 'utf8', timeout: 120_000 });
const tmp = () => mkdtempSync(join(tmpdir(), 'c5c3-cli-'));
const CASE = join(REPO_ROOT, 'hooks', 'controlplane-sync', 'managed-04-converge-waiting-for-keystone.json');

/** mtimes of every generated file and BENCHMARKS.md: --help must leave them alone. */
function generatedMtimes(): Map<string, number> {
  const files = ['BENCHMARKS.md', ...readdirSync(join(REPO_ROOT, 'manifests', 'crds')).map((f) => join('manifests', 'crds', f))];
  for (const dir of readdirSync(join(REPO_ROOT, 'hooks'), { withFileTypes: true })) {
    if (dir.isDirectory()) files.push(...readdirSync(join(REPO_ROOT, 'hooks', dir.name)).map((f) => join('hooks', dir.name, f)));
  }
  return new Map(files.map((f) => [f, statSync(join(REPO_ROOT, f)).mtimeMs]));
}

t.test('every CLI answers --help with usage, defaults and exit codes, and does no work', async (t) => {
  const before = generatedMtimes();
  for (const cli of Object.keys(CLIS)) {
    for (const flag of cli === 'replay' ? ['--help', '-h'] : ['--help']) {
      const r = run(cli, flag);
      t.equal(r.status, 0, `${cli} ${flag} exits 0`);
      t.match(r.stdout, new RegExp(`^usage: npm run ${cli} -- `), `${cli}: usage`);
      t.match(r.stdout, /default/, `${cli}: defaults`);
      t.match(r.stdout, /Exit codes: 0 .*1 .*2 /s, `${cli}: exit codes`);
    }
    const bad = run(cli, '--no-such-option');
    t.equal(bad.status, 2, `${cli}: an unknown option is a usage error`);
    t.match(bad.stderr, /usage:/);
  }
  t.same(generatedMtimes(), before, 'no generated file and no BENCHMARKS.md was touched');
});

t.test('gen lists only the files it changed, and --check writes nothing', async (t) => {
  const root = tmp();
  const first = run('gen', '--root', root);
  t.equal(first.status, 0, first.stderr);
  const created = first.stdout.split('\n').filter((l) => l.startsWith('created '));
  t.ok(created.length > 30, `${created.length} files created in an empty tree`);
  const crd = join(root, 'manifests', 'crds', 'controlplanes.c5c3.io.yaml');
  writeFileSync(crd, 'stale\n');
  writeFileSync(join(root, 'hooks', 'controlplane-sync', 'managed-99-gone.json'), '{}\n');
  const check = run('gen', '--root', root, '--check');
  t.equal(check.status, 1, 'stale files: --check exits 1');
  t.equal(readFileSync(crd, 'utf8'), 'stale\n', '--check wrote nothing');
  const second = run('gen', '--root', root);
  t.equal(second.status, 0);
  t.same(second.stdout.trim().split('\n'), [
    'updated manifests/crds/controlplanes.c5c3.io.yaml',
    'removed hooks/controlplane-sync/managed-99-gone.json',
    `gen: 2 of ${created.length} generated files changed`,
  ]);
  const third = run('gen', '--root', root, '--check');
  t.equal(third.status, 0);
  t.match(third.stdout.trim(), /^gen: all \d+ generated files are up to date$/);
});

t.test('replay: a recorded call is replayed at its clock and seed; the same answer exits 0', async (t) => {
  const r = run('replay', CASE);
  t.equal(r.status, 0, r.status === 0 ? 'exits 0' : r.stderr);
  t.match(r.stdout, /^\/controlplane\/sync at 2026-.*, seed "hooks": HTTP 200\n\{/);
  t.match(r.stdout, /"resyncAfterSeconds"/, 'the answer is printed');
  t.match(r.stdout, /same answer as recorded/);
});

t.test('replay: a recorded response that differs is diffed, exit 1', async (t) => {
  const call = JSON.parse(readFileSync(CASE, 'utf8'));
  call.response.resyncAfterSeconds = 999;
  call.response.status.conditions[0].reason = 'Elsewhere';
  delete call.response.children[0];
  call.response.children = call.response.children.filter(Boolean);
  const file = join(tmp(), 'case.json');
  writeFileSync(file, JSON.stringify(call));
  const r = run('replay', file);
  t.equal(r.status, 1);
  t.match(r.stdout, /difference\(s\) from the recorded response/);
  t.match(r.stdout, /~ resyncAfterSeconds: recorded 999, answer \d+/);
  t.match(r.stdout, /~ status\.conditions\[0\]\.reason: recorded "Elsewhere"/);
});

t.test('replay: a bare request body with --hook; without it a usage error', async (t) => {
  const call = JSON.parse(readFileSync(CASE, 'utf8'));
  const file = join(tmp(), 'request.json');
  writeFileSync(file, JSON.stringify(call.request));
  const r = run('replay', file, '--hook', '/controlplane/sync', '--clock', call.clock, '--seed', 'hooks');
  t.equal(r.status, 0, r.status === 0 ? 'exits 0' : r.stderr);
  t.match(r.stdout, /HTTP 200/);
  t.notMatch(r.stdout, /recorded/, 'nothing to compare with');
  const answer = JSON.parse(r.stdout.slice(r.stdout.indexOf('\n') + 1));
  t.same(answer, call.response, 'the same answer as the recorded call');
  const missing = run('replay', file);
  t.equal(missing.status, 2);
  t.match(missing.stderr, /bare request body: give --hook/);
  const invalid = join(tmp(), 'invalid.json');
  writeFileSync(invalid, JSON.stringify({ controller: {}, parent: { kind: 'Wrong' } }));
  const refused = run('replay', invalid, '--hook', '/controlplane/sync');
  t.equal(refused.status, 1, 'a 400 answer exits 1');
  t.match(refused.stdout, /HTTP 400/);
  t.equal(run('replay', '/nonexistent.json').status, 2);
});
