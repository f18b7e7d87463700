// The services' descriptors are read at load time by the modules that derive their lists from
// SERVICES: the condition table, the kind table, the ControlPlane schema and the owned names
// (src/controlplane/services/descriptor.ts). A descriptor module that imported one of those back
// would read SERVICES before it exists (an ES module cycle: a ReferenceError at load, depending
// on which module a process imports first). This reads the compiled modules' value imports (type
// imports are erased) and checks the descriptors' load-time closure stays clear of them, then
// loads each deriving module first in a process of its own.
import t from 'tap';
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const compiled = resolve(dirname(fileURLToPath(import.meta.url)), '..', 'src');
const IMPORT = /^\s*(?:import|export)\s[^'"]*?from\s+['"](\.[^'"]+)['"]|^\s*import\s+['"](\.[^'"]+)['"]/gm;

function valueImports(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const out: string[] = [];
  for (const m of text.matchAll(IMPORT)) out.push(resolve(dirname(file), m[1] ?? m[2]!));
  return out;
}

function closure(entry: string): Set<string> {
  const seen = new Set<string>();
  const todo = [entry];
  while (todo.length > 0) {
    const f = todo.pop()!;
    if (seen.has(f)) continue;
    seen.add(f);
    for (const dep of valueImports(f)) if (existsSync(dep)) todo.push(dep);
  }
  return seen;
}

const DERIVING = ['controlplane/conditions.js', 'k8s/kinds.js', 'api/controlplane.js', 'api/owned-names.js'];

t.test("the services' descriptors do not load the modules that derive from SERVICES", async (t) => {
  const index = join(compiled, 'controlplane', 'services', 'index.js');
  const reached = [...closure(index)].map((f) => relative(compiled, f));
  t.ok(reached.length > 3, `the descriptors' closure was read (${reached.length} modules)`);
  for (const m of DERIVING) t.notOk(reached.includes(m), `${m} is not loaded by services/index.js`);
});

t.test('each module that derives from SERVICES loads first in a fresh process', async (t) => {
  for (const m of [...DERIVING, 'controlplane/services/index.js', 'controlplane/services/stage.js', 'sim/operators.js']) {
    const r = spawnSync(process.execPath, ['--input-type=module', '-e', `await import(${JSON.stringify(join(compiled, m))})`], { encoding: 'utf8' });
    t.equal(r.status, 0, `${m} loads on its own${r.status === 0 ? '' : `: ${r.stderr.split('\n').slice(0, 6).join(' | ')}`}`);
  }
});
