// Memory: the server as the Deployment runs it (manifests/deployment.yaml: its env, NODE_OPTIONS
// and memory limit) under sustained concurrent hook calls with bodies at the body limit, of the
// shapes that expand most in memory, never peaks (VmHWM, the resident high-water mark) above 85% of
// the container's memory limit. Without the in-flight budget, four such bodies at once peak near
// 1 GB. Runs the compiled server (dist/, built by `npm test`), the code the image runs.
import t from 'tap';
import { spawn, execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import net from 'node:net';
import { join } from 'node:path';
import { parse } from 'yaml';
import { REPO_ROOT, type Obj } from './support/shared.js';

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
function body(shape: 'objects' | 'tiny', tag: number): string {
  const base: Obj = { controller: {}, parent, children: {}, related: {} };
  const room = bodyLimit - JSON.stringify(base).length - 2048;
  if (shape === 'tiny') {
    // One child holding a million one-key objects (the largest expansion: ~25 bytes each).
    base.children = { 'W.example.com/v1': { 'ns/w': { apiVersion: 'example.com/v1', kind: 'W', metadata: { name: `w${tag}`, namespace: 'ns' }, s: Array.from({ length: Math.floor(room / 8) }, () => ({ a: 1 })) } } };
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

t.setTimeout(240_000);

t.test(`worst-case bodies, 4 at once, stay under 85% of the ${limitMiB}Mi memory limit`, async (t) => {
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
  const idle = status(child.pid!, 'VmRSS');
  const rounds = 2;
  let refused = 0;
  for (const shape of ['tiny', 'objects'] as const) {
    const bodies = Array.from({ length: 4 }, (_, i) => body(shape, i));
    for (let round = 0; round < rounds; round++) {
      const codes = await Promise.all(bodies.map(async (b) => {
        // Each client retries a 429 after 50 ms (harsher than Metacontroller's Retry-After) until answered.
        for (;;) {
          const res = await fetch(`http://127.0.0.1:${port}/controlplane/sync`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: b });
          await res.arrayBuffer();
          if (res.status !== 429 || res.headers.get('retry-after') !== '5') return res.status;
          refused++;
          await new Promise((r) => setTimeout(r, 50));
        }
      }));
      t.same(codes, bodies.map(() => 200), `${shape}, round ${round}: every call answered 200 in the end`);
    }
  }
  t.ok(refused > 0, `calls over the in-flight budget were answered 429 with Retry-After (${refused} times)`);
  const peak = status(child.pid!, 'VmHWM');
  t.comment(`idle RSS ${idle.toFixed(0)} MiB, peak RSS ${peak.toFixed(0)} MiB, limit ${limitMiB} MiB (${env.NODE_OPTIONS}, MAX_INFLIGHT_BYTES ${env.MAX_INFLIGHT_BYTES}, BODY_LIMIT ${env.BODY_LIMIT})`);
  t.ok(peak < limitMiB * 0.85, `peak RSS ${peak.toFixed(0)} MiB < 85% of ${limitMiB} MiB`);
});
