// The README and docs/ (issue 56): the README stays a short front page (at most 250 lines, a table of
// contents whose anchors resolve), every relative link of the pages resolves (file and anchor), every
// heading of the long README it replaced is still there (README or docs/), the quickstart's commands
// are extracted as the e2e suite runs them (scenario 30: server-side dry runs), and what the
// quickstart asks to put in OpenBao is what the hooks read.
import t from 'tap';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import { markdownSection, QUICKSTART_HEADING, quickstartDryRuns, shellCommands } from '../src/cli/quickstart.js';
import { CLUSTER_SECRET_STORE, remoteKeys, serviceRemoteKeys } from '../src/controlplane/names.js';
import { SERVICE_NAMES } from '../src/api/services/index.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const read = (path: string) => readFileSync(join(root, path), 'utf8');
const README = read('README.md');
const PAGES = ['README.md', 'charts/c5c3-hooks/README.md', ...readdirSync(join(root, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`)];

/** The headings of the README before it was cut down (commit 1cdca27): each must still exist. */
const FORMER_HEADINGS = [
  'c5c3-hooks', 'What it is', 'Endpoints', 'See it work without a cluster', 'Services beside Keystone: the compute cloud',
  'Backing up the database', 'Restoring the database', 'The sync hook', 'The K-ORC admin credential (stages 5–7)',
  'Release upgrades (rollout phases)', 'The finalize hook', 'Rotating the admin credential: CredentialRotation',
  'Scheduled rotation: make-before-break', 'Taking over from the reference operator', 'Merging Secrets: SecretAggregate',
  'Configuration', 'Installing into a cluster', 'Installing with Helm', 'Your own settings: an overlay',
  'Watching it: alerts and a dashboard', 'The image', 'Development', 'End-to-end test (real API server and Metacontroller)', 'Tests',
];

/** Headings outside code blocks. */
function headings(markdown: string): string[] {
  const out: string[] = [];
  let fenced = false;
  for (const line of markdown.split('\n')) {
    if (line.startsWith('```')) fenced = !fenced;
    const m = /^#{1,6} (.+)$/.exec(line);
    if (!fenced && m?.[1]) out.push(m[1].trim());
  }
  return out;
}

/** GitHub's anchor of a heading: lower case, punctuation but `-` and `_` dropped, spaces to `-`; repeats get -1, -2, … */
function anchors(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  for (const h of headings(markdown)) {
    const slug = h.toLowerCase().replace(/[^\p{L}\p{N}\s_-]/gu, '').replace(/\s/g, '-');
    const n = seen.get(slug) ?? 0;
    seen.set(slug, n + 1);
    out.add(n === 0 ? slug : `${slug}-${n}`);
  }
  return out;
}

/** The relative links of a page outside code blocks: [text](target). */
function links(markdown: string): string[] {
  let fenced = false;
  const out: string[] = [];
  for (const line of markdown.split('\n')) {
    if (line.startsWith('```')) fenced = !fenced;
    if (fenced) continue;
    for (const m of line.replace(/`[^`]*`/g, '').matchAll(/\]\(([^)\s]+)\)/g)) if (m[1] && !/^[a-z]+:/.test(m[1])) out.push(m[1]);
  }
  return out;
}

t.test('README: at most 250 lines, the two first commands, a table of contents that resolves', async (t) => {
  const lines = README.trimEnd().split('\n');
  t.ok(lines.length <= 250, `README has ${lines.length} lines`);
  t.match(README, /^# c5c3-hooks\n\nInstall and run the hooks server \(port 8080\):\n\n```sh\nnpm ci && npm start\n```\n\nRun the tests:\n\n```sh\nnpm test\n```\n/, 'opens with install+run, then the tests');
  const toc = markdownSection(README, 'Contents');
  const entries = [...toc.matchAll(/\]\(#([^)]+)\)/g)].map((m) => m[1]);
  t.ok(entries.length >= 6, entries.join(', '));
  const own = anchors(README);
  for (const a of entries) t.ok(a && own.has(a), `#${a} is a heading of the README`);
  for (const part of ['what-it-is', 'quickstart-a-compute-cloud-in-your-cluster', 'tests', 'replay-a-hook-call', 'simulate-a-compute-cloud-without-a-cluster', 'further-reading']) {
    t.ok(entries.includes(part), `the contents name ${part}`);
  }
  t.match(markdownSection(README, 'What it is'), /\*\*compute cloud\*\*/, 'says what one ControlPlane brings up: a compute cloud');
});

t.test('README, Tests: the phase table of a cold and a warm CI run, every cell measured', async (t) => {
  const tests = markdownSection(README, 'Tests');
  t.match(tests, /^\| phase \| cold \| warm \|\n\|---\|---\|---\|\n/m);
  const rows = [...tests.matchAll(/^\| (?!phase|---)(.+?) \| (.+?) \| (.+?) \|$/gm)];
  t.ok(rows.length >= 4, `${rows.length} phases`);
  for (const [, phase, cold, warm] of rows) t.ok(/^[\d,]+ s$/.test(cold ?? '') && /^[\d,]+ s$/.test(warm ?? ''), `${phase}: ${cold} cold, ${warm} warm`);
  t.ok(rows.some(([, phase]) => phase === 'total'), 'a total row');
});

t.test('every relative link of README, the chart README and docs/ resolves, anchors included', async (t) => {
  for (const page of PAGES) {
    for (const link of links(read(page))) {
      const [path = '', anchor] = link.split('#');
      const target = path === '' ? page : normalize(join(dirname(page), path));
      t.ok(existsSync(join(root, target)), `${page}: ${link} -> ${target} exists`);
      if (anchor && target.endsWith('.md') && existsSync(join(root, target))) {
        t.ok(anchors(read(target)).has(anchor), `${page}: ${link}: #${anchor} is a heading of ${target}`);
      }
    }
  }
});

t.test('nothing lost: every heading of the former README is in the README or in docs/', async (t) => {
  const all = new Set(PAGES.flatMap((p) => headings(read(p))));
  for (const h of FORMER_HEADINGS) t.ok(all.has(h), h);
});

t.test('shellCommands: sh blocks only, continuations joined, heredocs kept whole, comments and blanks left out', async (t) => {
  const md = [
    'text', '```yaml', 'kubectl apply -f not-sh.yaml', '```', '```sh', '# a comment', 'kubectl apply -k a/',
    '', 'helm install x charts/x \\', '  --set a=b \\', '  --set c=d', "kubectl apply -f - <<'YAML'", 'kind: X', '# not a comment here', 'YAML',
    'kubectl get x', '```', 'kubectl apply -f outside.yaml',
  ].join('\n');
  t.same(shellCommands(md), ['kubectl apply -k a/', 'helm install x charts/x --set a=b --set c=d', "kubectl apply -f - <<'YAML'\nkind: X\n# not a comment here\nYAML", 'kubectl get x']);
  t.throws(() => markdownSection(md, 'Nope'), /no section/);
});

t.test('the quickstart as e2e scenario 30 runs it: each apply a server-side dry run, the chart pointed at your image', async (t) => {
  const runs = quickstartDryRuns(README);
  t.same(runs.map((r) => r.split('\n')[0]), [
    'helm template c5c3-hooks charts/c5c3-hooks --namespace c5c3-system --set image.repository=registry.example.com/c5c3-hooks --set image.tag=dev --set metacontroller.controllers.enabled=true | kubectl apply --dry-run=server -f -',
    "kubectl apply --dry-run=server -f - <<'YAML'",
    'kubectl apply --dry-run=server -f examples/controlplane-cloud.yaml',
  ]);
  const store = parse(runs[1]?.split('\n').slice(1, -1).join('\n') ?? '');
  t.match(store, { kind: 'ClusterSecretStore', metadata: { name: CLUSTER_SECRET_STORE }, spec: { provider: { vault: { path: 'secret', version: 'v2' } } } }, 'the store the hooks name, on KV v2 at secret/');
  const quickstart = markdownSection(README, QUICKSTART_HEADING);
  t.match(quickstart, /docker build -t registry\.example\.com\/c5c3-hooks:dev \./, 'builds the image it deploys');
  t.match(read('Dockerfile'), /^ARG NODE_IMAGE=node:24\.11\.1-trixie-slim$/m, 'the base the quickstart names is the pinned one');
  for (const version of ['v4.17.2', 'v0.16.2', '482412c0', 'v0.38.1', 'v0.4.0', 'v2.22.3']) t.match(quickstart, version);
  const setup = read('e2e/setup.sh');
  t.match(setup, /MC_VERSION="\$\{E2E_METACONTROLLER_VERSION:-4\.17\.2\}"/, 'the Metacontroller the e2e suite runs');
  t.match(setup, /ESO_VERSION="\$\{E2E_ESO_VERSION:-0\.16\.2\}"/, 'the ESO the e2e suite runs');
});

t.test('the quickstart fills exactly the OpenBao paths the hooks read for its ControlPlane', async (t) => {
  const quickstart = markdownSection(README, QUICKSTART_HEADING);
  const vars = /^p=(\S+); cp=(\S+)$/m.exec(quickstart);
  const loop = /^for svc in ([\w ]+); do$/m.exec(quickstart);
  t.ok(vars && loop, 'the namespace, the ControlPlane and the services loop');
  const [ns = '', cp = ''] = [vars?.[1], vars?.[2]];
  const example = parse(read('examples/controlplane-cloud.yaml'));
  t.same([ns, cp], [example.metadata.namespace, example.metadata.name], 'for examples/controlplane-cloud.yaml');
  const puts = new Set<string>();
  for (const m of quickstart.matchAll(/bao kv put secret\/(\S+)/g)) {
    const path = m[1] ?? '';
    for (const svc of path.includes('$svc') ? (loop?.[1] ?? '').split(' ') : ['']) puts.add(path.replaceAll('$svc', svc).replaceAll('$p', ns).replaceAll('$cp', cp));
  }
  const keys = remoteKeys(ns, cp);
  const read_ = [keys.adminPassword, keys.db, ...SERVICE_NAMES.map((s) => serviceRemoteKeys(ns, cp, s).db), serviceRemoteKeys(ns, cp, 'nova').dbOf('api')];
  t.same([...puts].sort(), [...new Set(read_)].sort(), 'every path the hooks read, none more');
  t.same(Object.keys(example.spec.services).sort(), ['keystone', ...SERVICE_NAMES].sort(), 'the example declares Keystone and every service beside it');
});
