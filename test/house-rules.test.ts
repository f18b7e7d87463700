// House rules the compiler does not enforce, checked on the syntax tree of src/controlplane/:
// no non-null assertion (`x!`) and no cast (`x as T`, `<T>x`; `as const` is not a cast). What a
// stage reads is resolved and typed once (spec.ts, StageInput), so none is needed; and only the
// reading (request-reading.ts) reads the raw ControlPlane request (issue 43).
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
  ['api', 'version'],
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

/** The parsers of a previous status: called by the reading alone (and defined where they live). */
const STATUS_PARSERS = new Set(['previousConditions', 'previousUnapplied', 'readRolloutMemory', 'previousCredential']);
/** The raw request's types: their values' properties are read by the reading alone. */
const RAW_TYPES = new Set(['ControlPlaneHookRequest', 'ControlPlaneParent']);

/**
 * Every place in `source` that reads the raw ControlPlane request: a property of a value declared
 * as a ControlPlaneHookRequest or ControlPlaneParent, a `.status` of anything named `parent` or
 * `request`, a call of a previous-status parser (STATUS_PARSERS).
 */
export function rawReadsIn(path: string, source: string): string[] {
  const file = ts.createSourceFile(path, source, ts.ScriptTarget.ES2022, true);
  const raw = new Set<string>();
  const found: string[] = [];
  const note = (node: ts.Node) => found.push(`${relative(REPO_ROOT, path)}:${file.getLineAndCharacterOfPosition(node.getStart(file)).line + 1}: ${node.getText(file).slice(0, 80)}`);
  const declare = (node: ts.Node) => {
    if ((ts.isParameter(node) || ts.isVariableDeclaration(node)) && ts.isIdentifier(node.name) && node.type && ts.isTypeReferenceNode(node.type) && RAW_TYPES.has(node.type.typeName.getText(file))) raw.add(node.name.text);
    ts.forEachChild(node, declare);
  };
  declare(file);
  const visit = (node: ts.Node) => {
    if (ts.isPropertyAccessExpression(node) && ts.isIdentifier(node.expression)) {
      const name = node.expression.text;
      if (raw.has(name) || ((name === 'parent' || name === 'request') && node.name.text === 'status')) note(node);
    } else if (ts.isElementAccessExpression(node) && ts.isIdentifier(node.expression) && raw.has(node.expression.text)) note(node);
    else if (ts.isCallExpression(node) && ts.isIdentifier(node.expression) && STATUS_PARSERS.has(node.expression.text)) note(node);
    ts.forEachChild(node, visit);
  };
  visit(file);
  return found;
}

t.test('the raw-read checker finds what it looks for', async (t) => {
  const source = `function f(request: ControlPlaneHookRequest, p: ControlPlaneParent) { const a = request.parent; const b = p.metadata; const c = request['children']; const d = parent.status; return previousConditions(x) }`;
  t.same(rawReadsIn('x.ts', source).length, 5);
  t.same(rawReadsIn('x.ts', 'function f(request: ControlPlaneHookRequest) { return readRequest(request) }'), []);
});

t.test('src/controlplane/: only the reading (request-reading.ts) reads the raw request', async (t) => {
  const dir = join(REPO_ROOT, 'src', 'controlplane');
  // ref.ts: the ControlPlane as everything refers to it, made by the reading (and by customize);
  // customize.ts: the customize hook, whose request is the parent alone (no children, no status).
  const allowed = new Set(['request-reading.ts', 'ref.ts', 'customize.ts'].map((f) => join(dir, f)));
  const found = files(dir)
    .filter((f) => !allowed.has(f))
    .flatMap((f) => rawReadsIn(f, readFileSync(f, 'utf8')));
  t.same(found, [], 'raw request reads outside src/controlplane/request-reading.ts');
});

/** Every place in `source` that makes an instant or reads the clock: `new Date(…)`, `Date(…)`, `Date.now`. */
export function instantsIn(path: string, source: string): string[] {
  const file = ts.createSourceFile(path, source, ts.ScriptTarget.ES2022, true);
  const found: string[] = [];
  const isDate = (n: ts.Node) => ts.isIdentifier(n) && n.text === 'Date';
  const visit = (node: ts.Node) => {
    if (((ts.isNewExpression(node) || ts.isCallExpression(node)) && isDate(node.expression)) || (ts.isPropertyAccessExpression(node) && isDate(node.expression) && node.name.text === 'now')) {
      found.push(`${relative(REPO_ROOT, path)}:${file.getLineAndCharacterOfPosition(node.getStart(file)).line + 1}: ${node.getText(file).slice(0, 80)}`);
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  return found;
}

t.test('the instant checker finds what it looks for', async (t) => {
  t.same(instantsIn('x.ts', 'const a = new Date(now()); const b = Date.now(); const c = Date(); const d = [1].map(Date.now); const e = new Date;').length, 5);
  t.same(instantsIn('x.ts', 'const a = now(); const b = Date.parse(t); const c = x.now; const d: Date = a; // new Date()'), []);
});

t.test('the hooks make no instant but in src/k8s/time.ts: they read the clock by calling the `now` of their context', async (t) => {
  // The hooks are what the hook routes and their runner reach (src/http/hooks.ts, which hands the
  // clock down): an instant made there would read the clock unseen, and an answer that read it
  // would be kept as if it had not (src/http/kept-answers.ts). The server's own timers (drain
  // deadlines, the in-flight budget) measure durations and reach no answer; the CLIs and the
  // simulation run hooks with clocks of their own making.
  const graph = importGraph();
  const hooks = new Set<string>();
  const reach = (file: string) => {
    if (hooks.has(file)) return;
    hooks.add(file);
    for (const dep of graph.get(file) ?? []) reach(dep);
  };
  reach('src/routes.ts');
  reach('src/http/hooks.ts');
  t.ok(hooks.has('src/controlplane/stages/korc.ts') && hooks.has('src/k8s/time.ts'), 'the stages and the instants module are among them');
  const found = [...hooks].filter((f) => f !== 'src/k8s/time.ts').flatMap((f) => instantsIn(f, readFileSync(join(REPO_ROOT, f), 'utf8')));
  t.same(found, [], 'instants made outside src/k8s/time.ts');
});
