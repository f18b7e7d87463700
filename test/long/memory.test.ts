// Memory: the server as the Deployment runs it (manifests/deployment.yaml: its env, NODE_OPTIONS
// and memory limit) under sustained concurrent hook calls with bodies at the body limit, of the
// shapes that expand most in memory, never peaks (VmHWM, the resident high-water mark) above 85% of
// the container's memory limit. Without the in-flight budget, four such bodies at once peak near
// 1 GB. Runs the compiled server (dist/, built by `npm test`), the code the image runs.
import t, { type Test } from 'tap';
import { spawn, execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import net from 'node:net';
import { join } from 'node:path';
import { parse } from 'yaml';
import { REPO_ROOT, type Obj } from '../support/shared.js';
import { BODY_DENSITY } from '../../src/json-body.js';
import { ANSWER_MEMO } from '../../src/http/kept-answers.js';

const MiB = 1024 * 1024;
const deployment = parse(readFileSync(join(REPO_ROOT, 'manifests/deployment.yaml'), 'utf8')) as Obj;
const container = deployment.spec.template.spec.containers[0] as Obj;
const env = Object.fromEntries((container.env as Obj[]).map((e) => [e.name, String(e.value)]));
const limitMiB = Number(/^(\d+)Mi$/.exec(container.resources.limits.memory)![1]);
const bodyLimit = Number(/^(\d+)Mi$/.exec(env.BODY_LIMIT!)![1]) * MiB;

const freePort = () => new Promise<number>((resolve) => {
  const s = net.createServer().listen(0, '127.0.0.1', () => {
    const port = (s.address() as net.AddressInfo).port;
    s.close(() => resolve(port));
  });
});
const status = (pid: number, field: string) => Number(new RegExp(`${field}:\\s+(\\d+)`).exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) / 1024;

const parent = { apiVersion: 'c5c3.io/v1alpha1', kind: 'ControlPlane', metadata: { name: 'cp', namespace: 'ns', uid: 'u', generation: 1 }, spec: { openStackRelease: '2025.2', services: { keystone: {} } } };
/** A sync body just under the limit whose observed children expand most once parsed. */
function body(shape: 'objects' | 'tiny' | 'arrays', tag: number): string {
  const base: Obj = { controller: {}, parent, children: {}, related: {} };
  const room = bodyLimit - JSON.stringify(base).length - 2048;
  if (shape === 'arrays') {
    // As dense as a body may be (one array of zeros per BODY_DENSITY.charsPerContainer characters, its comma included).
    const zeros = Array.from({ length: BODY_DENSITY.charsPerContainer / 2 - 1 }, () => 0);
    base.children = { 'W.example.com/v1': { 'ns/w': { apiVersion: 'example.com/v1', kind: 'W', metadata: { name: `w${tag}`, namespace: 'ns' }, s: Array.from({ length: Math.floor(room / BODY_DENSITY.charsPerContainer) }, () => zeros) } } };
  } else if (shape === 'tiny') {
    // One child holding as many small objects as the density bound lets in (one per charsPerContainer characters).
    const key = `b${'x'.repeat(BODY_DENSITY.charsPerContainer - 14)}`;
    base.children = { 'W.example.com/v1': { 'ns/w': { apiVersion: 'example.com/v1', kind: 'W', metadata: { name: `w${tag}`, namespace: 'ns' }, s: Array.from({ length: Math.floor(room / BODY_DENSITY.charsPerContainer) }, () => ({ a: 1, [key]: 2 })) } } };
  } else {
    // Tens of thousands of small observed children, every one kept in the answer.
    const group: Obj = {};
    const one = (n: number) => ({ apiVersion: 'example.com/v1', kind: 'W', metadata: { name: `w${tag}-${n}`, namespace: 'ns' }, s: { a: 1, b: [1, 2], c: { d: 'e' } } });
    const count = Math.floor(room / (JSON.stringify(one(99999)).length + 16));
    for (let n = 0; n < count; n++) group[`ns/w${n}`] = one(n);
    base.children = { 'W.example.com/v1': group };
  }
  const text = JSON.stringify(base);
  if (text.length > bodyLimit) throw new Error('body over the limit');
  return text;
}

t.setTimeout(480_000);

/** The compiled server as deployed, on a free port. */
async function startServer(t: { teardown: (fn: () => void) => void }): Promise<{ child: ReturnType<typeof spawn>; port: number }> {
  if (!existsSync(join(REPO_ROOT, 'dist/main.js'))) execFileSync('npm', ['run', 'build'], { cwd: REPO_ROOT, stdio: 'ignore' });
  const port = await freePort();
  const nodeOptions = (env.NODE_OPTIONS ?? '').split(' ').filter(Boolean);
  const child = spawn(process.execPath, [...nodeOptions, 'dist/main.js'], {
    cwd: REPO_ROOT,
    env: { PATH: process.env.PATH, ...env, NODE_OPTIONS: '', PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'warn', MAX_EVENT_LOOP_DELAY_MS: '0' },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  t.teardown(() => void child.kill());
  for (let i = 0; i < 100; i++) {
    try {
      await fetch(`http://127.0.0.1:${port}/healthz`);
      break;
    } catch {
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  return { child, port };
}

/** POSTs `text` until it is answered other than 429 (retrying after 50 ms): the final status and body. */
async function answered(port: number, path: string, text: string, onRefused: () => void): Promise<{ status: number; body: string }> {
  for (;;) {
    const res = await fetch(`http://127.0.0.1:${port}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: text });
    const body = await res.text();
    if (res.status !== 429 || res.headers.get('retry-after') !== '5') return { status: res.status, body };
    onRefused();
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Each worst-case shape, 4 bodies at once, `rounds` times: every call answered 200 in the end. */
async function worstCase(t: Test, port: number, rounds: number, onRefused: () => void): Promise<void> {
  for (const shape of ['tiny', 'objects', 'arrays'] as const) {
    const bodies = Array.from({ length: 4 }, (_, i) => body(shape, i));
    for (let round = 0; round < rounds; round++) {
      // Each client retries a 429 after 50 ms (harsher than Metacontroller's Retry-After) until answered.
      const codes = await Promise.all(bodies.map(async (b) => (await answered(port, '/controlplane/sync', b, onRefused)).status));
      t.same(codes, bodies.map(() => 200), `${shape}, round ${round}: every call answered 200 in the end`);
    }
  }
}

t.test(`worst-case bodies, 4 at once, stay under 85% of the ${limitMiB}Mi memory limit`, async (t) => {
  const { child, port } = await startServer(t);
  const idle = status(child.pid!, 'VmRSS');
  const rounds = 2;
  let refused = 0;
  await worstCase(t, port, rounds, () => refused++);
  t.ok(refused > 0, `calls over the in-flight budget were answered 429 with Retry-After (${refused} times)`);
  const peak = status(child.pid!, 'VmHWM');
  t.comment(`idle RSS ${idle.toFixed(0)} MiB, peak RSS ${peak.toFixed(0)} MiB, limit ${limitMiB} MiB (${env.NODE_OPTIONS}, MAX_INFLIGHT_BYTES ${env.MAX_INFLIGHT_BYTES}, BODY_LIMIT ${env.BODY_LIMIT})`);
  t.ok(peak < limitMiB * 0.85, `peak RSS ${peak.toFixed(0)} MiB < 85% of ${limitMiB} MiB`);
});

/**
 * How many compute clouds fill the kept answers before the worst-case bodies come: beyond their
 * bound, so that a memo which grows with the fleet shows here (a memo of per-ControlPlane values
 * not emptied under memory pressure crashed the process with the worst-case bodies that came after).
 */
const FLEET = ANSWER_MEMO.entries + 64;
/**
 * The fleet is resynced twice, the second time in reverse order: an answer is kept on its body's
 * second call, when the body came within the last ANSWER_MEMO.entries (src/http/kept-answers.ts),
 * so the answers fill their memo too.
 */
const FLEET_ROUNDS = 2;

t.test(`worst-case bodies after a fleet of ${FLEET} compute clouds resynced ${FLEET_ROUNDS} times: still answered, memory bounded`, async (t) => {
  const { child, port } = await startServer(t);
  const { fleetTemplate, fleetOf } = (await import(pathToFileURL(join(REPO_ROOT, 'bench', 'fleet.mjs')).href)) as {
    fleetTemplate: (root: string, example: string) => Promise<string>;
    fleetOf: (template: string) => { member: (i: number) => { body: string } };
  };
  const fleet = fleetOf(await fleetTemplate(REPO_ROOT, 'examples/controlplane-cloud.yaml'));
  let refused = 0;
  const codes = new Map<number, number>();
  for (let round = 0; round < FLEET_ROUNDS; round++) {
    for (let i = 0; i < FLEET; i++) {
      const member = round % 2 === 0 ? i : FLEET - 1 - i;
      const { status: code } = await answered(port, '/controlplane/sync', fleet.member(member).body, () => refused++);
      codes.set(code, (codes.get(code) ?? 0) + 1);
    }
  }
  t.same([...codes], [[200, FLEET * FLEET_ROUNDS]], `every call of the fleet answered 200 (${[...codes].map(([c, n]) => `${n} × ${c}`).join(', ')})`);
  await worstCase(t, port, 1, () => refused++);
  t.equal((await fetch(`http://127.0.0.1:${port}/healthz`)).status, 200, 'the process still serves');
  t.equal(child.exitCode, null, 'the process did not exit');
  const peak = status(child.pid!, 'VmHWM');
  t.comment(`peak RSS ${peak.toFixed(0)} MiB after the fleet and the worst-case bodies; ${refused} calls refused 429 and retried`);
  t.ok(peak < limitMiB * 0.85, `peak RSS ${peak.toFixed(0)} MiB < 85% of ${limitMiB} MiB`);
});

const tower = (levels: number): unknown => {
  let v: unknown = 1;
  for (let i = 0; i < levels; i++) v = { a: v };
  return v;
};
const sync = (p: Obj, extra: Obj = {}) => JSON.stringify({ controller: {}, parent: p, children: {}, related: {}, ...extra });
const lastApplied = (value: unknown) => ({ 'kubectl.kubernetes.io/last-applied-configuration': JSON.stringify(value) });
const withSpec = (spec: Obj) => ({ ...parent, spec: { ...parent.spec, ...spec } });
const managed = { database: { clusterRef: { name: 'db' } }, cache: { clusterRef: { name: 'mc' } } };
const objectsArray = (chars: number) => `[${'{},'.repeat(Math.floor(chars / 3) - 1)}{}]`;

/** Adversarial shapes (issue 33), each with the answers it may get: never a 5xx, never a crash. */
function adversarial(): { name: string; path: string; text: string; expect: number; check?: (body: string) => string | undefined }[] {
  const emptyChildren: Obj = {};
  // Named like real children (ns/name), so the body is no denser than BODY_DENSITY lets through and validation meets it.
  for (let i = 0; i < 91_000; i++) emptyChildren[`ns/child-${String(i).padStart(6, '0')}`] = {};
  const infraMessage = (body: string) => (JSON.parse(body).status.conditions as Obj[]).find((c) => c.type === 'InfrastructureReady')?.message as string;
  const w = (s: unknown, annotations?: Obj) => ({ 'W.example.com/v1': { 'ns/w': { apiVersion: 'example.com/v1', kind: 'W', metadata: { name: 'w', namespace: 'ns', annotations }, s } } });
  return [
    { name: '91,000 empty children (allErrors+verbose ran out of memory)', path: '/controlplane/sync', text: sync(parent, { children: { 'W.example.com/v1': emptyChildren } }), expect: 400 },
    {
      name: '200,000 wrong-typed cache.servers: one error, small answer',
      path: '/controlplane/sync',
      text: sync(withSpec({ infrastructure: { database: managed.database, cache: { servers: Array.from({ length: 200_000 }, () => 1) } } })),
      expect: 200,
      check: (body) => (body.length < 16 * 1024 && /cache\.servers\[0\]: must be a string/.test(infraMessage(body)) ? undefined : `answer of ${body.length} characters: ${infraMessage(body)?.slice(0, 200)}`),
    },
    {
      name: '5,000 wrong-typed cache.servers: ten errors and how many more',
      path: '/controlplane/sync',
      text: sync(withSpec({ infrastructure: { database: managed.database, cache: { servers: Array.from({ length: 5_000 }, () => 1) } } })),
      expect: 200,
      check: (body) => (body.length < 16 * 1024 && /; and 4990 more/.test(infraMessage(body)) ? undefined : `answer of ${body.length} characters: ${infraMessage(body)?.slice(0, 300)}`),
    },
    { name: '505-deep tower in the spec', path: '/controlplane/sync', text: sync(withSpec({ infrastructure: managed, x: tower(505) })), expect: 200 },
    { name: '505-deep tower in the spec (finalize)', path: '/controlplane/finalize', text: sync(withSpec({ infrastructure: managed, x: tower(505) }), { finalizing: true }), expect: 200 },
    {
      name: '505-deep tower inside the last-applied annotation of parent and child',
      path: '/controlplane/sync',
      text: sync({ ...withSpec({ infrastructure: managed }), metadata: { ...parent.metadata, annotations: lastApplied({ spec: tower(505) }) } }, { children: w(tower(500), lastApplied({ s: tower(505) })) }),
      expect: 200,
    },
    ...[4, 6, 8].flatMap((mib) => [
      { name: `${mib} MiB of [{},{},…] as the body`, path: '/controlplane/sync', text: objectsArray(mib * MiB - 16), expect: 413 },
      { name: `${mib} MiB of [{},{},…] in a child`, path: '/controlplane/sync', text: sync(parent, { children: w('@') }).replace('"@"', objectsArray(mib * MiB - 4096)), expect: 413 },
    ]),
  ];
}

t.test('adversarial bodies, sent at once: 4xx or an answer, never a crash, memory bounded', async (t) => {
  const { child, port } = await startServer(t);
  const cases = adversarial();
  let refused = 0;
  const results = await Promise.all(cases.map((c) => answered(port, c.path, c.text, () => refused++)));
  cases.forEach((c, i) => {
    const { status: got, body } = results[i]!;
    t.equal(got, c.expect, `${c.name}: ${got}${got >= 400 ? ` ${body.slice(0, 160)}` : ''}`);
    if (got === 200 && c.check) {
      const problem = c.check(body);
      t.notOk(problem, `${c.name}: ${problem ?? 'answer as expected'}`);
    }
  });
  t.equal((await fetch(`http://127.0.0.1:${port}/healthz`)).status, 200, 'the process still serves');
  t.equal(child.exitCode, null, 'the process did not exit');
  const peak = status(child.pid!, 'VmHWM');
  t.comment(`peak RSS ${peak.toFixed(0)} MiB; ${refused} calls were refused 429 and retried`);
  t.ok(peak < limitMiB * 0.85, `peak RSS ${peak.toFixed(0)} MiB < 85% of ${limitMiB} MiB`);
});

/**
 * The heaviest values a call computes from its request (issue 54): finalize calls whose observed
 * children carry dense last-applied annotations (each just under 8 KiB of `[{},…]`: 3.9 MiB a body,
 * about 20 times that once parsed), and sync calls each with one new Secret value of 60 KB (its
 * needles several times that). Whatever keeps them across calls must stay bounded by what they
 * weigh: a memo bounded by the length of its keys held most of the 128 MiB heap, and the process
 * died of a heap out-of-memory error with every call under the body limit answered 200 until then.
 */
t.test('dense last-applied annotations and large Secret values, alone and together: every call answered, the process alive', async (t) => {
  const { child, port } = await startServer(t);
  const capture = JSON.parse(readFileSync(join(REPO_ROOT, 'hooks/controlplane-sync/backup-01-backup-converged.json'), 'utf8')) as { request: Obj };
  const ns: string = capture.request.parent.metadata.namespace;
  const dense = (tag: number): string => {
    const request = structuredClone(capture.request);
    const group: Obj = {};
    for (let n = 0; n < 470; n++) {
      const metadata = { name: `db-${tag}-${n}`, namespace: ns };
      const applied: Obj = { apiVersion: 'k8s.mariadb.com/v1alpha1', kind: 'MariaDB', metadata, spec: {} };
      applied.spec.x = Array.from({ length: Math.floor((8 * 1024 - 200 - JSON.stringify(applied).length) / 3) }, () => ({}));
      group[`${ns}/${metadata.name}`] = { apiVersion: applied.apiVersion, kind: applied.kind, metadata: { ...metadata, annotations: { 'metacontroller.k8s.io/last-applied-configuration': JSON.stringify(applied) } }, spec: {} };
    }
    request.children['MariaDB.k8s.mariadb.com/v1alpha1'] = { ...request.children['MariaDB.k8s.mariadb.com/v1alpha1'], ...group };
    return JSON.stringify({ ...request, finalizing: true });
  };
  const secrets = (tag: number): string => {
    const request = structuredClone(capture.request);
    const value = Buffer.from(`${tag}-`.padEnd(60_000, 'abcdefghij')).toString('base64');
    request.children['Secret.v1'][`${ns}/big-${tag}`] = { apiVersion: 'v1', kind: 'Secret', metadata: { name: `big-${tag}`, namespace: ns }, data: { password: value } };
    return JSON.stringify(request);
  };
  const codes = new Map<string, number>();
  const count = (what: string, code: number) => codes.set(`${what} ${code}`, (codes.get(`${what} ${code}`) ?? 0) + 1);
  for (let i = 0; i < 3; i++) count('dense finalize', (await answered(port, '/controlplane/finalize', dense(i), () => undefined)).status);
  for (let i = 0; i < 80; i++) count('large-secret sync', (await answered(port, '/controlplane/sync', secrets(i), () => undefined)).status);
  for (let i = 3; i < 6; i++) count('dense finalize', (await answered(port, '/controlplane/finalize', dense(i), () => undefined)).status);
  t.same([...codes], [['dense finalize 200', 6], ['large-secret sync 200', 80]], `every call answered 200 (${[...codes].map(([k, n]) => `${n} × ${k}`).join(', ')})`);
  t.equal((await fetch(`http://127.0.0.1:${port}/healthz`)).status, 200, 'the process still serves');
  t.equal(child.exitCode, null, 'the process did not exit');
  const peak = status(child.pid!, 'VmHWM');
  t.comment(`peak RSS ${peak.toFixed(0)} MiB after the dense annotations and the large Secret values`);
  t.ok(peak < limitMiB * 0.85, `peak RSS ${peak.toFixed(0)} MiB < 85% of ${limitMiB} MiB`);
});
