// test/node24.txt, the files `.ci/run` runs again under Node 24: each exists, and every unit-suite
// file that uses a module of the runtime that differs between Node majors (network, processes,
// streams, crypto, vm, v8) is among them.
import t from 'tap';
import { readdirSync, readFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(fileURLToPath(new URL('.', import.meta.url)), '..', '..');
const listed = readFileSync(join(root, 'test', 'node24.txt'), 'utf8')
  .split('\n')
  .map((l) => l.trim())
  .filter((l) => l !== '' && !l.startsWith('#'));
const RUNTIME = /from 'node:(net|http|https|http2|child_process|stream|stream\/promises|worker_threads|crypto|vm|v8|zlib)'/;

function unitFiles(dir: string): string[] {
  return readdirSync(join(root, dir), { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? (e.name === 'long' || e.name === 'support' ? [] : unitFiles(`${dir}/${e.name}`)) : e.name.endsWith('.test.ts') ? [`${dir}/${e.name}`] : [],
  );
}

t.test('every listed file exists, once', async (t) => {
  t.ok(listed.length >= 20, `${listed.length} files`);
  for (const f of listed) t.ok(existsSync(join(root, f)), f);
  t.equal(new Set(listed).size, listed.length, 'no file twice');
});

t.test('every unit-suite file that uses a runtime module is listed', async (t) => {
  const files = unitFiles('test');
  t.ok(files.length > 80, `${files.length} unit-suite files`);
  const missing = files.filter((f) => RUNTIME.test(readFileSync(join(root, f), 'utf8')) && !listed.includes(f));
  t.same(missing, [], 'not run under Node 24 but using the runtime');
});
