// `npm run gen`: regenerates every generated file of the repository.
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { renderCRDs } from '../crd/generate.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
for (const [path, content] of renderCRDs()) {
  const target = resolve(root, path);
  mkdirSync(dirname(target), { recursive: true });
  writeFileSync(target, content);
  console.log(`wrote ${path}`);
}
