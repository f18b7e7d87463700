// Every status a hook writes fits its CRD (src/status-limits.ts, docs/architecture.md §1.4): a
// child's condition message may be as long as its own CRD admits (32,768 characters), and with
// the service's words around it InfrastructureReady's message was 32,816, which the API server
// refuses, and with it the whole status (issue 41, finding 4). The statuses are validated against
// the committed CRDs (manifests/crds/), as the API server would.
import t from 'tap';
import { post, testServer } from './support/server.js';
import { converge, conditionOf, managedCP } from './support/sync.js';
import { healthy, orcStatus, readyCondition, secret, syncRequest, type StatusOf } from './support/world.js';
import { withChild } from './support/korc.js';
import { statusAdmission } from './support/crd.js';
import { cutToLength, ELLIPSIS } from '../src/status-limits.js';

const controlPlaneStatus = statusAdmission('controlplanes.c5c3.io.yaml');
const secretAggregateStatus = statusAdmission('secretaggregates.c5c3.io.yaml');
const credentialRotationStatus = statusAdmission('credentialrotations.c5c3.io.yaml');
const points = (s: string) => [...s].length;
const LIMIT = 32768;

t.test('cutToLength: code points, as the API server counts, never half a surrogate pair', async (t) => {
  t.equal(cutToLength('abcdefg', 5), `abcd${ELLIPSIS}`);
  t.equal(cutToLength('abcde', 5), 'abcde', 'at the limit: as it is');
  const astral = '😀'.repeat(10);
  t.equal(cutToLength(astral, 10), astral, '10 astral characters are 10 code points (20 UTF-16 units): as they are');
  const cut = cutToLength(astral + 'x', 10);
  t.equal(points(cut), 10);
  t.equal(cut, '😀'.repeat(9) + ELLIPSIS, 'cut between pairs');
});

t.test('a child message of the longest length its CRD admits: the status still fits ours (sync)', async (t) => {
  const { app } = await testServer();
  t.teardown(() => app.close());
  for (const [what, text] of [['ASCII', 'x'.repeat(LIMIT)], ['astral characters', '😀'.repeat(LIMIT)]] as const) {
    const long: StatusOf = (c, g) => (c.kind === 'MariaDB' || c.kind === 'Memcached' ? { conditions: [{ ...readyCondition(false), message: text }] } : healthy(c, g));
    const world = await converge(app, managedCP(), undefined, long);
    const infra = conditionOf(world.response.status, 'InfrastructureReady');
    t.equal(infra.reason, 'WaitingForDatabase', `${what}: the stage says why`);
    t.equal(points(infra.message), LIMIT, `${what}: the message is cut to the ${LIMIT} characters the CRD admits`);
    t.ok(infra.message.endsWith(ELLIPSIS), `${what}: and says it was cut`);
    t.notOk(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/.test(infra.message), `${what}: no lone surrogate`);
    t.same(controlPlaneStatus(world.response.status), [], `${what}: the whole status validates against the ControlPlane CRD`);
  }
});

t.test('finalize: a K-ORC message of the longest length is cut too', async (t) => {
  const { app } = await testServer();
  t.teardown(() => app.close());
  const world = await converge(app, managedCP());
  const parent = { ...world.parent, metadata: { ...world.parent.metadata, deletionTimestamp: '2026-11-21T11:59:00Z' } };
  const children = withChild(world.children, 'Endpoint', (c) => ({ ...c, status: orcStatus(c.metadata.generation, { available: false, reason: 'InvalidConfiguration', message: 'y'.repeat(LIMIT) }) }));
  const res = await post(app, '/controlplane/finalize', syncRequest(parent, children, world.related, true));
  t.equal(res.status, 200);
  t.equal(points(conditionOf(res.json.status, 'KORCReady').message), LIMIT);
  t.same(controlPlaneStatus(res.json.status), [], 'validates against the ControlPlane CRD');
});

t.test('SecretAggregate and CredentialRotation statuses fit their CRDs whatever the spec says (a spec that bypassed admission)', async (t) => {
  const { app } = await testServer();
  t.teardown(() => app.close());
  const huge = 'n'.repeat(100_000);
  const sa = { apiVersion: 'c5c3.io/v1alpha1', kind: 'SecretAggregate', metadata: { name: 'agg', namespace: 'ns', uid: 'u', generation: 1 }, spec: { sources: Array.from({ length: 12 }, (_, i) => ({ secretRef: { name: `${huge}${i}` } })), target: { name: huge } } };
  const agg = await post(app, '/secretaggregate/sync', { controller: {}, parent: sa, children: {}, related: { 'Secret.v1': { 'ns/a': secret('ns', 'a', { k: 'v' }) } } });
  t.equal(agg.status, 200);
  t.same(secretAggregateStatus(agg.json.status), [], `SecretAggregate (${points(conditionOf(agg.json.status, 'Ready').message)} characters): validates`);
  const cr = { apiVersion: 'c5c3.io/v1alpha1', kind: 'CredentialRotation', metadata: { name: 'cr', namespace: 'ns', uid: 'u', generation: 1 }, spec: { target: 'serviceUserPassword', targetServiceUser: huge, reMint: true } };
  const rot = await post(app, '/credentialrotation/sync', { controller: {}, object: cr, attachments: {}, related: {} });
  t.equal(rot.status, 200);
  t.same(credentialRotationStatus(rot.json.status), [], `CredentialRotation (${points(conditionOf(rot.json.status, 'Ready').message)} characters): validates`);
});
