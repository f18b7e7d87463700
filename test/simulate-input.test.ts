// `npm run simulate` refuses what `kubectl apply` refuses (issue 55): a YAML syntax error by its
// line and column, a field the CRD's structural schema does not know by its path, exit code 2 and
// nothing simulated. The CLI runs as a user runs it, on files written here.
import t from 'tap';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { REPO_ROOT } from './support/shared.js';
import { unknownFields } from '../src/crd/unknown-fields.js';
import { controlPlaneCRD } from '../src/crd/generate.js';

// The CLI compiled beside this test (.build/src/cli), so it is the code under test.
const CLI = join(dirname(fileURLToPath(import.meta.url)), '..', 'src', 'cli', 'simulate.js');
const EXAMPLE = readFileSync(join(REPO_ROOT, 'examples', 'controlplane.yaml'), 'utf8');
const dir = mkdtempSync(join(tmpdir(), 'simulate-input-'));
t.teardown(() => rmSync(dir, { recursive: true, force: true }));

function simulate(name: string, text: string) {
  const file = join(dir, name);
  writeFileSync(file, text);
  const run = spawnSync(process.execPath, [CLI, file, '--max-rounds', '1'], { encoding: 'utf8', cwd: REPO_ROOT });
  return { file, status: run.status, stdout: run.stdout, stderr: run.stderr };
}

t.test('a YAML syntax error is refused with its line, exit 2', async (t) => {
  const text = EXAMPLE.replace(/^metadata:\n/m, 'metadata: {name: broken\n');
  const line = text.split('\n').findIndex((l) => l.startsWith('metadata: {')) + 2;
  const run = simulate('unclosed.yaml', text);
  t.equal(run.status, 2);
  t.match(run.stderr, new RegExp(`${run.file}:${line}:\\d+: YAML syntax error`));
  t.equal(run.stdout, '', 'nothing simulated');
});

t.test('an unknown field is refused with its path, exit 2', async (t) => {
  const text = EXAMPLE.replace(/^(\s+)replicas: 3$/m, '$1replcas: 3');
  t.not(text, EXAMPLE);
  const run = simulate('replcas.yaml', text);
  t.equal(run.status, 2);
  t.match(run.stderr, /unknown field "spec\.[a-z.]+\.replcas"/);
  t.equal(run.stdout, '', 'nothing simulated');
});

t.test('every unknown field is reported, as the API server prunes them', async (t) => {
  const schema = controlPlaneCRD().spec.versions[0]!.schema.openAPIV3Schema as Record<string, unknown>;
  const cp = {
    apiVersion: 'c5c3.io/v1alpha1',
    kind: 'ControlPlane',
    metadata: { name: 'x', labels: { a: 'b' }, lables: {} },
    spec: {
      openStackRelease: '2025.2',
      region: 'RegionOne',
      regoin: 'x',
      services: { keystone: { replcas: 3, policyOverrides: { rules: { 'identity:get': 'role:admin' } } } },
      korc: { adminCredential: { applicationCredential: { accessRules: [{ service: 'identity', method: 'GET', path: '/v3', extra: 1 }] } } },
    },
  };
  t.same(unknownFields(schema, cp).sort(), ['metadata.lables', 'spec.korc.adminCredential.applicationCredential.accessRules[0].extra', 'spec.regoin', 'spec.services.keystone.replcas']);
  t.same(unknownFields(schema, { apiVersion: 'c5c3.io/v1alpha1', kind: 'ControlPlane', metadata: { name: 'x' }, spec: {} }), []);
});

t.test('the examples have no unknown field', async (t) => {
  const { readControlPlaneInput } = await import('../src/sim/input.js');
  for (const f of ['controlplane.yaml', 'controlplane-minimal.yaml', 'controlplane-backup.yaml', 'controlplane-cloud.yaml', 'controlplane-services.yaml']) {
    const reading = readControlPlaneInput(readFileSync(join(REPO_ROOT, 'examples', f), 'utf8'), f);
    t.same(reading.ok ? [] : reading.problems, [], f);
  }
});
