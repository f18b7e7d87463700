// The Helm chart (charts/c5c3-hooks) without Helm: its generated files are up to date (crds/ and
// the Metacontroller templates, `npm run gen`), and each default in values.yaml is the value
// manifests/ uses, so the two install paths start from one set of settings. Rendering the chart
// and comparing it with `kubectl kustomize manifests/` object by object, `helm lint` and a
// server-side dry-run need Helm and an API server: `npm run e2e` does them (e2e/chart.ts).
import t from 'tap';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { CHART_DIR, renderChartFiles } from '../src/cli/chart-files.js';
import { loadConfig } from '../src/config.js';
import { REPO_ROOT, readYamlDocs, type Obj } from './support/shared.js';

const chart = join(REPO_ROOT, CHART_DIR);
const values = parse(readFileSync(join(chart, 'values.yaml'), 'utf8')) as Obj;
const meta = parse(readFileSync(join(chart, 'Chart.yaml'), 'utf8')) as Obj;
const manifest = (file: string) => readYamlDocs(join(REPO_ROOT, 'manifests', file))[0]!;
const deployment = manifest('deployment.yaml');
const container = deployment.spec.template.spec.containers[0];
const env = Object.fromEntries((container.env as Obj[]).map((e) => [e.name, e.value]));
const pkg = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as Obj;

t.test('the generated chart files are up to date (run `npm run gen`)', async (t) => {
  const files = renderChartFiles(REPO_ROOT);
  t.equal([...files.keys()].filter((p) => p.includes('/crds/')).length, 3, 'three CRDs');
  t.equal([...files.keys()].filter((p) => p.includes('/templates/metacontroller-')).length, readdirSync(join(REPO_ROOT, 'metacontroller')).length, 'one template per controller');
  for (const [path, content] of files) t.equal(readFileSync(join(REPO_ROOT, path), 'utf8'), content, `${path} is up to date`);
  for (const file of readdirSync(join(REPO_ROOT, 'manifests', 'crds'))) {
    t.equal(readFileSync(join(chart, 'crds', file), 'utf8'), readFileSync(join(REPO_ROOT, 'manifests', 'crds', file), 'utf8'), `crds/${file} is manifests/crds/${file}`);
  }
});

t.test("values.yaml's defaults are the manifests' settings", async (t) => {
  const kustomization = manifest('kustomization.yaml');
  t.equal(values.image.repository, kustomization.images[0].newName);
  t.equal(values.image.tag || meta.appVersion, kustomization.images[0].newTag, 'image tag (default: appVersion)');
  t.equal(meta.appVersion, pkg.version, 'appVersion is the service version');
  t.equal(meta.version, pkg.version, 'the chart version is the service version');
  t.equal(values.image.pullPolicy, container.imagePullPolicy);
  t.equal(values.replicas, deployment.spec.replicas);
  t.equal(values.revisionHistoryLimit, deployment.spec.revisionHistoryLimit);
  t.equal(values.terminationGracePeriodSeconds, deployment.spec.template.spec.terminationGracePeriodSeconds);
  t.same(values.resources, container.resources);
  t.equal(values.podDisruptionBudget.minAvailable, manifest('poddisruptionbudget.yaml').spec.minAvailable);
  t.same(
    {
      PORT: String(values.config.port),
      HOST: values.config.host,
      LOG_LEVEL: values.config.logLevel,
      BODY_LIMIT: values.config.bodyLimit,
      MAX_INFLIGHT_BYTES: values.config.maxInflightBytes,
      NODE_OPTIONS: values.config.nodeOptions,
      SHUTDOWN_DELAY_SECONDS: String(values.config.shutdownDelaySeconds),
    },
    env,
    'every variable the Deployment sets, from config',
  );
  t.equal(values.config.maxEventLoopDelayMs, '', 'MAX_EVENT_LOOP_DELAY_MS: unset in both, the service default');
  t.equal(values.config.tlsSecretName, '');
  t.equal(values.config.captureDir, '');
  const np = manifest('networkpolicy.yaml');
  const peer = np.spec.ingress[0].from[0];
  t.equal(values.networkPolicy.metacontroller.namespace, peer.namespaceSelector.matchLabels['kubernetes.io/metadata.name']);
  t.same(values.networkPolicy.metacontroller.podNames, peer.podSelector.matchExpressions[0].values);
  t.equal(values.namespace.podSecurity, manifest('namespace.yaml').metadata.labels['pod-security.kubernetes.io/enforce']);
  const controllers = readdirSync(join(REPO_ROOT, 'metacontroller')).map((f) => readYamlDocs(join(REPO_ROOT, 'metacontroller', f))[0]!);
  for (const c of controllers) t.equal(values.metacontroller.resyncPeriodSeconds, c.spec.resyncPeriodSeconds, `${c.metadata.name} resync`);
  t.equal(values.dashboard.labels.grafana_dashboard, '1', "the Grafana sidecar's usual label");
  for (const optIn of ['serviceMonitor', 'prometheusRule', 'dashboard']) t.equal(values[optIn].enabled, false, `${optIn} is opt-in`);
  t.equal(values.metacontroller.controllers.enabled, false, 'the controllers are opt-in');
});

t.test('the values the chart passes to the service are ones it accepts', async (t) => {
  const config = loadConfig({
    PORT: String(values.config.port),
    HOST: values.config.host,
    LOG_LEVEL: values.config.logLevel,
    BODY_LIMIT: values.config.bodyLimit,
    MAX_INFLIGHT_BYTES: values.config.maxInflightBytes,
    SHUTDOWN_DELAY_SECONDS: String(values.config.shutdownDelaySeconds),
    MAX_EVENT_LOOP_DELAY_MS: values.config.maxEventLoopDelayMs,
  });
  t.equal(config.port, 8080);
  t.equal(config.bodyLimit, 8 * 1024 * 1024);
});
