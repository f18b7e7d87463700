// The result files tap wrote in this run: .tap/test-results keeps those of files it did not run
// this time, so only files written since `since` (ms) count (scripts/test.mjs, scripts/test-long.mjs).
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

export function resultFiles(dir, since) {
  const out = [];
  const walk = (path) => {
    for (const name of readdirSync(path)) {
      const full = join(path, name);
      if (statSync(full).isDirectory()) walk(full);
      else if (full.endsWith('.tap') && statSync(full).mtimeMs >= since - 1000) out.push(full);
    }
  };
  if (existsSync(dir)) walk(dir);
  return out;
}
