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
