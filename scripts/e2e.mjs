#!/usr/bin/env node
// `npm run e2e` after the build: the long tier of the tap suite (scripts/test-long.mjs), then the
// end-to-end suite under a real cluster (.e2e/dist/e2e/run.js), each printing its output as it
// runs; the last line is `N passed, N failed` over both. Exits non-zero when either failed. The
// cluster suite runs even when the long tier failed, so one run reports both. With E2E_SCENARIOS
// set (a subset of the cluster scenarios) or E2E_LONG_TIER=skip the long tier is skipped, loudly.
import { spawn } from 'node:child_process';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const COUNTS = /^(\d+) passed, (\d+) failed$/;

/** Runs `args` with node, its stdout passed through; its exit code and last `N passed, N failed`. */
function run(args) {
  return new Promise((done) => {
    const child = spawn(process.execPath, args, { cwd: root, stdio: ['inherit', 'pipe', 'inherit'] });
    let tail = '';
    let counts;
    child.stdout.on('data', (chunk) => {
      process.stdout.write(chunk);
      const lines = (tail + chunk).split('\n');
      tail = lines.pop() ?? '';
      for (const line of lines) {
        const m = COUNTS.exec(line.trim());
        if (m) counts = { passed: Number(m[1]), failed: Number(m[2]) };
      }
    });
    child.on('close', (code, signal) => {
      const m = COUNTS.exec(tail.trim());
      if (m) counts = { passed: Number(m[1]), failed: Number(m[2]) };
      done({ code: code ?? (signal ? 1 : 0), counts });
    });
  });
}

// E2E_SCENARIOS picks cluster scenarios to iterate on: the long tier is left out then, and says so.
// E2E_LONG_TIER=skip leaves it out for a caller that ran it already (.ci/run runs `npm run test:long`
// beside the e2e builds and counts it itself).
const skipLong = process.env.E2E_SCENARIOS
  ? `E2E_SCENARIOS=${process.env.E2E_SCENARIOS} selects cluster scenarios only`
  : process.env.E2E_LONG_TIER === 'skip'
    ? 'E2E_LONG_TIER=skip (its caller ran it)'
    : undefined;
const long = skipLong
  ? (console.log(`e2e: long tier NOT RUN: ${skipLong}; npm run test:long runs it`), { code: 0, counts: undefined })
  : await run([join(root, 'scripts', 'test-long.mjs')]);
const cluster = await run([join(root, '.e2e', 'dist', 'e2e', 'run.js')]);
let passed = 0;
let failed = 0;
for (const r of [long, cluster]) {
  passed += r.counts?.passed ?? 0;
  failed += r.counts?.failed ?? 0;
  // A failed run that counted no failure (a crash, a cluster that did not come up) is one.
  if (r.code !== 0 && !(r.counts?.failed > 0)) failed++;
}
console.log(`\ne2e: long tier exit ${long.code}, cluster suite exit ${cluster.code}; over both:`);
console.log(`${passed} passed, ${failed} failed`);
process.exit(long.code !== 0 || cluster.code !== 0 ? 1 : 0);
