// The built server (dist/main.js) as a process, for the tests that need a real process: signals,
// its own settings, real sockets. (`npm test` builds first: see the pretest script.)
import type { Test } from 'tap';
import { spawn, type ChildProcess } from 'node:child_process';
import { request } from 'node:http';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { once } from 'node:events';
import { parse } from 'yaml';
import { REPO_ROOT, type Obj } from './shared.js';

export interface Served {
  port: number;
  child: ChildProcess;
  exited: Promise<unknown[]>;
  /** Everything the server wrote to stdout so far. */
  output: () => string;
  /** Resolves once the server's stdout matches `pattern`. */
  logged: (pattern: RegExp) => Promise<void>;
}

/**
 * The environment of the deployed container (manifests/deployment.yaml): BODY_LIMIT,
 * MAX_INFLIGHT_BYTES, NODE_OPTIONS (the heap cap), SHUTDOWN_DELAY_SECONDS, … as deployed.
 */
export function productionEnv(): Record<string, string> {
  const deployment = parse(readFileSync(join(REPO_ROOT, 'manifests', 'deployment.yaml'), 'utf8')) as Obj;
  const container = (deployment.spec.template.spec.containers as Obj[]).find((c) => c.name === 'hooks')!;
  return Object.fromEntries((container.env as Obj[]).map((e) => [e.name, String(e.value)]));
}

/** The built server as a process on a free port (killed at the end of the test), once it listens. */
export async function serve(t: Test, env: Record<string, string> = {}): Promise<Served> {
  const child = spawn(process.execPath, [join(REPO_ROOT, 'dist', 'main.js')], {
    env: { ...process.env, LOG_LEVEL: 'info', ...env, PORT: '0', HOST: '127.0.0.1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = once(child, 'exit');
  t.teardown(() => child.kill('SIGKILL'));
  let output = '';
  const waiting: { pattern: RegExp; resolve: () => void }[] = [];
  child.stdout!.on('data', (chunk) => {
    output += chunk;
    for (const w of waiting.filter((w) => w.pattern.test(output))) {
      waiting.splice(waiting.indexOf(w), 1);
      w.resolve();
    }
  });
  const logged = (pattern: RegExp) =>
    new Promise<void>((resolve, reject) => {
      if (pattern.test(output)) return resolve();
      waiting.push({ pattern, resolve });
      void exited.then(() => reject(new Error(`server exited before logging ${pattern}: ${output}`)));
    });
  await logged(/listening at http:\/\/127\.0\.0\.1:\d+/);
  const port = Number(/listening at http:\/\/127\.0\.0\.1:(\d+)/.exec(output)![1]);
  return { port, child, exited, output: () => output, logged };
}

/** Bytes of hook bodies the server holds now (its in-flight budget, from /metrics). */
export async function inflightBytes(port: number): Promise<number> {
  const text = await new Promise<string>((resolve, reject) => {
    request({ host: '127.0.0.1', port, path: '/metrics', agent: false }, (res) => {
      let body = '';
      res.on('data', (c) => (body += c));
      res.on('end', () => resolve(body));
    })
      .on('error', reject)
      .end();
  });
  return Number(/^c5c3_hooks_inflight_bytes (\d+)$/m.exec(text)?.[1] ?? NaN);
}
