// `npm run simulate`: the built CLI on the examples of examples/, its exit codes and its timeline.
import t from 'tap';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { REPO_ROOT } from '../support/shared.js';

const CLI = join(REPO_ROOT, 'dist', 'cli', 'simulate.js');
const example = (file: string) => join(REPO_ROOT, 'examples', file);
const run = (...args: string[]) => spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8', timeout: 60_000 });

t.test('a managed example goes from nothing to Ready and through every scenario', async (t) => {
  const r = run(example('controlplane.yaml'), '--scenario', 'duplicate,all');
  t.equal(r.status, 0, r.stderr);
  for (const phase of ['converge', 'duplicate', 'rotate-password', 'remint', 'outage', 'recover', 'aggregate', 'remove-source-key', 'conflict', 'delete-aggregate', 'delete']) {
    t.match(r.stdout, new RegExp(`\\n  ${phase}: OK after \\d+ round`), `${phase} reported OK`);
  }
  t.match(r.stdout, /KeystoneReady=True KeystoneReady/, 'the timeline shows conditions');
  t.match(r.stdout, /metacontroller created MariaDB\/openstack-db/, 'and what Metacontroller did');
  t.match(r.stdout, /k-orc: revoked application credential ac-1/, 'and what the operators did');
  t.match(r.stdout, /SecretAggregate controlplane-keystone-credentials\s+Ready=False WaitingForSource: Waiting for the sources: Secret controlplane-keystone-messaging has no key transport_url/, 'the aggregate waits for its source');
  t.notMatch(r.stdout, /Passw0rd|sim-mq-password/, 'no password in the timeline');
});

t.test('the services example (Placement, Glance with an S3 store, a managed bus) converges and is torn down in order', async (t) => {
  const r = run(example('controlplane-services.yaml'), '--scenario', 'all');
  t.equal(r.status, 0, r.stderr);
  for (const phase of ['converge', 'rotate-password', 'remint', 'outage', 'recover', 'rotate-service-password', 'delete']) {
    t.match(r.stdout, new RegExp(`\\n  ${phase}: OK after \\d+ round`), `${phase} reported OK`);
  }
  t.match(r.stdout, /metacontroller created [^\n]*RabbitmqCluster\/controlplane-services-rabbitmq/);
  t.match(r.stdout, /k-orc: created service user placement/);
  // The phase rotates the first declared service in upstream's order (SERVICES): Glance.
  t.match(r.stdout, /k-orc: updated the password of user glance/, 'the service-user password rotated');
  t.match(r.stdout, /metacontroller created [^\n]*Placement\/controlplane-services-placement/);
  t.match(r.stdout, /metacontroller created [^\n]*GlanceBackend\/controlplane-services-glance-s3/);
  t.match(r.stdout, /deleting the service CRs before Keystone and the infrastructure/);
  t.notMatch(r.stdout, /Passw0rd|sim-db-password/, 'no password in the timeline');
});

t.test('a run that does not converge exits 1 and says which phase', async (t) => {
  const r = run(example('controlplane-minimal.yaml'), '--max-rounds', '3');
  t.equal(r.status, 1);
  t.match(r.stdout, /converge: FAILED: did not reach its goal within 3 rounds/);
});

t.test('usage and admission errors exit 2 with a message', async (t) => {
  const bad = join(mkdtempSync(join(tmpdir(), 'c5c3-sim-')), 'bad.yaml');
  writeFileSync(bad, 'apiVersion: c5c3.io/v1alpha1\nkind: ControlPlane\nmetadata: {name: x}\nspec: {openStackRelease: 2025.2, region: 7}\n');
  const cases: [string[], RegExp][] = [
    [[bad], /the API server would refuse ControlPlane x: spec/],
    [[], /exactly one ControlPlane file/],
    [['/nonexistent.yaml'], /cannot read \/nonexistent.yaml: ENOENT/],
    [[example('controlplane-minimal.yaml'), '-s', 'explode'], /unknown scenario "explode"/],
    [[example('controlplane-minimal.yaml'), '-s', 'delete,remint'], /delete ends a run/],
    [[example('credentialrotation.yaml')], /holds no ControlPlane/],
  ];
  for (const [args, message] of cases) {
    const r = run(...args);
    t.equal(r.status, 2, args.join(' '));
    t.match(r.stderr, message);
  }
});
