#!/usr/bin/env node
// `npm start`'s prestart: compile (`npm run build`) only when something the build reads changed
// since the last successful build, so a start with nothing changed starts at once instead of
// recompiling everything (issue 56). The build's inputs are every file under src/ and the
// tsconfig files; a successful build leaves dist/.build-stamp, whose mtime is the instant the build
// began (a source saved while it ran is newer, so the next start builds again). A failed build
// leaves no stamp: the next start tries again rather than running what a broken build emitted.
//   node scripts/build-if-stale.mjs [--root DIR] [--check]
// --check: build nothing; exit 1 when a build is due (the reason on stderr), 0 when dist/ is current.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const STAMP = join('dist', '.build-stamp');
const CONFIGS = ['tsconfig.json', 'tsconfig.build.json', 'tsconfig.tools.json'];

function* files(dir) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* files(path);
    else yield path;
  }
}

/** Why a build is due (a sentence), or undefined when dist/ was built after every input last changed. */
export function staleReason(root) {
  const stamp = join(root, STAMP);
  if (!existsSync(stamp)) return `no ${STAMP}: no successful build yet`;
  const built = statSync(stamp).mtimeMs;
  const inputs = [...(existsSync(join(root, 'src')) ? files(join(root, 'src')) : []), ...CONFIGS.map((c) => join(root, c)).filter((p) => existsSync(p))];
  for (const input of inputs) if (statSync(input).mtimeMs >= built) return `${relative(root, input)} changed since the last build`;
  return undefined;
}

function main(argv) {
  const at = argv.indexOf('--root');
  const root = resolve(at >= 0 ? (argv[at + 1] ?? '.') : join(dirname(fileURLToPath(import.meta.url)), '..'));
  const reason = staleReason(root);
  if (argv.includes('--check')) {
    if (reason) process.stderr.write(`build due: ${reason}\n`);
    return reason ? 1 : 0;
  }
  if (!reason) {
    process.stderr.write('dist/ is up to date: not rebuilding (scripts/build-if-stale.mjs)\n');
    return 0;
  }
  process.stderr.write(`building: ${reason}\n`);
  const started = new Date();
  rmSync(join(root, STAMP), { force: true });
  const r = spawnSync('npm', ['run', 'build', '--silent'], { cwd: root, stdio: 'inherit', shell: process.platform === 'win32' });
  if (r.status !== 0) return r.status ?? 1;
  mkdirSync(join(root, 'dist'), { recursive: true });
  writeFileSync(join(root, STAMP), `${started.toISOString()}\n`);
  utimesSync(join(root, STAMP), started, started);
  return 0;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) process.exitCode = main(process.argv.slice(2));
