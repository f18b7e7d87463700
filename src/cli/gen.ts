// `npm run gen`: regenerates every generated file of the repository (CRDs, hooks/ payloads).
import { mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { renderCRDs } from '../crd/generate.js';
import { renderHookPayloads } from '../capture/hook-payloads.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');

function write(path: string, content: string): void {
  const target = resolve(root, path);
  mkdirSync(dirname(target), { recursive: true });
  writeFileSync(target, content);
  console.log(`wrote ${path}`);
}

for (const [path, content] of renderCRDs()) write(path, content);

const payloads = await renderHookPayloads();
// Payload directories hold generated files only: stale ones go.
for (const dir of new Set([...payloads.keys()].map((p) => dirname(p)))) {
  rmSync(resolve(root, dir), { recursive: true, force: true });
}
for (const [path, content] of payloads) write(path, content);
for (const dir of readdirSync(resolve(root, 'hooks'), { withFileTypes: true })) {
  if (dir.isDirectory()) console.log(`hooks/${dir.name}: ${readdirSync(join(resolve(root, 'hooks'), dir.name)).length} files`);
}
