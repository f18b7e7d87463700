// The alert rules and the Grafana dashboard the chart ships (charts/c5c3-hooks/files/) query only
// metrics the service exports: read from the /metrics of a built server (its live registry), not
// from a list kept by hand. Each alert rule has a promtool test case that fires it and one that
// does not (promtool runs them in `npm run e2e`); the condition counter behind the stuck-state
// alerts counts answers by condition without a per-object or unbounded label.
import t from 'tap';
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';
import { buildServer } from '../src/server.js';
import { createMetrics } from '../src/metrics.js';
import { ALERTED_CONDITIONS, conditionLabels, countConditions, initConditionSeries } from '../src/http/condition-metrics.js';
import { metricNames } from './support/promql.js';
import { VERSION } from '../src/version.js';
import { REPO_ROOT, type Obj } from './support/shared.js';

const files = join(REPO_ROOT, 'charts', 'c5c3-hooks', 'files');
const rules = parse(readFileSync(join(files, 'c5c3-hooks.rules.yaml'), 'utf8')) as Obj;
const ruleTests = parse(readFileSync(join(files, 'c5c3-hooks.rules.test.yaml'), 'utf8')) as Obj;
const dashboard = JSON.parse(readFileSync(join(files, 'c5c3-hooks-dashboard.json'), 'utf8')) as Obj;

/** Every series name the server's /metrics can carry, from its `# TYPE` lines (histogram and summary parts included). */
async function exported(): Promise<Set<string>> {
  const app = await buildServer({ logger: false });
  try {
    const res = await app.inject({ method: 'GET', url: '/metrics' });
    const names = new Set<string>();
    for (const [, name, type] of res.body.matchAll(/^# TYPE (\S+) (\S+)$/gm)) {
      names.add(name!);
      if (type === 'histogram') for (const s of ['_bucket', '_sum', '_count']) names.add(name + s);
      if (type === 'summary') for (const s of ['_sum', '_count']) names.add(name + s);
    }
    return names;
  } finally {
    await app.close();
  }
}

t.test('metricNames reads the metrics of an expression, not its functions, labels or variables', async (t) => {
  t.same(metricNames('histogram_quantile(0.99, sum by (hook, le) (rate(c5c3_hooks_request_duration_seconds_bucket{job=~"$job",hook="x"}[$__rate_interval]))) > 8'), ['c5c3_hooks_request_duration_seconds_bucket']);
  t.same(metricNames('absent(c5c3_hooks_ready == 1)'), ['c5c3_hooks_ready']);
  t.same(metricNames('sum by (memo) (rate(a_total{result="hit"}[5m])) / on (memo) group_left sum without (result) (rate(b_total[5m]))'), ['a_total', 'b_total']);
  t.same(metricNames('up{job="a b"} and bool nodejs_x offset 5m'), ['nodejs_x', 'up']);
});

t.test('every alert rule and dashboard panel queries metrics the service exports', async (t) => {
  const names = await exported();
  t.ok(names.has('c5c3_hooks_controlplane_conditions_total') && names.has('c5c3_hooks_ready'), 'the new series are registered');
  const queries: [string, string][] = [];
  for (const group of rules.groups as Obj[]) for (const rule of group.rules as Obj[]) queries.push([`alert ${rule.alert}`, rule.expr]);
  for (const panel of dashboard.panels as Obj[]) for (const target of panel.targets as Obj[]) queries.push([`panel "${panel.title}" ${target.refId}`, target.expr]);
  for (const v of dashboard.templating.list as Obj[]) if (v.type === 'query') queries.push([`variable ${v.name}`, v.definition.replace(/^label_values\(([^,]+),.*$/, '$1')]);
  t.ok(queries.length >= 24, `${queries.length} queries`);
  for (const [where, expr] of queries) {
    const used = metricNames(expr);
    t.ok(used.length > 0, `${where} reads a metric`);
    const missing = used.filter((n) => !names.has(n));
    t.same(missing, [], `${where}: ${used.join(', ')}`);
  }
});

t.test('a query of a metric the service does not export is caught', async (t) => {
  const names = await exported();
  t.same(metricNames('rate(c5c3_hooks_requests_total[5m])').filter((n) => !names.has(n)), ['c5c3_hooks_requests_total']);
});

t.test('each alert rule has a promtool case that fires it and one that does not', async (t) => {
  const alerts = (rules.groups as Obj[]).flatMap((g) => (g.rules as Obj[]).map((r) => r.alert as string));
  t.ok(alerts.length >= 12, `${alerts.length} alerts`);
  t.same(ruleTests.rule_files, ['c5c3-hooks.rules.yaml']);
  const cases = (ruleTests.tests as Obj[]).flatMap((c) => c.alert_rule_test as Obj[]);
  for (const alert of alerts) {
    const mine = cases.filter((c) => c.alertname === alert);
    t.ok(mine.some((c) => (c.exp_alerts ?? []).length > 0), `${alert} fires in a case`);
    t.ok(mine.some((c) => (c.exp_alerts ?? []).length === 0), `${alert} stays silent in a case`);
  }
  const exprs = (rules.groups as Obj[]).flatMap((g) => (g.rules as Obj[]).map((r) => r.expr as string));
  for (const [condition, status, reason] of ALERTED_CONDITIONS) {
    t.ok(exprs.some((e) => e.includes(`condition="${condition}",status="${status}",reason="${reason}"`)), `${condition}=${status}/${reason} has an alert`);
  }
});

t.test('the condition counter: one count per condition of an answer, bounded labels, alerted series present from the start', async (t) => {
  const metrics = createMetrics();
  initConditionSeries(metrics);
  const text = async () => metrics.registry.getSingleMetricAsString('c5c3_hooks_controlplane_conditions_total');
  for (const [condition, status, reason] of ALERTED_CONDITIONS) {
    t.match(await text(), `c5c3_hooks_controlplane_conditions_total{condition="${condition}",status="${status}",reason="${reason}"} 0`);
  }
  const answer = (reason: string) => ({ status: { conditions: [{ type: 'KORCReady', status: 'False', reason }, { type: 'Ready', status: 'False', reason: 'NotAllReady' }] } });
  countConditions(metrics, conditionLabels(answer('ReMintStalled')));
  countConditions(metrics, conditionLabels(answer('ReMintStalled')));
  t.match(await text(), 'c5c3_hooks_controlplane_conditions_total{condition="KORCReady",status="False",reason="ReMintStalled"} 2');
  t.match(await text(), 'c5c3_hooks_controlplane_conditions_total{condition="Ready",status="False",reason="NotAllReady"} 2');
  // A status someone edited: its strings never become labels.
  countConditions(metrics, conditionLabels({ status: { conditions: [{ type: 'Injected-1', status: 'Maybe', reason: 'x'.repeat(300) }, null, 7] } }));
  countConditions(metrics, conditionLabels({ status: { conditions: 'nope' } }));
  countConditions(metrics, conditionLabels(undefined));
  t.match(await text(), 'c5c3_hooks_controlplane_conditions_total{condition="Other",status="Other",reason="Other"} 1');
  t.notMatch(await text(), /Injected|xxxx/);
});

t.test('the server counts ControlPlane answers and reports readiness', async (t) => {
  const app = await buildServer({ logger: false });
  t.teardown(() => app.close());
  const scrape = async () => (await app.inject({ method: 'GET', url: '/metrics' })).body;
  t.match(await scrape(), /^c5c3_hooks_ready 1$/m);
  const cp = { apiVersion: 'c5c3.io/v1alpha1', kind: 'ControlPlane', metadata: { name: 'cp', namespace: 'ns', uid: 'u', generation: 1 }, spec: { openStackRelease: '2025.2', services: { keystone: {} } } };
  const res = await app.inject({ method: 'POST', url: '/controlplane/sync', payload: { controller: {}, parent: cp, children: {}, related: {} } });
  t.equal(res.statusCode, 200);
  const answered = (res.json() as Obj).status.conditions.length;
  const counted = [...(await scrape()).matchAll(/^c5c3_hooks_controlplane_conditions_total\{[^}]*\} (\d+)$/gm)].reduce((n, m) => n + Number(m[1]), 0);
  t.equal(counted, answered, 'one count per condition of the answer');
  app.c5c3.draining = true;
  t.match(await scrape(), /^c5c3_hooks_ready 0$/m, 'draining: not ready');
});

/** Where every alert's runbook lives: docs/runbooks.md, one section per alert. */
const RUNBOOKS = 'https://github.com/c5c3/c5c3-hooks/blob/main/docs/runbooks.md';

t.test('every alert links its runbook: a section of docs/runbooks.md saying what it means, what to check, what to do', async (t) => {
  const runbooks = readFileSync(join(REPO_ROOT, 'docs', 'runbooks.md'), 'utf8');
  const sections = new Map(runbooks.split('\n## ').slice(1).map((part) => [part.split('\n')[0] ?? '', part] as const));
  for (const group of rules.groups as Obj[]) {
    for (const rule of group.rules as Obj[]) {
      t.equal(rule.annotations.runbook_url, `${RUNBOOKS}#${String(rule.alert).toLowerCase()}`, `${rule.alert}: runbook_url`);
      const section = sections.get(rule.alert) ?? '';
      for (const part of ['**What it means.**', '**What to check.**', '**What to do.**']) t.ok(section.includes(part), `${rule.alert}: ${part}`);
    }
  }
  t.equal(sections.size, (rules.groups as Obj[]).flatMap((g) => g.rules as Obj[]).length, 'no runbook without its alert');
});

t.test('ORCTeardownStalled keeps firing: the released ControlPlane is answered no more, so the window is days, not an hour', async (t) => {
  const rule = (rules.groups as Obj[]).flatMap((g) => g.rules as Obj[]).find((r) => r.alert === 'C5C3ControlPlaneORCTeardownStalled') as Obj;
  t.match(rule.expr, /reason="ORCTeardownStalled"\}\[7d\]\)\) > 0$/);
  const cases = (ruleTests.tests as Obj[]).filter((c) => (c.alert_rule_test as Obj[]).some((a) => a.alertname === rule.alert));
  const firing = cases.flatMap((c) => c.alert_rule_test as Obj[]).filter((a) => a.alertname === rule.alert && (a.exp_alerts ?? []).length > 0).map((a) => a.eval_time);
  t.ok(firing.includes('3d'), `a promtool case has it firing 3 days after the one answer: ${firing.join(', ')}`);
});

/** promtool: PROMTOOL, else the one e2e/setup.sh unpacks into its cache; undefined when neither is there. */
function promtool(): string | undefined {
  const cache = process.env.E2E_CACHE ?? join(process.env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'c5c3-hooks', 'e2e');
  return [process.env.PROMTOOL, join(cache, 'bin', 'promtool-debian', 'promtool')].find((p): p is string => !!p && existsSync(p));
}

t.test('promtool test rules passes (when promtool is there: PROMTOOL or the e2e cache; npm run e2e always runs it)', async (t) => {
  const bin = promtool();
  if (!bin) {
    t.pass('promtool not found (set PROMTOOL): skipped here, run by e2e scenario 30');
    return;
  }
  const r = spawnSync(bin, ['test', 'rules', 'c5c3-hooks.rules.test.yaml'], { cwd: files, encoding: 'utf8' });
  t.equal(r.status, 0, `${r.stdout}${r.stderr}`);
  t.match(r.stdout, /SUCCESS/);
});

t.test('c5c3_hooks_build_info names the version (package.json\'s) and the Node.js of the process', async (t) => {
  t.equal(VERSION, JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')).version, 'src/version.ts is package.json\'s version');
  const app = await buildServer({ logger: false });
  t.teardown(() => app.close());
  const body = (await app.inject({ method: 'GET', url: '/metrics' })).body;
  t.match(body, /^# TYPE c5c3_hooks_build_info gauge$/m);
  t.match(body, new RegExp(`^c5c3_hooks_build_info\\{version="${VERSION.replace(/\./g, '\\.')}",node="${process.version.replace(/\./g, '\\.')}"\\} 1$`, 'm'));
});

t.test('the dashboard has a memory panel: resident memory, V8 heap, outside the heap, per replica', async (t) => {
  const panel = (dashboard.panels as Obj[]).find((p) => /^Memory/.test(p.title));
  t.ok(panel, 'a memory panel');
  const exprs = ((panel?.targets ?? []) as Obj[]).map((x) => x.expr as string);
  for (const metric of ['process_resident_memory_bytes', 'nodejs_heap_size_used_bytes', 'nodejs_external_memory_bytes']) t.ok(exprs.some((e) => e.includes(metric)), metric);
  t.equal(panel?.fieldConfig.defaults.unit, 'bytes');
  const ids = (dashboard.panels as Obj[]).map((p) => p.id);
  t.equal(new Set(ids).size, ids.length, 'panel ids unique');
});
