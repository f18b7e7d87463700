// The Helm chart against the kustomize manifests, and the alert rules under promtool, with the
// helm, kubectl and promtool e2e/setup.sh builds (e2e scenario 30):
// - `helm lint`, with the defaults and with every opt-in;
// - `helm template` with the default values renders exactly `kubectl kustomize manifests/`,
//   object by object, but for Helm's own labels and the Namespace (the chart renders it only with
//   namespace.create=true, then identical too: `helm install --create-namespace` would collide);
// - with the opt-ins: the three controllers are metacontroller/'s, the PrometheusRule holds the
//   rule file, the dashboard ConfigMap the dashboard with the Grafana sidecar's label;
// - `promtool check rules` and `promtool test rules` on the rule file;
// - a server-side dry-run apply of everything rendered against the suite's API server.
import { spawnSync } from 'node:child_process';
import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse, parseAllDocuments } from 'yaml';
import type { Obj } from '../src/sim/cluster.js';

/** Labels Helm charts add by convention; the only difference allowed between the two renders. */
export const HELM_LABELS = ['helm.sh/chart', 'app.kubernetes.io/managed-by', 'app.kubernetes.io/instance', 'app.kubernetes.io/version'];
export const OPT_INS = ['metacontroller.controllers.enabled=true', 'serviceMonitor.enabled=true', 'prometheusRule.enabled=true', 'dashboard.enabled=true'];
const NAMESPACE = 'c5c3-system';

export interface Tools {
  helm: string;
  kubectl: string;
  promtool: string;
  repo: string;
}

function run(command: string, args: string[], cwd?: string): string {
  const r = spawnSync(command, args, { cwd, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  if (r.status !== 0) throw new Error(`${command.split('/').pop()} ${args.join(' ')} exited ${r.status ?? r.signal}: ${(r.stderr || r.stdout).trim().slice(0, 2000)}`);
  return r.stdout;
}

export const docsOf = (text: string): Obj[] => parseAllDocuments(text).map((d) => d.toJS() as Obj).filter((o) => o && o.kind);
const keyOf = (o: Obj) => `${o.kind}/${o.metadata?.namespace ?? ''}/${o.metadata?.name}`;

/** A copy without Helm's own labels (an emptied labels map removed). */
export function withoutHelmLabels(o: Obj): Obj {
  const copy = structuredClone(o);
  const labels = copy.metadata?.labels;
  if (labels) {
    for (const l of HELM_LABELS) delete labels[l];
    if (Object.keys(labels).length === 0) delete copy.metadata.labels;
  }
  return copy;
}

/** Differences between two sets of objects, by identity, each a line; empty when they are the same. */
export function differences(expected: Obj[], actual: Obj[]): string[] {
  const a = new Map(expected.map((o) => [keyOf(o), o]));
  const b = new Map(actual.map((o) => [keyOf(o), withoutHelmLabels(o)]));
  const out: string[] = [];
  for (const k of a.keys()) if (!b.has(k)) out.push(`missing from the chart: ${k}`);
  for (const k of b.keys()) if (!a.has(k)) out.push(`only in the chart: ${k}`);
  for (const [k, o] of a) {
    const other = b.get(k);
    if (other && JSON.stringify(sorted(o)) !== JSON.stringify(sorted(other))) out.push(`${k} differs:\n  kustomize ${JSON.stringify(sorted(o))}\n  helm      ${JSON.stringify(sorted(other))}`);
  }
  return out;
}

function sorted(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(sorted);
  if (v && typeof v === 'object') return Object.fromEntries(Object.keys(v).sort().map((k) => [k, sorted((v as Obj)[k])]));
  return v;
}

export function helmTemplate(t: Tools, set: string[] = []): { text: string; docs: Obj[] } {
  const text = run(t.helm, ['template', 'c5c3-hooks', join(t.repo, 'charts', 'c5c3-hooks'), '--namespace', NAMESPACE, '--include-crds', ...set.flatMap((s) => ['--set', s])]);
  return { text, docs: docsOf(text) };
}

/** Every check but the dry-run; returns what it checked, throws on the first failure. */
export function checkChart(t: Tools): string[] {
  const done: string[] = [];
  run(t.helm, ['lint', '--strict', join(t.repo, 'charts', 'c5c3-hooks')]);
  run(t.helm, ['lint', '--strict', join(t.repo, 'charts', 'c5c3-hooks'), ...[...OPT_INS, 'namespace.create=true', 'config.tlsSecretName=hooks-tls'].flatMap((s) => ['--set', s])]);
  done.push('helm lint --strict: defaults and every opt-in');

  const kustomize = docsOf(run(t.kubectl, ['kustomize', join(t.repo, 'manifests')]));
  const defaults = helmTemplate(t).docs;
  const diff = differences(kustomize.filter((o) => o.kind !== 'Namespace'), defaults);
  if (diff.length > 0) throw new Error(`helm template (defaults) differs from kubectl kustomize manifests/ (Namespace aside):\n${diff.join('\n')}`);
  const withNs = differences(kustomize, helmTemplate(t, ['namespace.create=true']).docs);
  if (withNs.length > 0) throw new Error(`helm template --set namespace.create=true differs from kubectl kustomize manifests/:\n${withNs.join('\n')}`);
  done.push(`helm template = kubectl kustomize manifests/ (${kustomize.length} objects; the Namespace with namespace.create=true)`);

  // values.schema.json: a mistyped or misspelt value (the former `replicas`) is refused, not rendered.
  for (const bad of ['replicaCount=two', 'replicas=2', 'config.logLevel=verbose']) {
    const r = spawnSync(t.helm, ['template', 'c5c3-hooks', join(t.repo, 'charts', 'c5c3-hooks'), '--set', bad], { encoding: 'utf8' });
    if (r.status === 0) throw new Error(`helm template --set ${bad} rendered: values.schema.json did not refuse it`);
  }
  // One replica: no PodDisruptionBudget (minAvailable 1 of 1 blocks every drain). OpenShift: no uid.
  if (helmTemplate(t, ['replicaCount=1']).docs.some((o) => o.kind === 'PodDisruptionBudget')) throw new Error('replicaCount=1 rendered a PodDisruptionBudget');
  const openshift = helmTemplate(t, ['podSecurityContext.runAsUser=null', 'podSecurityContext.runAsGroup=null']).docs.find((o) => o.kind === 'Deployment');
  const podSecurity = openshift?.spec.template.spec.securityContext ?? {};
  if ('runAsUser' in podSecurity || 'runAsGroup' in podSecurity || podSecurity.runAsNonRoot !== true) throw new Error(`podSecurityContext.runAsUser=null still sets a uid: ${JSON.stringify(podSecurity)}`);
  done.push('values.schema.json refuses bad values; one replica renders no PDB; the uid can be left to the platform');

  const all = helmTemplate(t, OPT_INS).docs;
  const controllers = readdirSync(join(t.repo, 'metacontroller')).flatMap((f) => docsOf(readFileSync(join(t.repo, 'metacontroller', f), 'utf8')));
  const rendered = all.filter((o) => o.apiVersion === 'metacontroller.k8s.io/v1alpha1');
  const cdiff = differences(controllers, rendered);
  if (cdiff.length > 0) throw new Error(`the chart's Metacontroller controllers differ from metacontroller/:\n${cdiff.join('\n')}`);
  const rules = parse(readFileSync(join(t.repo, 'charts', 'c5c3-hooks', 'files', 'c5c3-hooks.rules.yaml'), 'utf8')) as Obj;
  const rule = all.find((o) => o.kind === 'PrometheusRule');
  if (!rule || JSON.stringify(sorted(rule.spec.groups)) !== JSON.stringify(sorted(rules.groups))) throw new Error('the PrometheusRule does not hold files/c5c3-hooks.rules.yaml');
  const dashboard = all.find((o) => o.kind === 'ConfigMap' && o.metadata.name === 'c5c3-hooks-dashboard');
  const json = readFileSync(join(t.repo, 'charts', 'c5c3-hooks', 'files', 'c5c3-hooks-dashboard.json'), 'utf8');
  if (!dashboard || dashboard.metadata.labels?.grafana_dashboard !== '1' || JSON.stringify(sorted(JSON.parse(dashboard.data['c5c3-hooks.json']))) !== JSON.stringify(sorted(JSON.parse(json)))) {
    throw new Error('the dashboard ConfigMap does not hold files/c5c3-hooks-dashboard.json with grafana_dashboard: "1"');
  }
  if (!all.some((o) => o.kind === 'ServiceMonitor' && o.spec.endpoints[0].path === '/metrics')) throw new Error('no ServiceMonitor of /metrics');
  done.push('opt-ins: the controllers are metacontroller/\'s, the PrometheusRule the rule file, the dashboard ConfigMap the dashboard');

  const files = join(t.repo, 'charts', 'c5c3-hooks', 'files');
  run(t.promtool, ['check', 'rules', 'c5c3-hooks.rules.yaml'], files);
  const tested = run(t.promtool, ['test', 'rules', 'c5c3-hooks.rules.test.yaml'], files);
  if (!/SUCCESS/.test(tested)) throw new Error(`promtool test rules: ${tested}`);
  done.push('promtool check rules and test rules: SUCCESS');
  return done;
}

/**
 * The monitoring.coreos.com kinds the chart renders, as stand-in CRDs (any spec accepted): the
 * module proxy here does not serve prometheus-operator's main module, whose CRDs these would be,
 * so the dry-run proves the kinds and metadata, and promtool the rules.
 */
export const MONITORING_CRDS: Obj[] = [
  ['ServiceMonitor', 'servicemonitors'],
  ['PrometheusRule', 'prometheusrules'],
].map(([kind, plural]) => ({
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: `${plural}.monitoring.coreos.com` },
  spec: {
    group: 'monitoring.coreos.com',
    names: { kind, plural, listKind: `${kind}List`, singular: kind!.toLowerCase() },
    scope: 'Namespaced',
    versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } }],
  },
}));

/** `kubectl apply --server-side --dry-run=server` of everything the chart renders with every opt-in. */
export function dryRun(t: Tools, kubeconfig: string, dir: string): string {
  const { text } = helmTemplate(t, [...OPT_INS, 'namespace.create=true']);
  const file = join(dir, 'chart-rendered.yaml');
  writeFileSync(file, text);
  // --force-conflicts: the suite installed the controllers itself (webhook URLs of the local
  // service); a dry-run changes nothing either way.
  return run(t.kubectl, ['--kubeconfig', kubeconfig, 'apply', '--server-side', '--dry-run=server', '--force-conflicts', '--field-manager=c5c3-e2e', '-f', file]);
}
