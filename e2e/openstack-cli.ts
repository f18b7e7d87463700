// The `openstack` command a user runs (python-openstackclient with osc-placement, from its pinned
// venv), fed a clouds.yaml: its HTTP goes through the suite's forward proxy, so the in-cluster
// Keystone URL of the clouds.yaml and the catalog URLs of the token resolve as they do in the
// cluster. The clouds.yaml is written for one call (mode 0600) and removed after it.
import { execFile } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { parse } from 'yaml';
import type { Obj } from '../src/sim/cluster.js';
import type { ForwardProxy } from './forward-proxy.js';

const run = promisify(execFile);

export class OpenStackCli {
  private calls = 0;

  constructor(
    private readonly venv: string,
    private readonly dir: string,
    private readonly proxy: ForwardProxy,
  ) {}

  /** `openstack <args> -f json` as the (only) cloud of `cloudsYaml`; its parsed output. */
  async json(cloudsYaml: string, args: string[]): Promise<Obj> {
    const out = await this.run(cloudsYaml, [...args, '-f', 'json']);
    return JSON.parse(out) as Obj;
  }

  /** `openstack <args>` as the (only) cloud of `cloudsYaml`; its standard output. A failure names the command and its last error line. */
  async run(cloudsYaml: string, args: string[]): Promise<string> {
    const cloud = Object.keys((parse(cloudsYaml) as Obj)?.clouds ?? {})[0];
    if (!cloud) throw new Error('the clouds.yaml names no cloud');
    mkdirSync(this.dir, { recursive: true });
    const file = join(this.dir, `clouds-${++this.calls}.yaml`);
    writeFileSync(file, cloudsYaml, { mode: 0o600 });
    try {
      const { stdout } = await run(join(this.venv, 'bin', 'openstack'), args, {
        // Nothing of the suite's own environment chooses the cloud (no OS_* variable).
        env: { ...Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('OS_'))), ...this.proxy.env(), OS_CLIENT_CONFIG_FILE: file, OS_CLOUD: cloud, HOME: this.dir },
        timeout: 180_000,
        maxBuffer: 16 * 1024 * 1024,
      });
      return stdout;
    } catch (err) {
      const stderr = String((err as { stderr?: string }).stderr ?? '').trim().split('\n').at(-1) ?? '';
      throw new Error(`openstack ${args.join(' ')}: ${stderr || (err as Error).message}`);
    } finally {
      rmSync(file, { force: true });
    }
  }
}
