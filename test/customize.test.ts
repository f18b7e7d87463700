import t from 'tap';
import { Value } from '@sinclair/typebox/value';
import { CustomizeHookResponse } from '../src/api/hooks.js';
import { fixtureControlPlane, type Obj } from './support/shared.js';
import { post, testServer } from './support/server.js';

const customizeRequest = (parent: Obj) => ({ controller: { kind: 'CompositeController' }, parent });

t.test('controlplane customize: full-managed example relates exactly the docs/architecture.md §2.12 objects', async (t) => {
  const { app } = await testServer();
  t.teardown(() => app.close());
  const cp = fixtureControlPlane('controlplane.yaml');
  const res = await post(app, '/controlplane/customize', customizeRequest(cp));
  t.equal(res.status, 200);
  t.ok(Value.Check(CustomizeHookResponse, res.json), 'response matches the customize response schema');
  t.same(res.json, {
    relatedResources: [
      {
        apiVersion: 'v1',
        resource: 'secrets',
        namespace: 'openstack',
        // managed mode: the per-ControlPlane admin password the ExternalSecret materialises
        names: ['controlplane-keystone-keystone-admin-credentials', 'k-orc-clouds-yaml'],
      },
      { apiVersion: 'external-secrets.io/v1', resource: 'clustersecretstores', names: ['openbao-cluster-store'] },
      { apiVersion: 'c5c3.io/v1alpha1', resource: 'controlplanes', namespace: 'openstack' },
      { apiVersion: 'c5c3.io/v1alpha1', resource: 'credentialrotations', namespace: 'openstack' },
      { apiVersion: 'k8s.mariadb.com/v1alpha1', resource: 'mariadbs', namespace: 'openstack', names: ['openstack-db'] },
      {
        apiVersion: 'memcached.c5c3.io/v1beta1',
        resource: 'memcacheds',
        namespace: 'openstack',
        names: ['openstack-memcached'],
      },
    ],
  });
});

t.test('controlplane customize: brownfield relates the user-declared password Secret and no infrastructure', async (t) => {
  const { app } = await testServer();
  t.teardown(() => app.close());
  const cp = fixtureControlPlane('controlplane.yaml');
  cp.spec.infrastructure = {
    database: { host: 'db.example.com', database: 'keystone', secretRef: { name: 'keystone-db' } },
    cache: { servers: ['mc-0:11211'], backend: 'dogpile.cache.pymemcache' },
  };
  cp.spec.korc.adminCredential.passwordSecretRef = { name: 'my-admin-password', key: 'pw' };
  const res = await post(app, '/controlplane/customize', customizeRequest(cp));
  t.equal(res.status, 200);
  const rules = res.json.relatedResources as Obj[];
  t.same(rules.find((r) => r.resource === 'secrets')?.names, ['my-admin-password', 'k-orc-clouds-yaml']);
  t.notOk(rules.some((r) => r.resource === 'mariadbs' || r.resource === 'memcacheds'), 'nothing to adopt');
  t.ok(rules.some((r) => r.resource === 'clustersecretstores'), 'the K-ORC chain still uses the store');
});

t.test('controlplane customize: the minimal example gets the webhook defaults', async (t) => {
  const { app } = await testServer();
  t.teardown(() => app.close());
  const cp = fixtureControlPlane('controlplane-minimal.yaml');
  const res = await post(app, '/controlplane/customize', customizeRequest(cp));
  t.equal(res.status, 200);
  const rules = res.json.relatedResources as Obj[];
  t.same(rules.find((r) => r.resource === 'secrets')?.names, [
    'controlplane-keystone-admin-credentials',
    'k-orc-clouds-yaml',
  ]);
  t.same(rules.find((r) => r.resource === 'mariadbs')?.names, ['openstack-db']);
  t.same(rules.find((r) => r.resource === 'memcacheds')?.names, ['openstack-memcached']);
});

t.test('controlplane customize: a custom clouds.yaml Secret name is related', async (t) => {
  const { app } = await testServer();
  t.teardown(() => app.close());
  const cp = fixtureControlPlane('controlplane.yaml');
  cp.spec.korc.adminCredential.cloudCredentialsRef.secretName = 'my-clouds';
  const res = await post(app, '/controlplane/customize', customizeRequest(cp));
  t.same(res.json.relatedResources[0].names, ['controlplane-keystone-keystone-admin-credentials', 'my-clouds']);
});

t.test('controlplane customize: an invalid spec still answers 200 with what it can name', async (t) => {
  const { app } = await testServer();
  t.teardown(() => app.close());
  for (const spec of [undefined, 'not an object', { korc: 5, infrastructure: { database: { clusterRef: { name: 'Bad_Name' } } } }]) {
    const cp = fixtureControlPlane('controlplane.yaml');
    cp.spec = spec;
    const res = await post(app, '/controlplane/customize', customizeRequest(cp));
    t.equal(res.status, 200, `spec ${JSON.stringify(spec)}`);
    t.ok(Value.Check(CustomizeHookResponse, res.json));
    const resources = (res.json.relatedResources as Obj[]).map((r) => r.resource);
    t.ok(resources.includes('controlplanes'), 'the duplicate guard still sees its peers');
    // A spec that is not an object reads as the empty spec with the defaults admission applies:
    // it names the default MariaDB and Memcached. An invalid name is never related.
    const names = (res.json.relatedResources as Obj[]).flatMap((r) => r.names ?? []);
    t.ok(names.every((n: string) => /^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/.test(n)), `only valid object names: ${names.join(', ')}`);
    if (typeof spec === 'object') t.notOk(resources.includes('mariadbs'), 'the invalid clusterRef name is not related');
  }
});

t.test('credentialrotation customize: ControlPlanes and labelled admin ACs of its namespace, no Secret', async (t) => {
  const { app } = await testServer();
  t.teardown(() => app.close());
  const cr = {
    apiVersion: 'c5c3.io/v1alpha1',
    kind: 'CredentialRotation',
    metadata: { name: 'rotate', namespace: 'tenant-a', uid: 'u', generation: 1 },
    spec: { target: 'adminApplicationCredential', reMint: true },
  };
  const res = await post(app, '/credentialrotation/customize', customizeRequest(cr));
  t.equal(res.status, 200);
  t.ok(Value.Check(CustomizeHookResponse, res.json));
  t.same(res.json, {
    relatedResources: [
      { apiVersion: 'c5c3.io/v1alpha1', resource: 'controlplanes', namespace: 'tenant-a' },
      {
        apiVersion: 'openstack.k-orc.cloud/v1alpha1',
        resource: 'applicationcredentials',
        namespace: 'tenant-a',
        labelSelector: { matchLabels: { 'c5c3.io/credential': 'admin-application-credential' } },
      },
    ],
  });
});

t.test('customize routes refuse a parent of the wrong kind', async (t) => {
  const { app } = await testServer();
  t.teardown(() => app.close());
  const cp = fixtureControlPlane('controlplane.yaml');
  const res = await post(app, '/credentialrotation/customize', customizeRequest(cp));
  t.equal(res.status, 400);
  t.match(res.json.message, /body\.parent\.kind/);
});
