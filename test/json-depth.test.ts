// JSON nested thousands of levels deep (in a spec, an observed child, a related object, or JSON
// inside a string the hooks parse) is answered 400 or handled, never a 500 stack overflow, with
// capture on as well.
import t from 'tap';
import { mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { HOOK_ROUTES } from '../src/routes.js';
import { deeperThan, MAX_JSON_DEPTH, parseBounded } from '../src/k8s/json-depth.js';
import { LAST_APPLIED_ANNOTATION } from '../src/k8s/observed.js';
import { post, testServer } from './support/server.js';
import { converge, managedCP } from './support/sync.js';
import { syncRequest } from './support/world.js';
import type { Obj } from './support/shared.js';

/** `{"a":{"a":…{}…}}` nested `depth` levels, as text (JSON.stringify itself overflows deep down). */
const nested = (depth: number, key = 'a') => `${`{"${key}":`.repeat(depth - 1)}{}${'}'.repeat(depth - 1)}`;
/** `value` with a placeholder string replaced by raw JSON text. */
const splice = (value: unknown, text: string) => JSON.stringify(value).replace('"@DEEP@"', text);

t.test('deeperThan measures brackets outside strings, without recursion', async (t) => {
  t.equal(deeperThan('{"a":[1,{"b":2}]}', 3), -1);
  t.equal(deeperThan('{"a":[1,{"b":2}]}', 2), 8);
  t.equal(deeperThan('{"a":"[[[[{{{{\\"[[[["}', 1), -1, 'brackets in strings, escaped quotes included, do not count');
  t.equal(deeperThan(nested(MAX_JSON_DEPTH)), -1);
  t.ok(deeperThan(nested(MAX_JSON_DEPTH + 1)) > 0);
  t.ok(deeperThan('['.repeat(5_000_000)) > 0, 'five million levels: no stack overflow');
  t.equal(parseBounded(nested(MAX_JSON_DEPTH + 1)), undefined);
  t.same(parseBounded('{"a":1}'), { a: 1 });
});

/** The scan spelled out one character at a time: what deeperThan's string skipping must agree with. */
function deeperThanByCharacter(text: string, max: number): number {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === '{' || c === '[') {
      if (++depth > max) return i;
    } else if (c === '}' || c === ']') depth--;
  }
  return -1;
}

t.test('deeperThan agrees with a character-by-character scan on random text of quotes, backslashes and brackets', async (t) => {
  let seed = 20261123;
  const next = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648);
  const alphabet = ['"', '\\', '{', '}', '[', ']', 'a', ':', ','];
  let disagreements = 0;
  for (let n = 0; n < 20_000; n++) {
    const text = Array.from({ length: 1 + Math.floor(next() * 40) }, () => alphabet[Math.floor(next() * alphabet.length)]).join('');
    const max = Math.floor(next() * 4);
    if (deeperThan(text, max) !== deeperThanByCharacter(text, max)) disagreements++;
  }
  t.equal(disagreements, 0);
  const body = JSON.stringify({ a: 'x\\"[[[', b: [{ c: '\\\\' }, '{"d":"\\"}"'] });
  t.equal(deeperThan(body, 3), deeperThanByCharacter(body, 3));
  t.equal(deeperThan(body, 2), deeperThanByCharacter(body, 2));
  t.ok(deeperThan(body, 2) > 0);
});

t.test('every hook route: a body nested 2,000+ levels is 400 naming the limit, never 500', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'c5c3-depth-'));
  const { app } = await testServer({ bodyLimit: 8 * 1024 * 1024, capture: { dir, key: 'k' } });
  t.teardown(() => app.close());
  const world = await converge(app, managedCP());
  const ns = world.parent.metadata.namespace;
  const sa = { apiVersion: 'c5c3.io/v1alpha1', kind: 'SecretAggregate', metadata: { name: 'a', namespace: ns, generation: 1 }, spec: { sources: [{ secretRef: { name: 's' } }], target: { name: 't' } } };
  const cr = { apiVersion: 'c5c3.io/v1alpha1', kind: 'CredentialRotation', metadata: { name: 'r', namespace: ns, generation: 1 }, spec: { target: 'adminApplicationCredential' } };
  const envelope = (path: string, deepSpec: boolean): Obj => {
    const withDeep = (parent: Obj) => (deepSpec ? { ...parent, spec: { ...parent.spec, extra: '@DEEP@' } } : parent);
    if (path.endsWith('/customize')) return { controller: {}, parent: withDeep(path.startsWith('/credentialrotation') ? cr : path.startsWith('/secretaggregate') ? sa : world.parent) };
    if (path.startsWith('/credentialrotation')) return { controller: {}, object: withDeep(cr), attachments: {}, related: deepSpec ? {} : { 'ControlPlane.c5c3.io/v1alpha1': { [`${ns}/x`]: { ...world.parent, status: { deep: '@DEEP@' } } } } };
    if (path.startsWith('/secretaggregate')) return { controller: {}, parent: withDeep(sa), children: {}, related: deepSpec ? {} : { 'Secret.v1': { [`${ns}/s`]: { apiVersion: 'v1', kind: 'Secret', metadata: { name: 's', namespace: ns }, deep: '@DEEP@' } } } };
    const children = deepSpec ? world.children : world.children.map((c, i) => (i === 0 ? { ...c, status: { ...c.status, deep: '@DEEP@' } } : c));
    return syncRequest(withDeep(world.parent), children, world.related, path.endsWith('/finalize'));
  };
  for (const route of HOOK_ROUTES) {
    for (const deepSpec of [true, false]) {
      if (!deepSpec && route.path.endsWith('/customize')) continue;
      for (const depth of [2_000, 100_000]) {
        const where = deepSpec ? 'in the parent' : 'in an observed object';
        const res = await post(app, route.path, splice(envelope(route.path, deepSpec), nested(depth)));
        t.equal(res.status, 400, `${route.path}: ${depth} levels ${where}: 400`);
        t.match(res.json?.message, new RegExp(`nests deeper than ${MAX_JSON_DEPTH} levels`), `${route.path}: says why`);
      }
      const shallow = await post(app, route.path, splice(envelope(route.path, deepSpec), nested(MAX_JSON_DEPTH - 20)));
      t.not(shallow.status, 500, `${route.path}: ${MAX_JSON_DEPTH - 20} levels: handled`);
      t.not(shallow.json?.message ?? '', /nests deeper/, `${route.path}: not refused for its depth`);
    }
  }
  await app.c5c3.capture!.flush();
  t.ok(readdirSync(dir).length > 0, 'capture kept working');
});

t.test('JSON nested deep inside a string (a last-applied annotation) is handled: 200, nothing dropped', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'c5c3-depth-'));
  const { app } = await testServer({ bodyLimit: 8 * 1024 * 1024, capture: { dir, key: 'k' } });
  t.teardown(() => app.close());
  const world = await converge(app, managedCP());
  for (const depth of [MAX_JSON_DEPTH + 1, 5_000]) {
    const children = world.children.map((c, i) => {
      if (i !== 0) return c;
      const applied = JSON.parse(c.metadata.annotations[LAST_APPLIED_ANNOTATION]);
      const text = JSON.stringify({ ...applied, spec: { ...applied.spec, extra: '@DEEP@' } }).replace('"@DEEP@"', nested(depth));
      return { ...c, metadata: { ...c.metadata, annotations: { ...c.metadata.annotations, [LAST_APPLIED_ANNOTATION]: text } } };
    });
    // A string holding JSON that holds a string holding JSON …: every level within the bound.
    let inception: unknown = 'x';
    for (let i = 0; i < 12; i++) inception = JSON.stringify([[[[[[[[[[inception]]]]]]]]]]);
    children[1] = { ...children[1], status: { ...children[1]!.status, inception } };
    const res = await post(app, '/controlplane/sync', syncRequest(world.parent, children, world.related));
    t.equal(res.status, 200, `${depth} levels in the annotation: 200`);
    t.same(res.json.children.map((c: Obj) => `${c.kind}/${c.metadata.name}`).sort(), world.children.map((c) => `${c.kind}/${c.metadata.name}`).sort(), 'every child kept');
  }
  await app.c5c3.capture!.flush();
  t.equal(readdirSync(dir).length, world.history!.length + 2, 'every call captured');
});
