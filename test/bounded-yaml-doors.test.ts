// YAML from a request, through every door that parses it (issue 41 item 1.2, docs/architecture.md
// §1.4): the cloud-credentials Secret K-ORC reads (the AdminCredential stage, the scheduled
// rotation's check, the round trip's compare) and any Secret value the redaction reads, in every
// hook. A document nested 5,000 deep, or with thousands of aliases, is a False condition naming the
// Secret and the key, never a crash or a stall, and no observed child is dropped.
import t from 'tap';
import { testServer, post } from './support/server.js';
import { objectMap, secret, syncRequest } from './support/world.js';
import { converge, conditionOf, ids, managedCP, sync } from './support/sync.js';
import { GVK } from '../src/k8s/kinds.js';
import type { Obj } from './support/shared.js';
import { HOSTILE_YAML } from './support/hostile-yaml.js';

const NS = 'openstack';
const WHY: Record<string, RegExp> = {
  'flow nesting 5,000': /nests deeper than 128 levels/,
  'block nesting 5,000': /nests deeper than 128 levels/,
  'aliases 8,000': /has more than 32 aliases/,
  'aliases 16,000': /has more than 32 aliases/,
};

t.test('ControlPlane sync: a hostile clouds.yaml in the cloud-credentials Secret is a False condition naming the Secret and key', async (t) => {
  const { app } = await testServer();
  t.teardown(() => app.close());
  const world = await converge(app, managedCP());
  t.equal(conditionOf(world.response.status, 'AdminCredentialReady').status, 'True', 'converged first');
  for (const [name, doc] of Object.entries(HOSTILE_YAML)) {
    const related = [...world.related.filter((r) => r.metadata.name !== 'k-orc-clouds-yaml'), secret(NS, 'k-orc-clouds-yaml', { 'clouds.yaml': doc })];
    const res = await sync(app, world.parent, world.children, related);
    t.match(
      conditionOf(res.status, 'AdminCredentialReady'),
      { status: 'False', reason: 'WaitingForCloudsYamlSync', message: /Secret k-orc-clouds-yaml: key clouds\.yaml is not a clouds\.yaml document yet/ },
      `${name}: names the Secret and the key`,
    );
    t.match(conditionOf(res.status, 'AdminCredentialReady').message, WHY[name]!, `${name}: says why`);
    t.same(ids(res.children), ids(world.response.children), `${name}: every child kept`);
  }
});

t.test('SecretAggregate and ControlPlane finalize: a hostile value in any Secret is carried, not parsed to death', async (t) => {
  const { app } = await testServer();
  t.teardown(() => app.close());
  for (const [name, doc] of Object.entries(HOSTILE_YAML)) {
    const parent = {
      apiVersion: 'c5c3.io/v1alpha1', kind: 'SecretAggregate',
      metadata: { name: 'agg', namespace: NS, uid: 'uid-agg', generation: 1 },
      spec: { sources: [{ secretRef: { name: 'src' } }], target: { name: 'target' } },
    };
    const res = await post(app, '/secretaggregate/sync', { controller: {}, parent, children: objectMap([], [GVK.Secret]), related: objectMap([secret(NS, 'src', { 'clouds.yaml': doc })], [GVK.Secret]) });
    t.equal(res.status, 200, `${name}: SecretAggregate answered`);
    const answer = res.json as { status: Obj; children: Obj[] };
    t.equal(answer.children.length, 1, `${name}: the target is published`);
    t.equal(Buffer.from(answer.children[0]!.data['clouds.yaml'], 'base64').toString('utf8'), doc, `${name}: carrying the value as it is`);
  }
  const world = await converge(app, managedCP());
  for (const [name, doc] of Object.entries(HOSTILE_YAML)) {
    const related = [...world.related.filter((r) => r.metadata.name !== 'k-orc-clouds-yaml'), secret(NS, 'k-orc-clouds-yaml', { 'clouds.yaml': doc })];
    const parent = { ...world.parent, metadata: { ...world.parent.metadata, deletionTimestamp: '2026-11-21T12:00:00Z' } };
    const res = await post(app, '/controlplane/finalize', syncRequest(parent, world.children, related, true));
    t.equal(res.status, 200, `${name}: finalize answered`);
  }
});
