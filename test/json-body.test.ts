// The hook routes' JSON body parser (src/json-body.ts): each call its own parsed body, as JSON.parse
// reads it (`__proto__` an own key), neither kept nor frozen (a body that comes again is answered
// from the answer kept for its bytes, src/http/kept-answers.ts, before it is parsed); what is
// refused is refused every time; the benchmark's floor parses alike.
import t from 'tap';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseJsonBody } from '../src/json-body.js';
import { buildServer } from '../src/server.js';
import { REPO_ROOT } from './support/shared.js';

type Parser = typeof parseJsonBody;
const parseWith = (parser: Parser, text: string): { err: Error | null; body?: unknown } => {
  let out: { err: Error | null; body?: unknown } | undefined;
  parser({} as never, text, (err, body) => (out = { err, body }));
  return out!;
};

t.test('a text read again is parsed again: its own object, what JSON.parse reads, not frozen', async (t) => {
  const text = '{"parent":{"metadata":{"name":"cp","annotations":{"__proto__":"kept"}}},"children":{"a":[1,{"b":2}]}}';
  const [first, second, third] = [1, 2, 3].map(() => parseWith(parseJsonBody, text));
  t.equal(first!.err, null);
  t.not(second!.body, first!.body);
  t.not(third!.body, second!.body, 'never one shared object');
  for (const r of [first!, second!, third!]) {
    t.same(r.body, JSON.parse(text), 'what JSON.parse reads');
    t.notOk(Object.isFrozen(r.body), 'not frozen');
  }
  t.equal(Object.getOwnPropertyDescriptor((third!.body as { parent: { metadata: { annotations: object } } }).parent.metadata.annotations, '__proto__')?.value, 'kept', '__proto__ stays an own key');
});

t.test('refused bodies are refused every time', async (t) => {
  const deep = '['.repeat(600) + ']'.repeat(600);
  for (let i = 0; i < 3; i++) {
    const r = parseWith(parseJsonBody, deep);
    t.equal(r.err?.name, 'BodyTooDeep', `too deep, call ${i + 1}`);
    t.equal((r.err as Error & { statusCode?: number }).statusCode, 400);
    t.equal(parseWith(parseJsonBody, '{"a":').err?.name, 'FastifyError', `not JSON, call ${i + 1}`);
    t.equal(parseWith(parseJsonBody, '').err?.name, 'FastifyError', `empty, call ${i + 1}`);
  }
});

t.test('the server answers a repeated body alike, computed or kept', async (t) => {
  const dir = join(REPO_ROOT, 'hooks', 'controlplane-sync');
  const call = JSON.parse(readFileSync(join(dir, readdirSync(dir).sort().find((f) => /^managed-\d+-recover-converged\.json$/.test(f))!), 'utf8'));
  const app = await buildServer({ logger: false, clock: () => new Date(call.clock), randomSeed: call.randomSeed });
  t.teardown(() => app.close());
  const payload = JSON.stringify(call.request);
  const calls = [];
  for (let i = 0; i < 3; i++) calls.push(await app.inject({ method: 'POST', url: call.hook, headers: { 'content-type': 'application/json' }, payload }));
  const [first] = calls;
  t.equal(first!.statusCode, 200);
  t.same(calls.map((c) => c.body), calls.map(() => first!.body), 'byte-identical: computed twice, then kept');
  t.equal(JSON.parse(first!.body).status.conditions.find((c: { type: string }) => c.type === 'Ready').status, 'True');
});
