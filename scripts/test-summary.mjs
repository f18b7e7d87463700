#!/usr/bin/env node
// Prints `N passed, N failed` from tap's saved results: one count per top-level test of every
// test file. Arguments: `--status CODE DIR` once per run (several runs are summed), and
// `--log CODE FILE` for a run that printed its own `N passed, N failed` line (the e2e suite);
// with no arguments, `.tap/test-results` of a run that exited 0. A run that failed without a failing test
// (a crashed file, a build error, a runtime that could not be installed) counts as one failure,
// so CI never reads a failed run as green.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';

function files(path) {
  try {
    return readdirSync(path).flatMap((name) => {
      const full = join(path, name);
      return statSync(full).isDirectory() ? files(full) : full.endsWith('.tap') ? [full] : [];
    });
  } catch {
    return [];
  }
}

function count(dir, exitCode) {
  let passed = 0;
  let failed = 0;
  for (const file of files(dir)) {
    const text = readFileSync(file, 'utf8');
    let filePassed = 0;
    let fileFailed = 0;
    for (const line of text.split('\n')) {
      if (/^ok \d+/.test(line)) filePassed++;
      else if (/^not ok \d+/.test(line)) fileFailed++;
    }
    if (/^Bail out!/m.test(text) || (filePassed === 0 && fileFailed === 0)) fileFailed++;
    passed += filePassed;
    failed += fileFailed;
  }
  if (exitCode !== 0 && failed === 0) failed = 1;
  return { passed, failed };
}

/** The last `N passed, N failed` line a run printed (none, or a failed run counting none: one failure). */
function countLog(file, exitCode) {
  const lines = existsSync(file) ? readFileSync(file, 'utf8').split('\n') : [];
  const last = lines.map((l) => /^(\d+) passed, (\d+) failed$/.exec(l.trim())).filter(Boolean).pop();
  const passed = last ? Number(last[1]) : 0;
  let failed = last ? Number(last[2]) : 0;
  if ((exitCode !== 0 || !last) && failed === 0) failed = 1;
  return { passed, failed };
}

const args = process.argv.slice(2);
const runs = [];
if (args.length === 0) runs.push({ exitCode: 0, dir: '.tap/test-results' });
else if (args.length === 1 && /^\d+$/.test(args[0])) runs.push({ exitCode: Number(args[0]), dir: '.tap/test-results' });
else {
  for (let i = 0; i < args.length; i += 3) {
    if ((args[i] !== '--status' && args[i] !== '--log') || args[i + 2] === undefined) {
      console.error('usage: test-summary.mjs [--status CODE DIR | --log CODE FILE]...');
      process.exit(2);
    }
    runs.push({ exitCode: Number(args[i + 1]), [args[i] === '--log' ? 'log' : 'dir']: args[i + 2] });
  }
}
let passed = 0;
let failed = 0;
for (const run of runs) {
  const c = run.log ? countLog(run.log, run.exitCode) : count(run.dir, run.exitCode);
  passed += c.passed;
  failed += c.failed;
}
console.log(`${passed} passed, ${failed} failed`);
