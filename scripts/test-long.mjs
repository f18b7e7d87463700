#!/usr/bin/env node
// The long tier of the tap suite, run by `npm run e2e` before its cluster starts (so CI runs it
// once, not under every Node of the unit suite): the CLI end-to-end runs, the bench smoke, the
// deployed server's memory test, the long simulations (test/long/), and the property test again at
// PROPERTY_RUNS=10000 (the unit suite runs 1000 per hook). Needs dist/ and the compiled tests in
// .build/ (`npm run e2e` and `npm run test:long` build both). Prints `N passed, N failed` over the top-level tests of the files it ran; exits non-zero when
// anything failed. Arguments are passed on to tap (e.g. a single file of test/long/).
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { compiled } from './compiled-test.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const DEEP_PROPERTY_RUNS = '10000';
const files = (process.argv.length > 2
  ? process.argv.slice(2)
  : [...readdirSync(join(root, 'test', 'long')).filter((f) => f.endsWith('.test.ts')).sort().map((f) => join('test', 'long', f)), join('test', 'properties.test.ts')]
).map(compiled);

const tapPackage = join(root, 'node_modules', 'tap');
const tap = join(tapPackage, JSON.parse(readFileSync(join(tapPackage, 'package.json'), 'utf8')).bin.tap);
const started = Date.now();
// Long by nature: a file may take minutes on a busy machine (tap's default for the unit tier is 120 s).
const TIMEOUT_SECONDS = '1200';
const result = spawnSync(process.execPath, [tap, '--disable-coverage', `--timeout=${TIMEOUT_SECONDS}`, ...files], {
  cwd: root,
  stdio: 'inherit',
  env: { ...process.env, PROPERTY_RUNS: process.env.PROPERTY_RUNS ?? DEEP_PROPERTY_RUNS },
});
const status = result.status ?? 1;

// One count per top-level test of each file it ran (as scripts/test-summary.mjs counts); a file
// without a result written by this run (it crashed, or never ran) is one failure.
let passed = 0;
let failed = 0;
for (const file of files) {
  const result = join(root, '.tap', 'test-results', `${relative(root, resolve(root, file))}.tap`);
  if (!existsSync(result) || statSync(result).mtimeMs < started - 1000) {
    failed++;
    continue;
  }
  const lines = readFileSync(result, 'utf8').split('\n');
  const ok = lines.filter((l) => /^ok \d+/.test(l)).length;
  const notOk = lines.filter((l) => /^not ok \d+/.test(l)).length;
  passed += ok;
  failed += notOk + (lines.some((l) => l.startsWith('Bail out!')) || ok + notOk === 0 ? 1 : 0);
}
if (status !== 0 && failed === 0) failed = 1;
console.log(`phase: long tier: ${((Date.now() - started) / 1000).toFixed(0)} s`);
console.log(`\nlong tier (${files.length} files, ${((Date.now() - started) / 1000).toFixed(0)} s):`);
console.log(`${passed} passed, ${failed} failed`);
process.exit(status === 0 && failed === 0 ? 0 : 1);
