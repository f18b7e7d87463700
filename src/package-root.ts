// The folder of this package's package.json, found from a module's URL by walking up: the same
// answer whether the module runs from src/ (TypeScript), dist/ (the build) or .build/ (the
// compiled tests, `npm test`), whose depths below the package differ.
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export function packageRoot(moduleUrl: string): string {
  let dir = dirname(fileURLToPath(moduleUrl));
  for (;;) {
    if (existsSync(join(dir, 'package.json'))) return dir;
    const parent = dirname(dir);
    if (parent === dir) throw new Error(`no package.json above ${fileURLToPath(moduleUrl)}`);
    dir = parent;
  }
}
