// Scenario 30: the Helm chart and the alert rules (issue 42), with the helm, kubectl and promtool
// e2e/setup.sh builds: lint, the chart rendered against `kubectl kustomize manifests/`, the opt-ins,
// promtool's rule tests, and a server-side dry-run of everything rendered against this API server
// (the c5c3.io CRDs, Metacontroller's CRDs and the workload kinds are the real ones); then the
// README's quickstart as written, each apply a server-side dry run (src/cli/quickstart.ts).
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { checkChart, dryRun, MONITORING_CRDS, type Tools } from '../chart.js';
import { quickstartDryRuns } from '../../src/cli/quickstart.js';
import { check, ensureNamespace, MANAGED_NS, type Scenario } from './support.js';

/**
 * Runs the README quickstart's applies (server-side dry runs) with bash in the checkout, the
 * suite's kubectl and helm first on PATH and its kubeconfig; returns one line per command.
 */
function runQuickstart(tools: Tools, kubeconfig: string, dir: string): string[] {
  const bin = join(dir, 'quickstart-bin');
  rmSync(bin, { recursive: true, force: true });
  mkdirSync(bin, { recursive: true });
  symlinkSync(tools.kubectl, join(bin, 'kubectl'));
  symlinkSync(tools.helm, join(bin, 'helm'));
  const commands = quickstartDryRuns(readFileSync(join(tools.repo, 'README.md'), 'utf8'));
  check(commands.length >= 3, `the quickstart's applies found: ${commands.join('\n')}`);
  return commands.map((command) => {
    const r = spawnSync('bash', ['-euo', 'pipefail', '-c', command], {
      cwd: tools.repo,
      encoding: 'utf8',
      env: { ...process.env, PATH: `${bin}:${process.env.PATH ?? ''}`, KUBECONFIG: kubeconfig },
      maxBuffer: 64 * 1024 * 1024,
    });
    const out = r.stdout.trim().split('\n').filter((l) => l !== '');
    check(r.status === 0 && out.length > 0 && out.every((l) => /\(server dry run\)$/.test(l)), `README quickstart, as written, admitted (dry run): ${command}\n${r.stdout}${r.stderr}`);
    return `${command.split('\n')[0]}: ${out.length} object(s)`;
  });
}

export function chartScenarios(): Scenario[] {
  return [
    {
      id: 30,
      title: 'Helm chart: lint, helm template = kubectl kustomize manifests/, promtool test rules, server-side dry-run of every opt-in',
      run: async (ctx) => {
        const kubectl = join(ctx.h.paths.bin.kubernetes, 'kubectl');
        const tools: Tools = { helm: ctx.h.paths.bin.helm, promtool: ctx.h.paths.bin.promtool, kubectl, repo: ctx.h.paths.repo };
        for (const line of checkChart(tools)) console.log(`    ${line}`);
        const crds = join(ctx.h.paths.run, 'monitoring-crds.yaml');
        writeFileSync(crds, MONITORING_CRDS.map((c) => stringify(c)).join('---\n'));
        await ctx.h.applyYamlFiles([crds]);
        await ensureNamespace(ctx, 'c5c3-system');
        const kubeconfig = ctx.h.suiteKubeconfig();
        const lines = dryRun(tools, kubeconfig, ctx.h.paths.run).trim().split('\n');
        check(lines.every((l) => /\(server dry run\)$/.test(l)), `every object a server dry run:\n${lines.join('\n')}`);
        for (const id of [
          'customresourcedefinition.apiextensions.k8s.io/controlplanes.c5c3.io',
          'namespace/c5c3-system',
          'serviceaccount/c5c3-hooks',
          'service/c5c3-hooks',
          'deployment.apps/c5c3-hooks',
          'networkpolicy.networking.k8s.io/c5c3-hooks',
          'poddisruptionbudget.policy/c5c3-hooks',
          'compositecontroller.metacontroller.k8s.io/c5c3-controlplane',
          'decoratorcontroller.metacontroller.k8s.io/c5c3-credentialrotation',
          'compositecontroller.metacontroller.k8s.io/c5c3-secretaggregate',
          'servicemonitor.monitoring.coreos.com/c5c3-hooks',
          'prometheusrule.monitoring.coreos.com/c5c3-hooks',
          'configmap/c5c3-hooks-dashboard',
        ]) {
          check(lines.some((l) => l.startsWith(`${id} `)), `${id} accepted by the API server (dry run):\n${lines.join('\n')}`);
        }
        console.log(`    server-side dry-run: ${lines.length} objects accepted (monitoring.coreos.com against stand-in CRDs)`);
        const left = spawnSync(kubectl, ['--kubeconfig', kubeconfig, 'get', 'deployments,services,configmaps', '-n', 'c5c3-system', '-o', 'name'], { encoding: 'utf8' });
        check(left.status === 0 && !/c5c3-hooks/.test(left.stdout), `a dry run creates nothing: ${left.stdout}${left.stderr}`);
        // The quickstart's ControlPlane goes into MANAGED_NS ('openstack'), which its own
        // `kubectl create namespace` would make.
        await ensureNamespace(ctx, MANAGED_NS);
        for (const line of runQuickstart(tools, kubeconfig, ctx.h.paths.run)) console.log(`    README quickstart: ${line}`);
      },
    },
  ];
}
