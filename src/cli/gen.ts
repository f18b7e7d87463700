// `npm run gen`: regenerates every generated file of the repository (CRDs, the ControlPlane's
// CompositeController, hooks/ payloads) and
// lists the files it changed.
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { renderCRDs } from '../crd/generate.js';
import { renderControllers } from '../crd/controllers.js';
import { renderHookPayloads } from './hook-payloads.js';
import { renderChartFiles } from './chart-files.js';
import { packageRoot } from '../package-root.js';

const USAGE = `usage: npm run gen -- [--check] [--root DIR]

Regenerates the generated files: manifests/crds/ from the TypeBox schemas in src/api/, the
ControlPlane's CompositeController in metacontroller/ from the kinds it owns, the Helm chart's
crds/ and Metacontroller templates (charts/c5c3-hooks) from those and metacontroller/, and
hooks/ from simulated lifecycles (files of a situation that no longer occurs are removed).
Lists the files it wrote or removed; unchanged files are not touched.

  --check     write nothing; list what would change
  --root DIR  the repository to write into (default: this checkout)
  -h, --help  this text; nothing is generated

Exit codes: 0 done (with --check: everything up to date), 1 --check found stale files or
generating failed, 2 usage error.`;

function fail(message: string): never {
  process.stderr.write(`gen: ${message}\n${USAGE}\n`);
  process.exit(2);
}

let args;
try {
  args = parseArgs({ options: { check: { type: 'boolean' }, root: { type: 'string' }, help: { type: 'boolean', short: 'h' } } }).values;
} catch (err) {
  fail((err as Error).message);
}
if (args.help) {
  process.stdout.write(`${USAGE}\n`);
  process.exit(0);
}
const root = resolve(args.root ?? packageRoot(import.meta.url));
const check = args.check === true;

/** hooks/ files captured from the real Metacontroller by `npm run e2e`, not generated. */
const CAPTURED_FROM_METACONTROLLER = /^metacontroller-/;

const controllers = renderControllers();
const wanted = new Map<string, string>([...renderCRDs(), ...controllers]);
// The chart's controller templates are made from this checkout's metacontroller/ (the sources) and
// the controller generated above, whatever --root writes to.
for (const [path, content] of renderChartFiles(packageRoot(import.meta.url), controllers)) wanted.set(path, content);

const changes: string[] = [];
const write = (files: Iterable<[string, string]>) => {
  for (const [path, content] of files) {
    const target = resolve(root, path);
    const before = existsSync(target) ? readFileSync(target, 'utf8') : undefined;
    if (before === content) continue;
    changes.push(`${before === undefined ? 'created' : 'updated'} ${path}`);
    if (check) continue;
    mkdirSync(dirname(target), { recursive: true });
    writeFileSync(target, content);
  }
};
// The controllers first: the simulated lifecycles behind the payloads run under metacontroller/ as written.
write(wanted);
const payloads = await renderHookPayloads();
for (const [path, content] of payloads) wanted.set(path, content);
write(payloads);
// Payload directories hold generated files only, and the requests captured from the real
// Metacontroller by `npm run e2e` (metacontroller-*.json, kept by hand): stale generated ones go.
for (const dir of new Set([...payloads.keys()].map((p) => dirname(p)))) {
  const full = resolve(root, dir);
  if (!existsSync(full)) continue;
  for (const name of readdirSync(full)) {
    const path = relative(root, join(full, name));
    if (wanted.has(path) || CAPTURED_FROM_METACONTROLLER.test(name)) continue;
    changes.push(`removed ${path}`);
    if (!check) rmSync(join(full, name), { recursive: true, force: true });
  }
}
for (const line of changes) console.log(check ? `stale: ${line}` : line);
console.log(changes.length === 0 ? `gen: all ${wanted.size} generated files are up to date` : `gen: ${changes.length} of ${wanted.size} generated files ${check ? 'would change' : 'changed'}`);
process.exit(check && changes.length > 0 ? 1 : 0);
