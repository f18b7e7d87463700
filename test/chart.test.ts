// The Helm chart (charts/c5c3-hooks) without Helm: its generated files are up to date (crds/ and
// the Metacontroller templates, `npm run gen`), and each default in values.yaml is the value
// manifests/ uses, so the two install paths start from one set of settings. Rendering the chart
// and comparing it with `kubectl kustomize manifests/` object by object, `helm lint` and a
// server-side dry-run need Helm and an API server: `npm run e2e` does them (e2e/chart.ts).
import t from 'tap';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { Ajv } from 'ajv';
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
  t.equal(values.replicaCount, deployment.spec.replicas);
  t.same(values.podSecurityContext, deployment.spec.template.spec.securityContext, 'the pod securityContext');
  t.same(values.securityContext, container.securityContext, "the container's securityContext");
  const spread = deployment.spec.template.spec.topologySpreadConstraints;
  const { enabled, ...spreadValues } = values.topologySpread as Obj;
  const { labelSelector, ...spreadManifest } = spread[0] as Obj;
  t.equal(enabled, true);
  t.same(spreadValues, spreadManifest, 'the topology spread');
  t.same(labelSelector, { matchLabels: deployment.spec.selector.matchLabels }, "over the pods' own labels");
  t.same(values.extraTopologySpreadConstraints, spread.slice(1));
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

t.test('values.schema.json admits the defaults and the quickstart, and refuses a misspelt or mistyped value', async (t) => {
  const schema = JSON.parse(readFileSync(join(chart, 'values.schema.json'), 'utf8')) as Obj;
  const validate = new Ajv({ allErrors: true, allowUnionTypes: true }).compile(schema);
  const ok = (v: Obj) => validate(v) === true;
  t.ok(ok(values), `the defaults: ${JSON.stringify(validate.errors)}`);
  t.same(Object.keys(schema.properties).filter((k) => k !== 'global').sort(), Object.keys(values).sort(), 'every value has its schema, no schema without a value');
  const withValue = (path: string[], value: unknown): Obj => {
    const v = structuredClone(values);
    let node = v;
    for (const k of path.slice(0, -1)) node = node[k];
    node[path.at(-1) ?? ''] = value;
    return v;
  };
  t.ok(ok(withValue(['image', 'repository'], 'registry.example.com/c5c3-hooks')) && ok(withValue(['image', 'tag'], 'dev')), "the quickstart's image values");
  t.ok(ok(withValue(['podSecurityContext'], { runAsNonRoot: true, seccompProfile: { type: 'RuntimeDefault' } })), 'OpenShift: no uid');
  t.ok(ok(withValue(['replicaCount'], 1)), 'one replica is allowed');
  t.notOk(ok({ ...values, replicas: 2 }), 'the former name `replicas` is refused, not ignored');
  t.notOk(ok(withValue(['replicaCount'], 'two')), 'a replica count that is not a number');
  t.notOk(ok(withValue(['replicaCount'], 0)), 'no replica');
  t.notOk(ok(withValue(['config', 'logLevel'], 'verbose')), 'a log level the service refuses');
  t.notOk(ok(withValue(['config', 'bodyLimit'], '8MB')), 'a size the service does not read');
  t.notOk(ok(withValue(['image', 'pullPolicy'], 'Sometimes')));
});

t.test('templates: no hard-coded uid, the PDB only above one replica, the spread and securityContexts from values, NOTES.txt', async (t) => {
  const templates = join(chart, 'templates');
  const deploymentTemplate = readFileSync(join(templates, 'deployment.yaml'), 'utf8');
  t.notMatch(deploymentTemplate, /runAsUser|runAsGroup|\b1000\b/, 'the uid is a value (OpenShift assigns its own)');
  t.match(deploymentTemplate, /replicas: \{\{ \.Values\.replicaCount \}\}/);
  t.match(deploymentTemplate, /\{\{- with \.Values\.podSecurityContext \}\}\n\s+securityContext:/);
  t.match(deploymentTemplate, /\{\{- with \.Values\.securityContext \}\}\n\s+securityContext:/);
  t.match(deploymentTemplate, /\.Values\.topologySpread\.topologyKey/);
  t.match(readFileSync(join(templates, 'poddisruptionbudget.yaml'), 'utf8'), /^\{\{- if and \.Values\.podDisruptionBudget\.enabled \(gt \(int \.Values\.replicaCount\) 1\) \}\}$/m);
  const notes = readFileSync(join(templates, 'NOTES.txt'), 'utf8');
  t.match(notes, /rollout status deployment/);
  t.match(notes, /keeping its database/, 'NOTES warn of the database deletion');
  t.ok(readFileSync(join(chart, 'README.md'), 'utf8').includes('| `replicaCount` | `2` |'), 'the chart README documents the values');
});
