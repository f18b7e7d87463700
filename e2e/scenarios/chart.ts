// Scenario 30: the Helm chart and the alert rules (issue 42), with the helm, kubectl and promtool
// e2e/setup.sh builds: lint, the chart rendered against `kubectl kustomize manifests/`, the opt-ins,
// promtool's rule tests, and a server-side dry-run of everything rendered against this API server
// (the c5c3.io CRDs, Metacontroller's CRDs and the workload kinds are the real ones).
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { checkChart, dryRun, MONITORING_CRDS, type Tools } from '../chart.js';
import { check, ensureNamespace, type Scenario } from './support.js';

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
      },
    },
  ];
}
