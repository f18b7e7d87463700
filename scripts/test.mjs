#!/usr/bin/env node
// `npm test`: the tap suite (arguments are passed on, e.g. a test file), then one line on the
// conformance checks. Those read the upstream material in C5C3_SHARED_DIR (default ../shared);
// without it they are skipped and counted here, and the run stays green, except with CI=true:
// CI must never skip them silently, so there a missing folder fails the run before anything runs.
// Runs tap with the node running this script, so `/path/to/node scripts/test.mjs` tests that node.
// The tests run compiled (`npm run build:test` writes .build/, the pretest step): loading TypeScript
// in every test process cost more than most tests. A test file named as `test/….test.ts` is run
// from its compiled `.build/test/….test.js`.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { compiled } from './compiled-test.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const shared = resolve(process.env.C5C3_SHARED_DIR ?? join(root, '..', 'shared'));
const present = existsSync(join(shared, 'crds')) && existsSync(join(shared, 'examples'));
const ci = /^(1|true|yes)$/i.test(process.env.CI ?? '');
const SKIP_REASON = 'conformance: needs the upstream material (C5C3_SHARED_DIR)'; // test/support/shared.ts

if (!present && ci) {
  process.stderr.write(
    `\nFAIL: CI=true but the upstream material (crds/ and examples/) is not at ${shared}: the conformance checks cannot run.\n` +
      'CI must run them: check out the material there, or set C5C3_SHARED_DIR to its folder.\n\n',
  );
  process.exit(1);
}

const tapPackage = join(root, 'node_modules', 'tap');
const tap = join(tapPackage, JSON.parse(readFileSync(join(tapPackage, 'package.json'), 'utf8')).bin.tap);
const started = Date.now();
const args = process.argv.slice(2).map(compiled);
const result = spawnSync(process.execPath, [tap, ...args], { cwd: root, stdio: 'inherit' });
const status = result.status ?? 1;

if (!present) {
  const skipped = countSkipped(join(root, '.tap', 'test-results'), started);
  process.stdout.write(
    `\nconformance: ${skipped} check(s) did not run: no upstream material (upstream CRDs, reference examples) at ${shared}; ` +
      'set C5C3_SHARED_DIR to a copy of it to run them (see README, "Tests").\n',
  );
}
process.exit(status);

// Only result files of this run (tap keeps those of files it did not run this time).
function countSkipped(dir, since) {
  let count = 0;
  const walk = (path) => {
    for (const name of readdirSync(path)) {
      const full = join(path, name);
      if (statSync(full).isDirectory()) walk(full);
      else if (full.endsWith('.tap') && statSync(full).mtimeMs >= since - 1000) {
        for (const line of readFileSync(full, 'utf8').split('\n')) if (/^\s*ok \d+.* # SKIP /.test(line) && line.includes(SKIP_REASON)) count++;
      }
    }
  };
  if (existsSync(dir)) walk(dir);
  return count;
}
