// `npm start` compiles only when something changed (scripts/build-if-stale.mjs, its prestart; issue
// 56): in a scratch project whose mtimes the test sets (no clock read), a first start builds and
// stamps, a start with nothing changed builds nothing, a changed source or tsconfig builds again,
// and a failed build leaves no stamp, so the next start tries again.
import t, { type Test } from 'tap';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { REPO_ROOT } from './support/shared.js';

const SCRIPT = join(REPO_ROOT, 'scripts', 'build-if-stale.mjs');
const PAST = new Date('2020-01-01T00:00:00Z');
const LATER = new Date('2030-01-01T00:00:00Z');

/** A project whose `npm run build` writes dist/main.js and counts its runs in `builds` (or fails). */
function project(t: Test, build = "require('fs').mkdirSync('dist',{recursive:true});require('fs').writeFileSync('dist/main.js','');require('fs').appendFileSync('builds','x')"): string {
  const root = mkdtempSync(join(tmpdir(), 'build-if-stale-'));
  t.teardown(() => rmSync(root, { recursive: true, force: true }));
  mkdirSync(join(root, 'src', 'http'), { recursive: true });
  writeFileSync(join(root, 'package.json'), JSON.stringify({ name: 'x', private: true, scripts: { build: `node -e "${build}"` } }));
  for (const f of ['src/main.ts', 'src/http/x.ts', 'tsconfig.json', 'tsconfig.build.json']) {
    writeFileSync(join(root, f), '');
    utimesSync(join(root, f), PAST, PAST);
  }
  return root;
}

const run = (root: string, ...args: string[]) => spawnSync(process.execPath, [SCRIPT, '--root', root, ...args], { encoding: 'utf8' });
const builds = (root: string) => (existsSync(join(root, 'builds')) ? readFileSync(join(root, 'builds'), 'utf8').length : 0);

t.test('first start builds and stamps; a start with nothing changed builds nothing', async (t) => {
  const root = project(t);
  t.equal(run(root, '--check').status, 1, 'no stamp yet: a build is due');
  const first = run(root);
  t.equal(first.status, 0, first.stderr);
  t.match(first.stderr, /no dist\/\.build-stamp/);
  t.equal(builds(root), 1);
  t.ok(existsSync(join(root, 'dist', '.build-stamp')));
  const second = run(root);
  t.equal(second.status, 0);
  t.match(second.stderr, /up to date: not rebuilding/);
  t.equal(builds(root), 1, 'not built again');
  t.equal(run(root, '--check').status, 0);
});

for (const changed of ['src/http/x.ts', 'tsconfig.json']) {
  t.test(`a changed ${changed} builds again, once`, async (t) => {
    const root = project(t);
    t.equal(run(root).status, 0);
    utimesSync(join(root, changed), LATER, LATER);
    const check = run(root, '--check');
    t.equal(check.status, 1);
    t.match(check.stderr, `${changed} changed since the last build`);
    t.equal(run(root).status, 0);
    t.equal(builds(root), 2, 'built again');
    // The stamp is the instant the build began, which is before LATER: the same file still counts
    // as changed. Put it back in the past, as a real edit before a build would be.
    utimesSync(join(root, changed), PAST, PAST);
    t.equal(run(root).status, 0);
    t.equal(builds(root), 2, 'and then not again');
  });
}

t.test('a failed build leaves no stamp: the next start builds again', async (t) => {
  const root = project(t, "require('fs').appendFileSync('builds','x');process.exit(3)");
  t.equal(run(root).status, 3, "the build's exit code");
  t.notOk(existsSync(join(root, 'dist', '.build-stamp')));
  t.equal(run(root).status, 3);
  t.equal(builds(root), 2, 'tried again');
});

t.test('npm start runs it as prestart, so nothing recompiles when nothing changed', async (t) => {
  const pkg = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8'));
  t.equal(pkg.scripts.prestart, 'node scripts/build-if-stale.mjs');
  t.equal(pkg.scripts.start, 'node dist/main.js');
});
