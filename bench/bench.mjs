// `npm run bench`: what a hook call costs next to what reading its input costs. The server runs as
// deployed (bench/server.mjs: logging at info into a file, the overload guard on); each hook is
// measured against the same-size floor (the same body parsed, a fixed object of the hook's own
// answer returned) and the echo (the same body parsed and serialised back), after a warm-up,
// every cell repeated and reported as median (min–max). Then: cost against the number of
// observed children, CredentialRotations and access rules; RSS over a long run; one CPU profile
// by package (inclusive, start-up excluded). Prints the report; `--write` also writes BENCHMARKS.md.
// Progress goes to stderr.
import { fork } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readFileSync, readSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, release, tmpdir, totalmem, type as osType } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import { parse } from 'yaml';
import { changed, esoRefreshing, fleetOf, fleetTemplate, FLEETS } from './fleet.mjs';
import { MEMO } from '../dist/memo.js';
import { controlPlaneController } from '../dist/crd/controllers.js';

const root = new URL('..', import.meta.url).pathname;
const USAGE = `usage: npm run bench -- [--write] [--output FILE] [--seconds N] [--repeats N] [--long] [--smoke]

Benchmarks the hooks server (built from dist/, configured as deployed) in a child process with
autocannon and prints a Markdown report on stdout; progress goes to stderr. About 15 minutes
with the defaults, plus the long run with --long.

  --write        also write the report to --output (keeping its "## Reading the numbers" part)
  --output FILE  where --write writes (default: BENCHMARKS.md)
  --seconds N    seconds per measurement, decimals allowed (default: BENCH_SECONDS or 5)
  --repeats N    measurements per cell; the report shows median (min–max) (default: 3)
  --long         the memory run is BENCH_LONG requests (default 1000000) instead of 50000
  --smoke        a quick check of the whole run (cells of 2 × concurrency requests, 1 repeat,
                 small rows): no figures
  --only LIST    run only these sections (comma-separated: cases, fleet, eso, ceiling, pace, memos,
                 scale, memory, profile);
                 for iterating: a report to quote is a whole run
  --fleet-sizes LIST  the fleet rows' sizes (comma-separated; default 1,30,300,3000)
  --overload-guard-off  the server's overload guard off (MAX_EVENT_LOOP_DELAY_MS=0): on a machine
                 so busy that the guard answers 429 and the run stops; said in the report's header
  -h, --help     this text; nothing is run

Exit codes: 0 done, 1 a measurement failed (non-2xx answers or errors), 2 usage error.`;

let args;
try {
  args = parseArgs({
    options: {
      write: { type: 'boolean' },
      output: { type: 'string' },
      seconds: { type: 'string' },
      repeats: { type: 'string' },
      long: { type: 'boolean' },
      smoke: { type: 'boolean' },
      only: { type: 'string' },
      'fleet-sizes': { type: 'string' },
      'overload-guard-off': { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
  }).values;
} catch (err) {
  process.stderr.write(`bench: ${err.message}\n${USAGE}\n`);
  process.exit(2);
}
if (args.help) {
  process.stdout.write(`${USAGE}\n`);
  process.exit(0);
}
const number = (name, raw, fallback, { whole }) => {
  const value = Number(raw ?? fallback);
  if (!Number.isFinite(value) || value <= 0 || (whole && !Number.isInteger(value))) {
    process.stderr.write(`bench: --${name} must be a positive ${whole ? 'whole ' : ''}number, got "${raw}"\n${USAGE}\n`);
    process.exit(2);
  }
  return value;
};
const SMOKE = Boolean(args.smoke);
const SECTIONS = ['cases', 'fleet', 'eso', 'ceiling', 'pace', 'memos', 'scale', 'memory', 'profile'];
const ONLY = args.only === undefined ? SECTIONS : args.only.split(',');
for (const s of ONLY) {
  if (!SECTIONS.includes(s)) {
    process.stderr.write(`bench: --only takes ${SECTIONS.join(', ')}, got "${s}"\n${USAGE}\n`);
    process.exit(2);
  }
}
const wanted = (section) => ONLY.includes(section);
const SECONDS = number('seconds', args.seconds, SMOKE ? 0.2 : (process.env.BENCH_SECONDS ?? 5), { whole: false });
const REPEATS = number('repeats', args.repeats, SMOKE ? 1 : 3, { whole: true });
const LONG = SMOKE ? 300 : args.long ? number('long', process.env.BENCH_LONG, 1_000_000, { whole: true }) : 50_000;
const WARMUP_SECONDS = SMOKE ? 0.1 : Math.max(1, SECONDS / 2);
const SCALE = SMOKE ? [1, 3] : [1, 100, 1000];
const OUTPUT = resolve(args.output ?? join(root, 'BENCHMARKS.md'));
const started = Date.now();
const progress = (what) => process.stderr.write(`bench [${Math.round((Date.now() - started) / 1000)} s]: ${what}\n`);

// ---------------------------------------------------------------------------------------------
// The requests: captured calls from hooks/ (numbering moves with the lifecycle, so by pattern).
const hookMatching = (dir, re) => {
  const name = readdirSync(join(root, 'hooks', dir)).sort().find((f) => re.test(f));
  if (!name) throw new Error(`bench: no hooks/${dir} file matches ${re}`);
  return { file: `hooks/${dir}/${name}`, ...JSON.parse(readFileSync(join(root, 'hooks', dir, name), 'utf8')) };
};
const convergedCall = hookMatching('controlplane-sync', /^managed-\d+-recover-converged\.json$/);
// The converged call above is the one that converges (its Ready turns True); a ControlPlane that
// stays converged is then resynced with its own answer's status: the most frequent call of all.
const steadyCall = {
  ...convergedCall,
  file: `${convergedCall.file} (its answer's status fed back)`,
  request: { ...convergedCall.request, parent: { ...convergedCall.request.parent, status: convergedCall.response.status } },
};
// Bodies that differ from call to call: the converged request with the parent's resourceVersion
// numbered, 256 variants, cycled. (The answers kept for their bytes, src/http/kept-answers.ts,
// remember more bodies than that: a variant that comes again may be answered from them.)
const VARIANTS = 256;
const everyBodyNew = (request) =>
  Array.from({ length: VARIANTS }, (_, i) =>
    JSON.stringify({ ...request, parent: { ...request.parent, metadata: { ...request.parent.metadata, resourceVersion: `${request.parent.metadata.resourceVersion ?? ''}-${i}` } } }),
  );
const CASES = [
  { name: 'sync, converged', goal: 0.7, call: convergedCall },
  { name: 'sync, converged, every body new', call: convergedCall, vary: true, concurrency: [16] },
  { name: 'sync, steady', call: steadyCall },
  { name: 'sync, fresh', goal: 0.9, call: hookMatching('controlplane-sync', /^managed-\d+-converge-waiting-for-database\.json$/) },
  { name: 'finalize, first step', goal: 0.9, call: hookMatching('controlplane-finalize', /^managed-\d+-delete-deletes-endpoint-service\.json$/) },
];

const G = {
  endpoint: 'Endpoint.openstack.k-orc.cloud/v1alpha1',
  ac: 'ApplicationCredential.openstack.k-orc.cloud/v1alpha1',
  rotation: 'CredentialRotation.c5c3.io/v1alpha1',
};
const only = (map, what) => {
  const values = Object.values(map ?? {});
  if (values.length !== 1) throw new Error(`bench: expected one ${what} in ${convergedCall.file}, found ${values.length}`);
  return values[0];
};
const LAST_APPLIED = 'metacontroller.k8s.io/last-applied-configuration';
/** Change an observed object and its last-applied copy alike (what Metacontroller would show). */
function edit(obj, change) {
  change(obj);
  const raw = obj.metadata.annotations?.[LAST_APPLIED];
  if (raw) {
    const applied = JSON.parse(raw);
    change(applied);
    obj.metadata.annotations[LAST_APPLIED] = JSON.stringify(applied);
  }
}

/** The converged request with `n` observed children in all: extra K-ORC Endpoints no stage asks for (kept as last applied). */
function withChildren(request, n) {
  const copy = structuredClone(request);
  const template = only(copy.children[G.endpoint], 'Endpoint');
  const base = Object.values(copy.children).reduce((sum, group) => sum + Object.keys(group).length, 0);
  for (let i = 0; i < n - base; i++) {
    const extra = structuredClone(template);
    edit(extra, (o) => {
      o.metadata.name = `extra-endpoint-${i}`;
      if (o.spec?.resource) o.spec.resource.url = `https://extra-${i}.example/v3`;
    });
    extra.metadata.uid = `uid-extra-${i}`;
    copy.children[G.endpoint][`${extra.metadata.namespace}/${extra.metadata.name}`] = extra;
  }
  return copy;
}

/** The converged request with `n` CredentialRotations latched and honoured by the live AC (nothing pending). */
function withRotations(request, n) {
  const copy = structuredClone(request);
  const template = only(copy.related[G.rotation], 'CredentialRotation');
  const keys = [];
  copy.related[G.rotation] = {};
  for (let i = 0; i < n; i++) {
    const cr = structuredClone(template);
    if (i > 0) {
      cr.metadata.name = `${template.metadata.name}-${i}`;
      cr.metadata.uid = `uid-rotation-${i}`;
    }
    keys.push(`${cr.metadata.uid}/${cr.status.lastTriggeredGeneration}`);
    copy.related[G.rotation][`${cr.metadata.namespace}/${cr.metadata.name}`] = cr;
  }
  keys.sort();
  edit(only(copy.children[G.ac], 'ApplicationCredential'), (o) => {
    o.metadata.annotations['c5c3.io/rotation-requests'] = keys.join(',');
  });
  return copy;
}

/** The converged request with `n` access rules in the spec, carried by the live AC (no drift). */
function withAccessRules(request, n) {
  const copy = structuredClone(request);
  const rules = Array.from({ length: n }, (_, i) => ({ service: 'identity', method: 'GET', path: `/v3/projects/${i}` }));
  const credential = copy.parent.spec.korc.adminCredential;
  credential.applicationCredential = { ...credential.applicationCredential, accessRules: rules };
  edit(only(copy.children[G.ac], 'ApplicationCredential'), (o) => {
    o.spec.resource.accessRules = rules.map((r) => ({ method: r.method, path: r.path, serviceRef: r.service }));
  });
  return copy;
}

// ---------------------------------------------------------------------------------------------
// The server and the load.
const logDir = mkdtempSync(join(tmpdir(), 'c5c3-bench-'));
const logFile = join(logDir, 'server.log');
/** Lines of `file`, read in chunks: a whole run's log (one line a request) passes the longest string V8 makes. */
function lineCount(file) {
  const fd = openSync(file, 'r');
  const chunk = Buffer.alloc(1 << 20);
  let lines = 0;
  for (let n; (n = readSync(fd, chunk, 0, chunk.length, null)) > 0; ) {
    for (let i = chunk.indexOf(10); i !== -1 && i < n; i = chunk.indexOf(10, i + 1)) lines++;
  }
  closeSync(fd);
  return lines;
}

/** The environment of the deployed container (manifests/deployment.yaml), NODE_OPTIONS included; listening here on a free local port. */
const deployment = parse(readFileSync(join(root, 'manifests', 'deployment.yaml'), 'utf8'));
const deployedEnv = Object.fromEntries(
  deployment.spec.template.spec.containers[0].env.filter((e) => e.value !== undefined).map((e) => [e.name, String(e.value)]),
);

async function startServer() {
  const log = openSync(logFile, 'a');
  const env = { PATH: process.env.PATH, ...deployedEnv, PORT: '0', HOST: '127.0.0.1', SHUTDOWN_DELAY_SECONDS: '0' };
  // A smoke run checks the benchmark, not the service: on a saturated machine the overload guard
  // would answer 429 (and fail the check), so it is off there; every measuring run keeps it.
  if (SMOKE || args['overload-guard-off']) env.MAX_EVENT_LOOP_DELAY_MS = '0';
  const child = fork(join(root, 'bench', 'server.mjs'), [], { env, stdio: ['ignore', log, 'inherit', 'ipc'] });
  closeSync(log);
  const ready = await new Promise((resolve, reject) => {
    child.once('message', resolve);
    child.once('exit', (code) => reject(new Error(`bench: the server exited (${code}) before listening`)));
  });
  return { child, url: `http://127.0.0.1:${ready.port}`, logLevel: ready.logLevel, maxEventLoopDelayMs: ready.maxEventLoopDelayMs };
}
const server = await startServer();
const usage = async () => (await fetch(`${server.url}/bench/usage`)).json();
const setFloor = async (answer) => {
  const r = await fetch(`${server.url}/bench/floor`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: answer });
  if (!r.ok) throw new Error(`bench: PUT /bench/floor answered ${r.status}`);
};
/** The hook's answer to `body` (once, outside any measurement): the floor returns an object of its size. */
async function answerOf(path, body) {
  let r;
  // The overload guard answers 429 until its first event-loop sample (500 ms after start).
  for (let tries = 0; ; tries++) {
    try {
      r = await fetch(`${server.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    } catch (err) {
      // A kept-alive connection the server closed while the bench was busy (making a fleet's
      // members takes minutes): a new connection, once.
      if (tries > 0) throw err;
      continue;
    }
    if (r.status !== 429 || tries >= 20) break;
    await r.text();
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  const text = await r.text();
  if (!r.ok) throw new Error(`bench: ${path} answered ${r.status}: ${text.slice(0, 300)}`);
  return text;
}

/** A measurement with non-2xx answers or errors: reported in its row, and the run exits 1. */
class MeasurementFailed extends Error {}
let failures = 0;

const percentile = (sorted, p) => (sorted.length === 0 ? NaN : sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]);

/** One measurement: requests per second, latency percentiles (ms, fractional) and server CPU per request. */
async function load(path, body, connections, seconds, { quiet = false, amount, rate } = {}) {
  // A list of bodies: each request takes the next (every body new when the list outnumbers the
  // memo); a fleet: a function giving the body of the k-th request of this measurement.
  const bodies = Array.isArray(body) ? body : undefined;
  const source = typeof body === 'function' ? body : undefined;
  if (bodies) body = bodies[0];
  if (source) body = source(0);
  if (!quiet) progress(`${path} at concurrency ${connections}, ${kib(body)} KiB body${bodies ? ` (${bodies.length} variants)` : ''}${source ? ` (${source.label})` : ''}, ${seconds} s`);
  let next = 0;
  const requests = bodies
    ? [{ setupRequest: (request) => ({ ...request, body: bodies[next++ % bodies.length] }) }]
    : source
      ? [{ setupRequest: (request) => ({ ...request, body: source(next++) }) }]
      : undefined;
  // A smoke cell is a count of requests, not a time: on a busy machine a fifth of a second may
  // finish none, and a report with no figure in a cell is no check of it.
  if (SMOKE) amount ??= 2 * connections;
  const before = await usage();
  const latencies = [];
  let ok = 0;
  const t0 = process.hrtime.bigint();
  const instance = autocannon({ url: `${server.url}${path}`, method: 'POST', headers: { 'content-type': 'application/json' }, body, requests, connections, ...(amount === undefined ? { duration: seconds } : { amount }), ...(rate === undefined ? {} : { overallRate: rate }), sampleInt: 100 });
  instance.on('response', (_client, statusCode, _bytes, ms) => {
    if (statusCode >= 200 && statusCode < 300) {
      ok++;
      latencies.push(ms);
    }
  });
  const result = await instance;
  const elapsed = Number(process.hrtime.bigint() - t0) / 1e9;
  const after = await usage();
  if (result.non2xx > 0 || result.errors > 0 || result.timeouts > 0) {
    const codes = Object.entries(result.statusCodeStats ?? {}).filter(([code]) => !code.startsWith('2')).map(([code, { count }]) => `${count} × ${code}`);
    throw new MeasurementFailed(`${path}: ${[...codes, `${result.errors} errors`, `${result.timeouts} timeouts`].join(', ')}`);
  }
  latencies.sort((a, b) => a - b);
  return { rps: ok / elapsed, p50: percentile(latencies, 50), p99: percentile(latencies, 99), cpuUs: (after.cpuMicros - before.cpuMicros) / Math.max(1, ok) };
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const spread = (xs, f) => (xs.length < 2 ? f(xs[0]) : `${f(median(xs))} (${f(Math.min(...xs))}–${f(Math.max(...xs))})`);
const stat = (runs, pick, f) => spread(runs.map(pick), f);
const int = (x) => x.toFixed(0);
const ms = (x) => x.toFixed(2);
const two = (x) => x.toFixed(2);
const mb = (b) => (b / 1024 / 1024).toFixed(0);
const kib = (s) => (Buffer.byteLength(s) / 1024).toFixed(0);

/**
 * A cell: the routes measured back to back, `REPEATS` times, after a warm-up of each; every
 * ratio is taken within one repeat (same moment of a shared machine), then the median of those.
 */
async function cell(routes, body, connections) {
  for (const path of routes) await load(path, body, connections, WARMUP_SECONDS, { quiet: true });
  const runs = [];
  for (let r = 0; r < REPEATS; r++) {
    const run = {};
    for (const path of routes) run[path] = await load(path, body, connections, SECONDS);
    runs.push(run);
  }
  return runs;
}

const lines = [];
const out = (s = '') => {
  console.log(s);
  lines.push(s);
};

const date = new Date().toISOString().slice(0, 10);
out('# Benchmarks');
out();
out(
  `Machine: ${cpus().length} × ${cpus()[0]?.model ?? 'unknown CPU'}, ${mb(totalmem())} MB RAM, ${osType()} ${release()}. ` +
    `Node ${process.version}. Date: ${date}. Server and load generator (autocannon) share the machine; load average (1, 5, 15 min) at the start ${loadavg().map((x) => x.toFixed(1)).join(', ')} (what else ran: see "Reading the numbers"). ` +
    `Server as deployed (the env of manifests/deployment.yaml): log level ${server.logLevel} (one line per request, into a file), ${server.maxEventLoopDelayMs > 0 ? `overload guard at ${server.maxEventLoopDelayMs} ms event-loop delay` : `overload guard off (${SMOKE ? 'smoke run only' : '--overload-guard-off: the machine was too busy for it'})`}, ` +
    `in-flight bodies ${deployedEnv.MAX_INFLIGHT_BYTES ?? 'default'}, NODE_OPTIONS \`${deployedEnv.NODE_OPTIONS ?? ''}\`. ` +
    `${SECONDS} s per measurement after a ${WARMUP_SECONDS} s warm-up, ${REPEATS} repeat${REPEATS > 1 ? 's' : ''} per cell: median (min–max). ` +
    `Reproduce with \`npm run bench -- --write${args.seconds ? ` --seconds ${args.seconds}` : ''}${args.repeats ? ` --repeats ${args.repeats}` : ''}${args.long ? ' --long' : ''}\`.`,
);
if (SMOKE) out('\n**Smoke run (`--smoke`): a check that the benchmark runs, not figures to quote.**');
const ratioOf = (runs, a, b, pick) => runs.map((r) => pick(r[a]) / pick(r[b]));
const HOOK_ROUTES = (path) => [path, '/bench/floor', '/bench/echo'];
if (wanted('cases')) {
  out();
  out('## Hook against the same-size floor and the echo');
  out();
  out(
    'The floor parses the same body as the hook (the same parser, minus noting where the observed objects are: it parses every call; the same log line) and answers a fixed object: the hook\'s own answer to that body. ' +
      'The hook answers a body it answered before from the answer kept for its bytes when that answer called neither clock nor random (src/http/kept-answers.ts), so a case that repeats one body (every case but "every body new", like a converged ControlPlane\'s resync) measures the hook on a body it answered before; "every body new" cycles through 256 variants of the converged request. ' +
      '"ratio" is hook req/s ÷ floor req/s, "p99 × floor" the hook\'s p99 over the floor\'s, "CPU × floor" the server CPU per request over the floor\'s.',
  );
  out();
  out('| case | body KiB | answer KiB | conc. | hook req/s | floor req/s | echo req/s | hook/floor | goal | hook p50 ms | hook p99 ms | floor p99 ms | p99 × floor | CPU µs/req hook | CPU × floor |');
  out('|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|');
  for (const c of CASES) {
    const body = JSON.stringify(c.call.request);
    const bodies = c.vary ? everyBodyNew(c.call.request) : body;
    const answer = await answerOf(c.call.hook, c.vary ? bodies[0] : body);
    await setFloor(answer);
    for (const connections of c.concurrency ?? [1, 16]) {
      const runs = await cell(HOOK_ROUTES(c.call.hook), bodies, connections);
      const [hook, floor, echo] = HOOK_ROUTES(c.call.hook);
      const ratios = ratioOf(runs, hook, floor, (m) => m.rps);
      const goal = connections === 16 && c.goal !== undefined ? `≥ ${c.goal}: ${median(ratios) >= c.goal ? 'met' : 'missed'}` : '';
      out(
        `| ${c.name} | ${kib(body)} | ${kib(answer)} | ${connections} | ${stat(runs, (r) => r[hook].rps, int)} | ${stat(runs, (r) => r[floor].rps, int)} | ${stat(runs, (r) => r[echo].rps, int)} ` +
          `| ratio ${spread(ratios, two)} | ${goal} | ${stat(runs, (r) => r[hook].p50, ms)} | ${stat(runs, (r) => r[hook].p99, ms)} | ${stat(runs, (r) => r[floor].p99, ms)} ` +
          `| ${spread(ratioOf(runs, hook, floor, (m) => m.p99), two)} | ${stat(runs, (r) => r[hook].cpuUs, int)} | ${spread(ratioOf(runs, floor, hook, (m) => 1 / m.cpuUs), two)} |`,
      );
    }
  }
  out();
  out(`Goals (issue 20): converged sync ≥ 0.7 × the floor at concurrency 16 with p99 ≤ 2 × the floor's; fresh sync and finalize ≥ 0.9 × the floor. Captured requests: ${CASES.map((c) => `${c.name}: \`${c.call.file}\``).join(', ')}; "sync, steady" is the converged request with its answer's status fed back (a converged ControlPlane's resync), reported without a goal; "every body new" is the converged request that is never repeated (what a call costs when its body changed), reported without a goal.`);
}

// ---------------------------------------------------------------------------------------------
// The fleet (issue 34): N converged ControlPlanes (bench/fleet.mjs), the hook called for each in
// turn, the floor with the same bodies in the same order; "one changing" replaces, each round
// (one turn through the fleet), one member's body with a body the server has not seen (the call
// after a status write), a different member each round.
const FLEET_SIZES = args['fleet-sizes'] !== undefined
  ? args['fleet-sizes'].split(',').map((n) => number('fleet-sizes', n, undefined, { whole: true }))
  : SMOKE ? [1, 3] : [1, 30, 300, 3000];
const FLEET_CONCURRENCY = SMOKE ? [16] : [16, 2];
const FLEET_GOAL = { size: 300, connections: 16, ratio: 0.8, cpu: 1.3, p99: 1.5 };
const memoLookups = async () => {
  const text = await (await fetch(`${server.url}/metrics`)).text();
  const counts = new Map();
  for (const m of text.matchAll(/^c5c3_hooks_memo_lookups_total\{memo="([a-z_]+)",result="(hit|miss)"\} (\d+)$/gm)) {
    const c = counts.get(m[1]) ?? { hit: 0, miss: 0 };
    c[m[2]] = Number(m[3]);
    counts.set(m[1], c);
  }
  return counts;
};
/** Hit rates of the memos looked up between two snapshots, as "memo hits %" (memos not looked up left out). */
const hitRates = (before, after) =>
  [...after]
    .map(([memo, c]) => ({ memo, hit: c.hit - (before.get(memo)?.hit ?? 0), miss: c.miss - (before.get(memo)?.miss ?? 0) }))
    .filter((c) => c.hit + c.miss > 0)
    .map((c) => `${memo(c.memo)} ${((100 * c.hit) / (c.hit + c.miss)).toFixed(0)} %`)
    .join(', ');
const memo = (name) => name.replace(/_/g, '-');
/** Each fleet's members and the template's answer (made once, for the fleet rows, the memo table and the long run). */
const fleets = new Map();
/** The fleet made from `spec` (bench/fleet.mjs FLEETS): its members, and the server's answer to the template. */
async function prepareFleet(spec) {
  if (fleets.has(spec.key)) return fleets.get(spec.key);
  progress(`fleet (${spec.label}): simulating a ControlPlane to convergence`);
  let template = await fleetTemplate(root, spec.example);
  let answer;
  // Its steady resync under the server's clock: the status it answers fed back until it repeats.
  for (let i = 0; ; i++) {
    answer = await answerOf('/controlplane/sync', template);
    const request = JSON.parse(template);
    const status = JSON.parse(answer).status;
    if (JSON.stringify(request.parent.status) === JSON.stringify(status)) break;
    if (i >= 5) throw new Error(`bench: the fleet template's status never settles (${spec.example})`);
    request.parent.status = status;
    template = JSON.stringify(request);
  }
  const ready = JSON.parse(answer).status.conditions.find((c) => c.type === 'Ready');
  if (ready?.status !== 'True') throw new Error(`bench: the fleet template (${spec.example}) is not Ready: ${JSON.stringify(ready)}`);
  const fleet = fleetOf(template);
  const largest = Math.max(...FLEET_SIZES);
  progress(`fleet (${spec.label}): ${largest} members`);
  const members = [];
  for (let i = 0; i < largest; i++) {
    members.push(fleet.member(i));
    if ((i + 1) % 500 === 0) progress(`fleet (${spec.label}): ${i + 1} members made`);
  }
  // Every member a valid converged request: its answer is the template's, rewritten alike (all of
  // the first 30, then every 10th; and one changed body).
  const checked = members.map((m, i) => ({ m, i })).filter(({ i }) => i < 30 || i % 10 === 0);
  progress(`fleet (${spec.label}): checking ${checked.length} members' answers`);
  for (const { m, i } of checked) {
    if ((await answerOf('/controlplane/sync', m.body)) !== m.answer(answer)) throw new Error(`bench: fleet member ${i}'s answer is not the template's rewritten (${spec.example})`);
  }
  if ((await answerOf('/controlplane/sync', changed(members[0].body, 0))) !== members[0].answer(answer)) throw new Error(`bench: a changed fleet member's answer differs (${spec.example})`);
  // Six hours of ESO's refreshes later (every ExternalSecret and PushSecret refreshed since), the
  // same answer: what ESO rewrites changes a body's bytes, not what the hook makes of it.
  if ((await answerOf('/controlplane/sync', esoRefreshing(members[0].body, 0).at(6 * 3600))) !== members[0].answer(answer)) throw new Error(`bench: an ESO-refreshed fleet member's answer differs (${spec.example})`);
  const prepared = { ...spec, members, answer };
  fleets.set(spec.key, prepared);
  return prepared;
}
/**
 * Where each route's measurements of a fleet cell go on (by a key the cell chooses): a measurement
 * shorter than a round of a large fleet (3,000 compute clouds at 80 req/s take 36 s) would
 * otherwise send the same first members every time, and measure a fleet of a few hundred.
 */
const cursors = new Map();
/**
 * How often Metacontroller resyncs each converged ControlPlane: resyncPeriodSeconds (our
 * controller's: src/crd/controllers.ts), sooner when the answer asks (resyncAfterSeconds).
 */
const resyncPeriod = (fleet) => Math.min(controlPlaneController().spec.resyncPeriodSeconds, JSON.parse(fleet.answer).resyncAfterSeconds ?? Infinity);

/** Member i of `fleet` as ESO keeps it (bench/fleet.mjs esoRefreshing), made when first asked for. */
function esoMember(fleet, i) {
  fleet.eso ??= [];
  fleet.eso[i] ??= esoRefreshing(fleet.members[i].body, i);
  return fleet.eso[i];
}

/**
 * The k-th request's body: member (start + k) mod n, where `start` is where the last source with
 * the same `cursor` stopped (0 without one). `changing`: false, every body the member's converged
 * one; `{ offset }`, each round one member's body is new; `'eso'`, round r is r resync periods
 * after the template's instant and each member's body is the one ESO's hourly refreshes left it.
 */
function fleetSource(fleet, n, changing, cursor) {
  const start = cursor === undefined ? 0 : (cursors.get(cursor) ?? 0);
  const period = changing === 'eso' ? resyncPeriod(fleet) : 0;
  let round = -1;
  let changedBody;
  const source = (k) => {
    const at = start + k;
    if (cursor !== undefined && at >= (cursors.get(cursor) ?? 0)) cursors.set(cursor, at + 1);
    const i = at % n;
    if (!changing) return fleet.members[i].body;
    const r = Math.floor(at / n);
    if (changing === 'eso') return esoMember(fleet, i).at(r * period);
    if (i !== r % n) return fleet.members[i].body;
    if (r !== round) {
      round = r;
      changedBody = changed(fleet.members[i].body, r + changing.offset);
    }
    return changedBody;
  };
  source.label = `fleet (${fleet.label}) of ${n}${changing === 'eso' ? ', ESO refreshing' : changing ? ', one changing per round' : ''}`;
  return source;
}

/**
 * Opens a section on the fleet with every service declared (the most stages, the most children):
 * its heading, the fleet made, the floor set to answer as its converged answer does.
 */
async function fleetSection(heading) {
  out();
  out(heading);
  out();
  const fleet = await prepareFleet(FLEETS[FLEETS.length - 1]);
  await setFloor(fleet.answer);
  return fleet;
}

/** 1st, 2nd, 3rd, 4th, …, 11th, 12th, 13th, 21st. */
const ordinal = (k) => `${k}${k % 100 >= 11 && k % 100 <= 13 ? 'th' : ({ 1: 'st', 2: 'nd', 3: 'rd' }[k % 10] ?? 'th')}`;

/**
 * The warm-up of a fleet cell: every member sent at least once (a round of a large fleet takes
 * longer than the warm-up's seconds, and a member's first call is not a resync), then the usual
 * seconds. `source` makes a fresh fleetSource.
 */
async function warmFleet(path, source, n, connections) {
  // autocannon sends at least one request per connection.
  await load(path, source(), connections, WARMUP_SECONDS, { quiet: true, amount: Math.max(n, connections) });
  await load(path, source(), connections, WARMUP_SECONDS, { quiet: true });
}

const ROUTES = ['/controlplane/sync', '/bench/floor'];
/**
 * N members of `fleet` sent in turn to the hook and to the floor, the same bodies to both, REPEATS
 * times each after a warm-up; `changing()` is fleetSource's, asked once per source. `cell` names
 * the cursors, so each route goes on from where its last measurement of the cell stopped. The
 * memo lookups are the hook's over its measured runs.
 */
async function inTurn(fleet, n, changing, connections, cell) {
  const source = (path) => fleetSource(fleet, n, changing(), cell + path);
  // The warm-up sends every member at least once (a round of a large fleet takes longer than the
  // warm-up's seconds): the repeats measure resyncs, not a member's first call.
  for (const path of ROUTES) await warmFleet(path, () => source(path), n, connections);
  const before = await memoLookups();
  const runs = [];
  let memoAfter;
  for (let r = 0; r < REPEATS; r++) {
    const run = {};
    run['/controlplane/sync'] = await load('/controlplane/sync', source('/controlplane/sync'), connections, SECONDS);
    memoAfter = await memoLookups();
    run['/bench/floor'] = await load('/bench/floor', source('/bench/floor'), connections, SECONDS);
    runs.push(run);
  }
  return { runs, before, memoAfter };
}
if (wanted('fleet')) {
  out();
  out('## A fleet of converged ControlPlanes, each resynced in turn (issue 34)');
  out();
  const prepared = [];
  for (const spec of FLEETS) prepared.push(await prepareFleet(spec));
  out(
    `The fleets: ${Math.max(...FLEET_SIZES).toLocaleString('en')} converged ControlPlanes made from one the simulation took to convergence (\`bench/fleet.mjs\`), for each of ${prepared.map((f) => `"${f.label}" (\`${f.example}\`, ${kib(f.members[0].body)} KiB a request)`).join(' and ')}: each its own namespace, name and uids, rewritten everywhere they occur (children, owner references, remote keys, last-applied annotations, Secret values and the hashes over them); ` +
      'the answers to the first 30 members and to every 10th after were checked to be the template\'s answer rewritten alike (Ready True). A row of size N sends members 0 … N − 1 in turn, round after round, to the hook and to the floor (the same bodies in the same order, each route\'s measurements going on from where its last one stopped, after a warm-up that sends every member once; the floor\'s fixed answer is member 0\'s of that fleet). ' +
      '"one changing" gives one member per round (a different one each round) a body the server has not seen, its parent\'s resourceVersion moved on: the call after a status write. ' +
      '"memo hits" are the hook\'s memo lookups during the measured repeats (`c5c3_hooks_memo_lookups_total` in /metrics); RSS is the server\'s after the cell. ' +
      `Goal (issue 34) at N = ${FLEET_GOAL.size}, concurrency ${FLEET_GOAL.connections}: ratio ≥ ${FLEET_GOAL.ratio}, CPU ≤ ${FLEET_GOAL.cpu} × the floor's, p99 ≤ ${FLEET_GOAL.p99} × the floor's.`,
  );
  out();
  out('| case | changing | conc. | hook req/s | floor req/s | hook/floor | hook p99 ms | floor p99 ms | p99 × floor | CPU µs/req hook | CPU × floor | goal | RSS MB | memo hits |');
  out('|---|---|---|---|---|---|---|---|---|---|---|---|---|---|');
  let changingOffset = 0;
  for (const fleet of prepared) {
    await setFloor(fleet.answer);
    for (const n of FLEET_SIZES) {
      for (const changing of [false, true]) {
        for (const connections of FLEET_CONCURRENCY) {
          // Each route goes through the members in the same order, each measurement from where
          // that route's last one stopped; the changed bodies stay new across them.
          const { runs, before, memoAfter } = await inTurn(fleet, n, () => changing && { offset: (changingOffset += 1_000_000) }, connections, `${fleet.key}|${n}|${changing}|${connections}|`);
          const rss = (await usage()).rss;
          const [hook, floor] = ROUTES;
          const ratios = ratioOf(runs, hook, floor, (m) => m.rps);
          const cpu = ratioOf(runs, floor, hook, (m) => 1 / m.cpuUs);
          const p99 = ratioOf(runs, hook, floor, (m) => m.p99);
          let goal = '';
          if (!changing && n === FLEET_GOAL.size && connections === FLEET_GOAL.connections) {
            const missed = [median(ratios) >= FLEET_GOAL.ratio ? '' : 'ratio', median(cpu) <= FLEET_GOAL.cpu ? '' : 'CPU', median(p99) <= FLEET_GOAL.p99 ? '' : 'p99'].filter(Boolean);
            goal = missed.length === 0 ? 'met' : `missed: ${missed.join(', ')}`;
          }
          out(
            `| fleet (${fleet.label}), N = ${n} | ${changing ? 'one per round' : 'none'} | ${connections} | ${stat(runs, (r) => r[hook].rps, int)} | ${stat(runs, (r) => r[floor].rps, int)} | ratio ${spread(ratios, two)} ` +
              `| ${stat(runs, (r) => r[hook].p99, ms)} | ${stat(runs, (r) => r[floor].p99, ms)} | ${spread(p99, two)} | ${stat(runs, (r) => r[hook].cpuUs, int)} | ${spread(cpu, two)} | ${goal} | ${mb(rss)} | ${hitRates(before, memoAfter)} |`,
          );
        }
      }
    }
  }
}
// ---------------------------------------------------------------------------------------------
// The fleet at Metacontroller's pace (issue 43, in absolute terms): what a replica spends on the
// largest fleet with every service declared, called as Metacontroller calls it. A
// CompositeController runs its own `--workers` sync workers, 5 unless the flag says otherwise
// (metacontroller pkg/cmd/metacontroller/main.go `flag.Int("workers", 5, …)`, one set per
// controller: pkg/controller/composite/controller.go `for i := 0; i < pc.numWorkers; i++`), each
// calling the hook and waiting for its answer; it resyncs every parent once per
// resyncPeriodSeconds (our controller's: src/crd/controllers.ts), sooner when the answer asks
// (resyncAfterSeconds). After Metacontroller restarts, every parent is enqueued at once.
const METACONTROLLER_WORKERS = 5;
if (wanted('eso')) {
  // The compute-cloud fleet as ESO keeps it (issue 54): kept answers rest on a converged body
  // repeating its bytes, and ESO rewrites each ExternalSecret's and PushSecret's refreshTime hourly.
  const fleet = await fleetSection('## A fleet whose ExternalSecrets and PushSecrets ESO refreshes hourly (issue 54)');
  const n = SMOKE ? 3 : 300;
  const large = Math.max(...FLEET_SIZES);
  const period = resyncPeriod(fleet);
  const connections = 16;
  const workers = Math.min(METACONTROLLER_WORKERS, large);
  const objects = esoMember(fleet, 0).objects;
  const rate = SMOKE ? 10 : Math.max(1, Math.round(large / period));
  const paced = SMOKE ? large : Math.max(workers, rate * 60);
  const stride = Math.max(1, Math.floor(large / paced));
  out(
    `The fleet with every service declared (as in the fleet rows), each member's ${objects} ExternalSecrets and PushSecrets refreshed by ESO every hour at a phase of their own (\`bench/fleet.mjs\` esoRefreshing: each refresh writes the object's \`status.refreshTime\` and moves its resourceVersion, the data unchanged), ` +
      `round r of the fleet being r × ${period} s (the resync period) after the template's instant: a member's body repeats from one resync to the next only when none of its objects refreshed in between (about (1 − ${period}/3600)^${objects} ≈ ${(100 * (1 - period / 3600) ** objects).toFixed(0)} % of them). ` +
      `"turn" sends N members in turn at concurrency ${connections}, the hook and the floor the same bodies (as the fleet rows); "pace" sends every ${ordinal(stride)} of ${large.toLocaleString('en')} members at Metacontroller's pace (${workers} workers, ${rate} calls a second, ${paced} calls) one resync period after a round that sent each of them once. ` +
      'Every answer is the converged one (checked for a member six hours on when the fleet is made).',
  );
  out();
  out('| case | N | conc. | hook req/s | floor req/s | hook/floor | CPU µs/req hook | CPU × floor | cores hook | cores floor | memo hits |');
  out('|---|---|---|---|---|---|---|---|---|---|---|');
  {
    const { runs, before, memoAfter } = await inTurn(fleet, n, () => 'eso', connections, `eso|${n}|`);
    const [hook, floor] = ROUTES;
    out(
      `| turn | ${n} | ${connections} | ${stat(runs, (r) => r[hook].rps, int)} | ${stat(runs, (r) => r[floor].rps, int)} | ratio ${spread(ratioOf(runs, hook, floor, (m) => m.rps), two)} ` +
        `| ${stat(runs, (r) => r[hook].cpuUs, int)} | ${spread(ratioOf(runs, floor, hook, (m) => 1 / m.cpuUs), two)} | | | ${hitRates(before, memoAfter)} |`,
    );
  }
  {
    // Every stride-th member, once at round 0 (the resync before) and then measured at round 1.
    const at = (round) => Object.assign((k) => esoMember(fleet, (k * stride) % large).at(round * period), { label: `fleet (${fleet.label}) of ${large}, every ${ordinal(stride)} member, ESO refreshing` });
    const measured = {};
    let hits = '';
    for (const path of ['/controlplane/sync', '/bench/floor']) {
      await load(path, at(0), workers, SECONDS, { quiet: true, amount: paced });
      const before = await memoLookups();
      measured[path] = await load(path, at(1), workers, SECONDS, { amount: paced, rate });
      if (path === '/controlplane/sync') hits = hitRates(before, await memoLookups());
    }
    const hook = measured['/controlplane/sync'];
    const floor = measured['/bench/floor'];
    const cores = (m) => ((m.cpuUs * m.rps) / 1e6).toFixed(3);
    out(`| pace | ${large} | ${workers} | ${hook.rps.toFixed(0)} | ${floor.rps.toFixed(0)} | | ${int(hook.cpuUs)} | ${two(floor.cpuUs / hook.cpuUs)} | ${cores(hook)} | ${cores(floor)} | ${hits} |`);
  }
}
if (wanted('ceiling')) {
  // The fleet with every service declared, at the goal's size and concurrency (issue 43).
  const fleet = await fleetSection('## What a reading that parses only the objects it has not seen could reach (issue 43)');
  // The goal's size, or the largest fleet made when --fleet-sizes asks for less.
  const n = Math.min(SMOKE ? 3 : FLEET_GOAL.size, Math.max(...FLEET_SIZES));
  const connections = FLEET_GOAL.connections;
  out(
    `The fleet of ${n} "${fleet.label}" ControlPlanes, each resynced in turn at concurrency ${connections}, sent to the hook, to the floor and to the partial floor (\`bench/server.mjs\` POST /bench/partial-floor). ` +
      'The partial floor reads a body as a hook that parsed no object it has seen before would, when every child was seen before: the hook parser\'s scan (the observed objects\' spans noted), the digest of every observed object\'s text, and JSON.parse of the body with each child\'s text taken out; it then answers the floor\'s fixed object. ' +
      'It does nothing else a hook must do (the schema validation, the request reading, the stage lookups, the status, the redaction), so it is the lower bound of that design: what is left of the goal\'s CPU for all of that is the goal minus the partial floor.',
  );
  out();
  out('| fleet | conc. | hook req/s | floor req/s | partial floor req/s | CPU µs/req hook | floor | partial floor | hook CPU × floor | partial floor CPU × floor | goal: CPU × floor |');
  out('|---|---|---|---|---|---|---|---|---|---|---|');
  const routes = ['/controlplane/sync', '/bench/floor', '/bench/partial-floor'];
  const source = (path) => fleetSource(fleet, n, false, `ceiling|${n}|${path}`);
  for (const path of routes) await warmFleet(path, () => source(path), n, connections);
  const runs = [];
  for (let r = 0; r < REPEATS; r++) {
    const run = {};
    for (const path of routes) run[path] = await load(path, source(path), connections, SECONDS);
    runs.push(run);
  }
  const [hook, floor, partial] = routes;
  out(
    `| ${fleet.label}, N = ${n} | ${connections} | ${stat(runs, (r) => r[hook].rps, int)} | ${stat(runs, (r) => r[floor].rps, int)} | ${stat(runs, (r) => r[partial].rps, int)} ` +
      `| ${stat(runs, (r) => r[hook].cpuUs, int)} | ${stat(runs, (r) => r[floor].cpuUs, int)} | ${stat(runs, (r) => r[partial].cpuUs, int)} ` +
      `| ${spread(ratioOf(runs, floor, hook, (m) => 1 / m.cpuUs), two)} | ${spread(ratioOf(runs, floor, partial, (m) => 1 / m.cpuUs), two)} | ≤ ${FLEET_GOAL.cpu} |`,
  );
}
if (wanted('pace')) {
  const fleet = await fleetSection("## A fleet at Metacontroller's pace (issue 43, in absolute terms)");
  const n = Math.max(...FLEET_SIZES);
  const connections = Math.min(METACONTROLLER_WORKERS, n);
  const period = resyncPeriod(fleet);
  // Calls a second at that pace (autocannon's overallRate is whole: at least 1), and how many are
  // measured: a minute of them, at least one per worker (a smoke run: one round of its tiny fleet).
  const rate = SMOKE ? 10 : Math.max(1, Math.round(n / period));
  const paced = SMOKE ? n : Math.max(connections, rate * 60);
  const stride = Math.max(1, Math.floor(n / paced));
  out(
    `The fleet of ${n.toLocaleString('en')} "${fleet.label}" ControlPlanes (as in the fleet rows), called as Metacontroller calls a CompositeController's sync hook: by ${connections} workers at once (\`--workers\`, ${METACONTROLLER_WORKERS} unless set), ` +
      `each parent once per ${period} s (resyncPeriodSeconds of \`manifests/\`'s controller, or the converged answer's resyncAfterSeconds if sooner). ` +
      '"after a restart" sends every member once, as fast as the answers come (Metacontroller enqueues every parent when it starts): "hook server fresh" first empties every memo of the server (`PUT /bench/forget`: a restarted hook server, its compiled code still warm), "hook server warm" is the round right after. ' +
      `"resync" sends the fleet in turn at its pace, ${rate} call${rate === 1 ? '' : 's'} a second, ${paced} calls${stride > 1 ? ` (every ${ordinal(stride)} member, so the calls measured spread over the whole fleet as a period's do)` : ''}; "cores" is the server's CPU time over the time measured. ` +
      'The floor (the same bodies parsed, a fixed answer) is measured alike. These are the figures a goal in absolute terms would use.',
  );
  out();
  out('| phase | route | calls | conc. | seconds | calls/s | p50 ms | p99 ms | CPU µs/call | CPU s in all | cores | memo hits |');
  out('|---|---|---|---|---|---|---|---|---|---|---|---|');
  const row = (phase, path, m, calls, hits) =>
    out(
      `| ${phase} | ${path === '/bench/floor' ? 'floor' : 'hook'} | ${calls} | ${connections} | ${(calls / m.rps).toFixed(1)} | ${m.rps.toFixed(0)} | ${ms(m.p50)} | ${ms(m.p99)} | ${int(m.cpuUs)} | ${((m.cpuUs * calls) / 1e6).toFixed(1)} | ${((m.cpuUs * m.rps) / 1e6).toFixed(3)} | ${hits} |`,
    );
  const forget = await fetch(`${server.url}/bench/forget`, { method: 'PUT' });
  if (!forget.ok) throw new Error(`bench: PUT /bench/forget answered ${forget.status}`);
  await forget.text();
  for (const phase of ['after a restart, hook server fresh', 'after a restart, hook server warm']) {
    const before = await memoLookups();
    const m = await load('/controlplane/sync', fleetSource(fleet, n, false), connections, SECONDS, { amount: n });
    row(phase, '/controlplane/sync', m, n, hitRates(before, await memoLookups()));
  }
  row('after a restart', '/bench/floor', await load('/bench/floor', fleetSource(fleet, n, false), connections, SECONDS, { amount: n }), n, '');
  // Every stride-th member in turn: the calls measured spread over the whole fleet, as a period's are.
  const sampled = Object.assign((k) => fleet.members[(k * stride) % n].body, { label: `fleet (${fleet.label}) of ${n}, every ${stride === 1 ? '' : `${ordinal(stride)} `}member` });
  for (const path of ['/controlplane/sync', '/bench/floor']) {
    const before = await memoLookups();
    const m = await load(path, sampled, connections, SECONDS, { amount: paced, rate });
    row('resync', path, m, paced, path === '/bench/floor' ? '' : hitRates(before, await memoLookups()));
  }
}
if (wanted('memos')) {
  const memoFleet = await fleetSection('## What each memo saves at fleet traffic');
  const switchOff = async (off) => {
    const r = await fetch(`${server.url}/bench/memos`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ off }) });
    if (!r.ok) throw new Error(`bench: PUT /bench/memos answered ${r.status}`);
  };
  const size = SMOKE ? 3 : 300;
  // The traffics (issue 54): the converged fleet resynced in turn (a call the kept answers answer
  // looks nothing else up), one member changing per round (the call after a status write), and
  // ESO's hourly refreshes (most calls carry a body not seen before).
  let offset = 0;
  const TRAFFICS = [
    { label: 'steady', changing: () => false },
    { label: 'one changing', changing: () => ({ offset: (offset += 1_000_000) }) },
    { label: 'ESO refresh', changing: () => 'eso' },
  ];
  const connections = 16;
  const rows = [];
  for (const traffic of TRAFFICS) {
    const n = size;
    // Each source goes on from where the last of this traffic stopped: ESO's clock keeps moving.
    const source = () => fleetSource(memoFleet, n, traffic.changing(), `memos|${traffic.label}`);
    // All memos on, then each off in turn (with a warm-up, so the memos the last one left
    // empty are filled again), every repeat; CPU per hook call, hit rates from the runs with all on.
    await switchOff([]);
    const warm = await memoLookups();
    await warmFleet('/controlplane/sync', source, n, connections);
    // Only the memos this traffic looks up are switched off (the others cannot save anything here).
    const looked = await memoLookups();
    const MEMO_NAMES = Object.values(MEMO).filter((m) => (looked.get(m)?.hit ?? 0) + (looked.get(m)?.miss ?? 0) > (warm.get(m)?.hit ?? 0) + (warm.get(m)?.miss ?? 0));
    const onRuns = [];
    const offRuns = new Map(MEMO_NAMES.map((m) => [m, []]));
    const onAfter = new Map(MEMO_NAMES.map((m) => [m, []]));
    let lookups = new Map();
    for (let r = 0; r < REPEATS; r++) {
      await switchOff([]);
      await warmFleet('/controlplane/sync', source, n, connections);
      const before = await memoLookups();
      onRuns.push(await load('/controlplane/sync', source(), connections, SECONDS));
      const after = await memoLookups();
      for (const [memo, c] of after) {
        const l = lookups.get(memo) ?? { hit: 0, miss: 0 };
        lookups.set(memo, { hit: l.hit + c.hit - (before.get(memo)?.hit ?? 0), miss: l.miss + c.miss - (before.get(memo)?.miss ?? 0) });
      }
      for (const memo of MEMO_NAMES) {
        await switchOff([memo]);
        await warmFleet('/controlplane/sync', source, n, connections);
        offRuns.get(memo).push(await load('/controlplane/sync', source(), connections, SECONDS));
        // All on again, warmed up, and measured once more: each off run is compared with the
        // mean of the on runs just before and just after it (the machine drifts).
        await switchOff([]);
        await warmFleet('/controlplane/sync', source, n, connections);
        onAfter.get(memo).push(await load('/controlplane/sync', source(), connections, SECONDS));
      }
    }
    for (const memo of Object.values(MEMO)) {
      if (!MEMO_NAMES.includes(memo)) {
        rows.push({ traffic: traffic.label, memo, n, lookups: 0 });
        continue;
      }
      const l = lookups.get(memo) ?? { hit: 0, miss: 0 };
      // Saved: the CPU per call with the memo off less with it on (the on runs either side of it),
      // over the CPU with it off.
      const i = MEMO_NAMES.indexOf(memo);
      const onCpu = onRuns.map((on, r) => ((i === 0 ? on : onAfter.get(MEMO_NAMES[i - 1])[r]).cpuUs + onAfter.get(memo)[r].cpuUs) / 2);
      const offCpu = offRuns.get(memo).map((x) => x.cpuUs);
      const saved = offCpu.map((off, r) => (off - onCpu[r]) / off);
      rows.push({ traffic: traffic.label, memo, n, lookups: l.hit + l.miss, hitRate: l.hit + l.miss > 0 ? l.hit / (l.hit + l.miss) : NaN, onCpu, offCpu, saved });
    }
  }
  await switchOff([]);
  out(
    `Each memo switched off alone (\`PUT /bench/memos\` of the bench server; every other on), against all on, at concurrency ${connections} on the fleet of N = ${size} with every service declared (each resynced in turn), measured back to back in every repeat, for three traffics: ` +
      '"steady" (every body the converged one), "one changing" (one member per round a body the server has not seen, as in the fleet rows) and "ESO refresh" (each ExternalSecret and PushSecret refreshed hourly, as in the section above). ' +
      '"saved" is (CPU per call with the memo off − with it on) ÷ with it off, the median of the repeats (min–max); "hits" is the hit rate with all on, of the calls that reach the memo; a memo the traffic does not look up is not switched off. ' +
      '"on" is the mean of the runs with all on just before and just after the memo\'s run with it off.',
  );
  out();
  out('| traffic | memo | hits | CPU µs/call on | off | saved |');
  out('|---|---|---|---|---|---|');
  for (const row of rows) {
    const cells = row.lookups === 0 ? 'not looked up | | | ' : `${(100 * row.hitRate).toFixed(0)} % | ${spread(row.onCpu, int)} | ${spread(row.offCpu, int)} | ${spread(row.saved.map((x) => 100 * x), (x) => `${x.toFixed(0)} %`)}`;
    out(`| ${row.traffic} | ${row.memo.replace(/_/g, '-')} | ${cells} |`);
  }
}
if (wanted('scale')) {
  out();
  out(`## Cost against what a ControlPlane holds (converged sync, concurrency 2)`);
  out();
  out(
    'Each row is the converged request grown in one dimension, still converged (the answer\'s Ready reason is shown). ' +
      'Concurrency 2 keeps the largest bodies within the in-flight budget of the deployed server (8 MiB): beyond it, it answers 429 by design. ' +
      '"CPU µs/req" is the server\'s CPU time per hook call; linear cost shows as a constant hook/floor ratio and CPU per item. ' +
      'Each row repeats its body (a body whose answer called neither clock nor random is answered from the answer kept for its bytes: src/http/kept-answers.ts).',
  );
  out();
  out('| dimension | n | body KiB | Ready | hook req/s | floor req/s | hook/floor | hook p99 ms | CPU µs/req hook | CPU µs/req floor |');
  out('|---|---|---|---|---|---|---|---|---|---|');
  const DIMENSIONS = [
    { name: 'observed children', grow: withChildren },
    { name: 'CredentialRotations', grow: withRotations },
    { name: 'access rules', grow: withAccessRules },
  ];
  for (const d of DIMENSIONS) {
    for (const n of SCALE) {
      const body = JSON.stringify(d.grow(convergedCall.request, n));
      const answer = await answerOf('/controlplane/sync', body);
      const ready = JSON.parse(answer).status.conditions.find((c) => c.type === 'Ready');
      await setFloor(answer);
      let runs;
      try {
        runs = await cell(['/controlplane/sync', '/bench/floor'], body, 2);
      } catch (err) {
        if (!(err instanceof MeasurementFailed)) throw err;
        failures++;
        progress(`failed: ${err.message}`);
        out(`| ${d.name} | ${n} | ${kib(body)} | ${ready?.status} ${ready?.reason} | failed: ${err.message} | | | | | |`);
        continue;
      }
      out(
        `| ${d.name} | ${n} | ${kib(body)} | ${ready?.status} ${ready?.reason} | ${stat(runs, (r) => r['/controlplane/sync'].rps, int)} | ${stat(runs, (r) => r['/bench/floor'].rps, int)} ` +
          `| ratio ${spread(ratioOf(runs, '/controlplane/sync', '/bench/floor', (m) => m.rps), two)} | ${stat(runs, (r) => r['/controlplane/sync'].p99, ms)} ` +
          `| ${stat(runs, (r) => r['/controlplane/sync'].cpuUs, int)} | ${stat(runs, (r) => r['/bench/floor'].cpuUs, int)} |`,
      );
    }
  }

}
if (wanted('memory')) {
  out();
  out(`## Memory over a long run (${LONG.toLocaleString('en')} converged syncs, concurrency 16)`);
  out();
  const longFleet = await prepareFleet(FLEETS[FLEETS.length - 1]);
  const largest = Math.max(...FLEET_SIZES);
  for (const { label, body, source } of [
    { label: 'One converged body', body: JSON.stringify(convergedCall.request) },
    { label: `The fleet (${longFleet.label}) of ${largest.toLocaleString('en')} converged ControlPlanes, each resynced in turn`, source: fleetSource(longFleet, largest, false) },
  ]) {
    const start = await usage();
    progress(`long run: ${LONG} converged syncs (${label})`);
    let done = 0;
    let next = 0;
    const samples = [];
    const requests = source ? [{ setupRequest: (request) => ({ ...request, body: source(next++) }) }] : undefined;
    const run = autocannon({ url: `${server.url}/controlplane/sync`, method: 'POST', headers: { 'content-type': 'application/json' }, body: body ?? source(0), requests, connections: 16, amount: LONG, sampleInt: 100 });
    // Sampled by requests answered, not by time: the run has its SAMPLES samples however fast or
    // slow the machine is (sampled by time, a smoke run on a busy machine got too few to fit a slope).
    const SAMPLES = 40;
    const every = Math.max(1, Math.floor(LONG / SAMPLES));
    let sampling = Promise.resolve();
    run.on('response', () => {
      const at = ++done;
      if (at % every === 0) sampling = sampling.then(async () => samples.push({ requests: at, rss: (await usage()).rss }));
    });
    const ticker = setInterval(() => progress(`long run: ${done} of ${LONG} requests`), 30_000);
    const long = await run;
    clearInterval(ticker);
    await sampling;
    const end = await usage();
    samples.push({ requests: done, rss: end.rss });
    // Least squares over the run after its first tenth (heap growth to its working size is not a leak).
    const fit = samples.filter((s) => s.requests >= LONG / 10);
    let slope = NaN;
    if (fit.length >= 2) {
      const mx = fit.reduce((a, s) => a + s.requests, 0) / fit.length;
      const my = fit.reduce((a, s) => a + s.rss, 0) / fit.length;
      const sxy = fit.reduce((a, s) => a + (s.requests - mx) * (s.rss - my), 0);
      const sxx = fit.reduce((a, s) => a + (s.requests - mx) ** 2, 0);
      slope = sxx > 0 ? (sxy / sxx) * 100_000 : NaN;
    }
    const peak = Math.max(...samples.map((s) => s.rss));
    out(
      `${label}: RSS before ${mb(start.rss)} MB, after ${mb(end.rss)} MB, peak ${mb(peak)} MB; slope ${Number.isNaN(slope) ? 'n/a' : (slope / 1024 / 1024).toFixed(2)} MB per 100,000 requests ` +
        `(least squares over ${fit.length} samples after the first tenth). ${long.requests.total} requests, ${long.non2xx} non-2xx, ${long.duration.toFixed(0)} s, ` +
        `${((end.cpuMicros - start.cpuMicros) / Math.max(1, done)).toFixed(0)} µs server CPU per request.`,
    );
    if (long.non2xx > 0 || long.errors > 0) {
      failures++;
      out(`**Failed:** ${long.non2xx} answers were not 2xx (the overload guard answers 429 on a saturated machine), ${long.errors} errors.`);
    }
    out();
  }

}
if (wanted('profile')) {
  out();
  out('## Where the time goes (CPU profile of the converged sync at concurrency 16, after warm-up)');
  out();
  {
    const body = JSON.stringify(convergedCall.request);
    await setFloor(await answerOf('/controlplane/sync', body));
    await load('/controlplane/sync', body, 16, WARMUP_SECONDS, { quiet: true });
    const file = join(logDir, 'sync.cpuprofile');
    const ipc = (message, reply) =>
      new Promise((resolve) => {
        const on = (m) => m?.profile === reply && (server.child.off('message', on), resolve());
        server.child.on('message', on);
        server.child.send(message);
      });
    await ipc({ profile: 'start' }, 'started');
    await load('/controlplane/sync', body, 16, SECONDS);
    await ipc({ profile: 'stop', file }, 'stopped');
    const profile = JSON.parse(readFileSync(file, 'utf8'));
    const byId = new Map(profile.nodes.map((n) => [n.id, n]));
    const parentOf = new Map();
    for (const n of profile.nodes) for (const c of n.children ?? []) parentOf.set(c, n.id);
    /** The package of a frame: an npm package, a file of ours (dist/…), Node's own code, or V8. */
    const packageOf = ({ url, functionName }) => {
      if (!url) return functionName === '(garbage collector)' || functionName === '(idle)' || functionName === '(program)' ? functionName : '(V8 built-ins)';
      const pkg = url.match(/node_modules\/((?:@[^/]+\/)?[^/]+)\//)?.[1];
      if (pkg) return pkg;
      if (url.includes('/dist/')) return `ours: ${url.replace(/^.*\/dist\//, '')}`;
      if (url.includes('/bench/')) return 'bench server';
      return 'node (core)';
    };
    const inclusive = new Map();
    const selfTime = new Map();
    let total = 0;
    profile.samples.forEach((id, i) => {
      const dt = profile.timeDeltas[i] ?? 0;
      total += dt;
      let node = byId.get(id);
      selfTime.set(packageOf(node.callFrame), (selfTime.get(packageOf(node.callFrame)) ?? 0) + dt);
      const counted = new Set();
      for (; node; node = byId.get(parentOf.get(node.id))) {
        const key = packageOf(node.callFrame);
        if (counted.has(key)) continue;
        counted.add(key);
        inclusive.set(key, (inclusive.get(key) ?? 0) + dt);
      }
    });
    const pct = (us) => `${((us / total) * 100).toFixed(1)} %`;
    out('Inclusive: the share of samples with the package anywhere on the stack (fastify calls the handler from inside the body parser, so the parser and fastify include the hook). Self: the share spent in the package\'s own code.');
    out();
    out('| package | inclusive | self |');
    out('|---|---|---|');
    for (const [key, us] of [...inclusive].filter(([k]) => k !== '(root)').sort((a, b) => b[1] - a[1]).slice(0, 25)) {
      out(`| ${key} | ${pct(us)} | ${pct(selfTime.get(key) ?? 0)} |`);
    }
  }
}
out();
out(`Load average (1, 5, 15 min) at the end: ${loadavg().map((x) => x.toFixed(1)).join(', ')}; the run took ${Math.round((Date.now() - started) / 60_000)} min.`);
out();
out(`Log lines written by the server during the run: ${lineCount(logFile).toLocaleString('en')} (${mb(statSync(logFile).size)} MB).`);

server.child.disconnect();
progress(failures > 0 ? `done; ${failures} measurement(s) failed (see the report)` : 'done');
if (failures > 0) process.exitCode = 1;
if (!args.write) {
  process.stderr.write(`\nbench: report not written; run with --write to update ${OUTPUT}\n`);
  process.exit(process.exitCode ?? 0);
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
