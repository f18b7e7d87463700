// House rules the compiler does not enforce, checked on the syntax tree of src/controlplane/:
// no non-null assertion (`x!`) and no cast (`x as T`, `<T>x`; `as const` is not a cast). What a
// stage reads is resolved and typed once (spec.ts, StageInput), so none is needed.
import t from 'tap';
import ts from 'typescript';
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { REPO_ROOT } from './support/shared.js';

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? files(path) : name.endsWith('.ts') ? [path] : [];
  });
}

/** Every non-null assertion and cast in `source`, as `file:line: text`. */
export function assertionsIn(path: string, source: string): string[] {
  const file = ts.createSourceFile(path, source, ts.ScriptTarget.ES2022, true);
  const found: string[] = [];
  const visit = (node: ts.Node) => {
    const isConst = (n: ts.AsExpression | ts.TypeAssertion) => ts.isTypeReferenceNode(n.type) && n.type.typeName.getText(file) === 'const';
    if (ts.isNonNullExpression(node) || ((ts.isAsExpression(node) || ts.isTypeAssertionExpression(node)) && !isConst(node))) {
      const line = file.getLineAndCharacterOfPosition(node.getStart(file)).line + 1;
      found.push(`${relative(REPO_ROOT, path)}:${line}: ${node.getText(file).slice(0, 80)}`);
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  return found;
}

t.test('the checker finds what it looks for', async (t) => {
  t.same(assertionsIn('x.ts', 'const a = b!; const c = d as E; const f = <G>h; const i = [1] as const;').length, 3);
});

t.test('src/controlplane/: no non-null assertion, no cast', async (t) => {
  const dir = join(REPO_ROOT, 'src', 'controlplane');
  const found = files(dir).flatMap((f) => assertionsIn(f, readFileSync(f, 'utf8')));
  t.same(found, [], found.join('\n'));
});

/** Every relative import of every file under src/ (type-only imports included): file → files. */
function importGraph(): Map<string, string[]> {
  const root = join(REPO_ROOT, 'src');
  const graph = new Map<string, string[]>();
  for (const file of files(root)) {
    const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.ES2022, true);
    const deps: string[] = [];
    for (const statement of source.statements) {
      const spec = (ts.isImportDeclaration(statement) || ts.isExportDeclaration(statement)) && statement.moduleSpecifier && ts.isStringLiteral(statement.moduleSpecifier) ? statement.moduleSpecifier.text : undefined;
      if (spec?.startsWith('.')) deps.push(relative(REPO_ROOT, join(file, '..', spec.replace(/\.js$/, '.ts'))));
    }
    graph.set(relative(REPO_ROOT, file), deps);
  }
  return graph;
}

/** The layers of src/, lowest first: a file may import from its own layer or a lower one. */
const LAYERS: string[][] = [
  ['api'],
  ['k8s', 'memo', 'random', 'events', 'config', 'logger', 'json-body', 'bounded-yaml', 'inflight', 'metrics'],
  ['capture'],
  ['controlplane'],
  ['credentialrotation', 'secretaggregate'],
  ['redaction', 'status-limits'],
  ['routes'],
  ['http'],
  ['server'],
  ['server-options', 'main'],
  ['package-root', 'crd', 'sim'],
  ['cli'],
];
const layerOf = (file: string) => {
  const top = file.split('/')[1]!.replace(/\.ts$/, '');
  return LAYERS.findIndex((names) => names.includes(top));
};

t.test('src/: the import graph has no cycle and no upward arrow', async (t) => {
  const graph = importGraph();
  const upward = [...graph].flatMap(([file, deps]) => deps.filter((d) => layerOf(d) > layerOf(file)).map((d) => `${file} → ${d}`));
  t.same(upward, [], 'upward imports');
  t.same([...graph.keys()].filter((f) => layerOf(f) < 0), [], 'every top-level module has a layer');
  const cycles: string[] = [];
  const state = new Map<string, 'open' | 'done'>();
  const visit = (file: string, path: string[]) => {
    state.set(file, 'open');
    for (const dep of graph.get(file) ?? []) {
      if (state.get(dep) === 'open') cycles.push([...path.slice(path.indexOf(dep)), dep].join(' → '));
      else if (!state.has(dep)) visit(dep, [...path, dep]);
    }
    state.set(file, 'done');
  };
  for (const file of graph.keys()) if (!state.has(file)) visit(file, [file]);
  t.same(cycles, [], 'import cycles');
});
