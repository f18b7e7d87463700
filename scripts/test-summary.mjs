#!/usr/bin/env node
// Prints `N passed, N failed` from tap's saved results (.tap/test-results): one count per
// top-level test of every test file. A run that failed without a failing test (a crashed file,
// a build error) counts as one failure, so CI never reads a failed run as green.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';

const exitCode = Number(process.argv[2] ?? 0);
const dir = '.tap/test-results';

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
console.log(`${passed} passed, ${failed} failed`);
