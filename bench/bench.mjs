// `npm run bench`: hook throughput against the JSON floor (an echo route that parses and
// re-serialises the same body), latency at concurrency 1 and 16, growth with payload size, RSS
// over a long run, and one CPU profile of the hot path. Prints the report; `--write` also writes
// it to BENCHMARKS.md. Progress goes to stderr.
import { fork } from 'node:child_process';
import { readFileSync, writeFileSync, readdirSync, mkdtempSync } from 'node:fs';
import { cpus, totalmem, tmpdir, type as osType, release } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';

const root = new URL('..', import.meta.url).pathname;
const USAGE = `usage: npm run bench -- [--write] [--output FILE] [--seconds N] [--long N]

Benchmarks the hooks server (built from dist/) in a child process with autocannon and prints a
Markdown report on stdout; progress goes to stderr. Takes about 20 measurements of --seconds each
plus the long run (about 4 minutes with the defaults).

  --write        also write the report to --output (keeping its "## Reading the numbers" part)
  --output FILE  where --write writes (default: BENCHMARKS.md)
  --seconds N    seconds per measurement (default: BENCH_SECONDS or 5)
  --long N       requests in the memory run (default: BENCH_LONG or 200000)
  -h, --help     this text; nothing is run

Exit codes: 0 done, 1 a measurement failed (non-2xx answers or errors), 2 usage error.`;

let args;
try {
  args = parseArgs({ options: { write: { type: 'boolean' }, output: { type: 'string' }, seconds: { type: 'string' }, long: { type: 'string' }, help: { type: 'boolean', short: 'h' } } }).values;
} catch (err) {
  process.stderr.write(`bench: ${err.message}\n${USAGE}\n`);
  process.exit(2);
}
if (args.help) {
  process.stdout.write(`${USAGE}\n`);
  process.exit(0);
}
const positive = (name, raw, fallback) => {
  const value = Number(raw ?? fallback);
  if (!Number.isInteger(value) || value < 1) {
    process.stderr.write(`bench: --${name} must be a positive whole number, got "${raw}"\n${USAGE}\n`);
    process.exit(2);
  }
  return value;
};
const SECONDS = positive('seconds', args.seconds, process.env.BENCH_SECONDS ?? 5);
const LONG = positive('long', args.long, process.env.BENCH_LONG ?? 200_000);
const OUTPUT = resolve(args.output ?? join(root, 'BENCHMARKS.md'));
const started = Date.now();
const progress = (what) => process.stderr.write(`bench [${Math.round((Date.now() - started) / 1000)} s]: ${what}\n`);
const hookFile = (p) => JSON.parse(readFileSync(join(root, 'hooks', p), 'utf8'));
/** The first hooks/ file of a folder whose name matches (numbering moves when the lifecycle does). */
const hookMatching = (dir, re) => {
  const name = readdirSync(join(root, 'hooks', dir)).sort().find((f) => re.test(f));
  if (!name) throw new Error(`bench: no hooks/${dir} file matches ${re}`);
  return hookFile(`${dir}/${name}`);
};

/** Metacontroller sends whole objects: managedFields included. Give each object a realistic set. */
function withManagedFields(request) {
  const copy = structuredClone(request);
  const visit = (o) => {
    if (o && typeof o === 'object' && o.metadata && o.kind) {
      const fields = Object.fromEntries(Object.keys(o.spec ?? o.data ?? {}).map((k) => [`f:${k}`, {}]));
      o.metadata.managedFields = [
        { manager: 'metacontroller', operation: 'Update', apiVersion: o.apiVersion, time: '2026-11-21T12:00:00Z', fieldsType: 'FieldsV1', fieldsV1: { 'f:metadata': { 'f:annotations': { '.': {}, 'f:metacontroller.k8s.io/last-applied-configuration': {} }, 'f:labels': { '.': {}, 'f:controller-uid': {} }, 'f:ownerReferences': { '.': {} } }, 'f:spec': fields } },
        { manager: 'operator', operation: 'Update', subresource: 'status', apiVersion: o.apiVersion, time: '2026-11-21T12:00:00Z', fieldsType: 'FieldsV1', fieldsV1: { 'f:status': { '.': {}, 'f:conditions': {}, 'f:observedGeneration': {} } } },
      ];
    }
    if (o && typeof o === 'object') for (const v of Object.values(o)) visit(v);
  };
  visit(copy);
  return copy;
}

/** `n` unrelated Secrets in `related`, as a namespace with many Secrets would add (customize selects by name, so this is the worst case of a wide rule). */
function withSecrets(request, n) {
  const copy = structuredClone(request);
  copy.related['Secret.v1'] ??= {};
  for (let i = 0; i < n; i++) {
    copy.related['Secret.v1'][`openstack/extra-${i}`] = { apiVersion: 'v1', kind: 'Secret', metadata: { name: `extra-${i}`, namespace: 'openstack', uid: `u-${i}`, resourceVersion: '1', annotations: { note: 'x'.repeat(200) } }, type: 'Opaque', data: { a: Buffer.from('y'.repeat(1500)).toString('base64') } };
  }
  return copy;
}

const converged = withManagedFields(hookMatching('controlplane-sync', /^managed-\d+-converge-converged\.json$/).request);
const payloads = [
  { name: 'sync, converged full-managed', path: '/controlplane/sync', body: converged },
  { name: 'sync, fresh', path: '/controlplane/sync', body: withManagedFields(hookMatching('controlplane-sync', /^managed-\d+-converge-waiting-for-database\.json$/).request) },
  { name: 'finalize, first step', path: '/controlplane/finalize', body: withManagedFields(hookMatching('controlplane-finalize', /^managed-\d+-delete-deletes-endpoint-service\.json$/).request) },
];

async function startServer(execArgv = []) {
  const child = fork(join(root, 'bench', 'server.mjs'), [], { execArgv, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const { port } = await new Promise((resolve) => child.once('message', resolve));
  return { child, url: `http://127.0.0.1:${port}` };
}

async function load(url, path, body, connections, extra = {}) {
  progress(`${path} at concurrency ${connections}, ${kib(body)} KiB body, ${SECONDS} s`);
  const result = await autocannon({ url: `${url}${path}`, method: 'POST', headers: { 'content-type': 'application/json' }, body, connections, duration: SECONDS, ...extra });
  if (result.non2xx > 0 || result.errors > 0) throw new Error(`${path}: ${result.non2xx} non-2xx, ${result.errors} errors`);
  return { rps: result.requests.average, p50: result.latency.p50, p99: result.latency.p99, requests: result.requests.total };
}

const rss = async (url) => (await (await fetch(`${url}/bench/rss`)).json()).rss;
const mb = (b) => (b / 1024 / 1024).toFixed(0);
const kib = (s) => (Buffer.byteLength(s) / 1024).toFixed(0);

const lines = [];
const out = (s = '') => {
  console.log(s);
  lines.push(s);
};

const server = await startServer();
out('# Benchmarks');
out();
out(`Machine: ${cpus().length} × ${cpus()[0]?.model ?? 'unknown CPU'}, ${mb(totalmem())} MB RAM, ${osType()} ${release()}, Node ${process.version}. Server and load generator (autocannon) share the machine; ${SECONDS} s per measurement. Reproduce with \`npm run bench -- --write\`.`);
out();
out('## Throughput and latency, hook vs echo of the same body');
out();
out('| payload | body KiB | route | conc. | req/s | p50 ms | p99 ms | hook/echo |');
out('|---|---|---|---|---|---|---|---|');
for (const p of payloads) {
  const body = JSON.stringify(p.body);
  for (const connections of [1, 16]) {
    const hook = await load(server.url, p.path, body, connections);
    const echo = await load(server.url, '/bench/echo', body, connections);
    out(`| ${p.name} | ${kib(body)} | hook | ${connections} | ${hook.rps.toFixed(0)} | ${hook.p50} | ${hook.p99} | ${(hook.rps / echo.rps).toFixed(2)} |`);
    out(`| | | echo | ${connections} | ${echo.rps.toFixed(0)} | ${echo.p50} | ${echo.p99} | |`);
  }
}
out();
out('## Growth with payload size (converged sync, concurrency 16)');
out();
out('| extra Secrets in the request | body KiB | hook req/s | echo req/s | hook/echo | hook p99 ms |');
out('|---|---|---|---|---|---|');
for (const n of [1, 10, 50]) {
  const body = JSON.stringify(withSecrets(converged, n));
  const hook = await load(server.url, '/controlplane/sync', body, 16);
  const echo = await load(server.url, '/bench/echo', body, 16);
  out(`| ${n} | ${kib(body)} | ${hook.rps.toFixed(0)} | ${echo.rps.toFixed(0)} | ${(hook.rps / echo.rps).toFixed(2)} | ${hook.p99} |`);
}
out();
out(`## Memory over a long run (${LONG} converged syncs, concurrency 16)`);
out();
const before = await rss(server.url);
progress(`long run: ${LONG} converged syncs`);
let done = 0;
const longRun = autocannon({ url: `${server.url}/controlplane/sync`, method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(converged), connections: 16, amount: LONG });
longRun.on('response', () => done++);
const ticker = setInterval(() => progress(`long run: ${done} of ${LONG} requests`), 10_000);
const long = await longRun;
clearInterval(ticker);
const after = await rss(server.url);
out(`RSS before ${mb(before)} MB, after ${mb(after)} MB (${long.requests.total} requests, ${long.non2xx} non-2xx, ${long.duration.toFixed(0)} s).`);
server.child.disconnect();

out();
out('## Where the time goes (CPU profile of the converged sync at concurrency 16)');
out();
const profDir = mkdtempSync(join(tmpdir(), 'c5c3-prof-'));
const profiled = await startServer(['--cpu-prof', `--cpu-prof-dir=${profDir}`]);
await load(profiled.url, '/controlplane/sync', JSON.stringify(converged), 16);
profiled.child.disconnect();
await new Promise((r) => profiled.child.once('exit', r));
const profile = JSON.parse(readFileSync(join(profDir, readdirSync(profDir)[0]), 'utf8'));
const self = new Map();
const dt = profile.timeDeltas;
const byId = new Map(profile.nodes.map((n) => [n.id, n]));
profile.samples.forEach((id, i) => {
  const f = byId.get(id).callFrame;
  const pkg = f.url.match(/node_modules\/((?:@[^/]+\/)?[^/]+)\//)?.[1];
  const where = !f.url ? '(native)' : pkg ? `node_modules/${pkg}` : f.url.replace(/^.*\/dist\//, 'dist/');
  const key = `${f.functionName || '(anonymous)'} ${where}`;
  self.set(key, (self.get(key) ?? 0) + (dt[i] ?? 0));
});
const total = [...self.values()].reduce((a, b) => a + b, 0);
out('| self time | function |');
out('|---|---|');
for (const [key, us] of [...self.entries()].sort((a, b) => b[1] - a[1]).slice(0, 15)) out(`| ${((us / total) * 100).toFixed(1)} % | \`${key}\` |`);
const group = (re) => [...self.entries()].filter(([k]) => re.test(k)).reduce((a, [, v]) => a + v, 0) / total;
out();
out(`By area: our hook code (dist/) ${(group(/ dist\//) * 100).toFixed(0)} %, yaml (clouds.yaml parse/render) ${(group(/node_modules\/yaml/) * 100).toFixed(0)} %, ajv (spec validation) ${(group(/validate|ajv/) * 100).toFixed(0)} %, JSON parse/serialise and fastify ${(group(/JSON|fastify|secure-json|fast-json|RegExp/) * 100).toFixed(0)} %, garbage collection ${(group(/garbage collector/) * 100).toFixed(0)} %, idle ${(group(/\(idle\)/) * 100).toFixed(0)} %.`);

progress('done');
if (!args.write) {
  process.stderr.write(`\nbench: report not written; run with --write to update ${OUTPUT}\n`);
  process.exit(0);
}
// The hand-written reading of the numbers (from "## Reading the numbers" on) is kept.
let reading = '';
try {
  const previous = readFileSync(OUTPUT, 'utf8');
  const at = previous.indexOf('\n## Reading the numbers');
  if (at >= 0) reading = previous.slice(at);
} catch {
  /* first run */
}
writeFileSync(OUTPUT, `${lines.join('\n')}\n${reading}`);
process.stderr.write(`\nbench: wrote ${OUTPUT}\n`);
