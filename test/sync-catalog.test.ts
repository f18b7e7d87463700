// Stage 7, CatalogReady: the identity Service and public Endpoint, the URL rule (docs/architecture.md §2.3),
// the generation gate after an edit (docs/architecture.md §2.7) and a terminal K-ORC error.
import t from 'tap';
import { testServer } from './support/server.js';
import { applyResponse, clusterSecretStore, healthy, orcStatus, type StatusOf } from './support/world.js';
import { converge, conditionOf, managedCP, stageInput, sync } from './support/sync.js';
import { find, names, withChild } from './support/korc.js';
import { catalogStage } from '../src/controlplane/stages/catalog.js';
import type { Obj } from './support/shared.js';

const N = names();

t.test('CatalogRegistered: the identity Service keystone and its public Endpoint, both Available', async (t) => {
  const { app } = await testServer();
  t.teardown(() => app.close());
  const world = await converge(app, managedCP());
  const ref = { cloudName: 'admin', secretName: 'k-orc-clouds-yaml' };
  t.same(find(world.response.children, 'Service')!.spec, { cloudCredentialsRef: ref, managementPolicy: 'managed', resource: { name: 'keystone', type: 'identity', enabled: true } });
  t.same(find(world.response.children, 'Endpoint')!.spec, {
    cloudCredentialsRef: ref,
    managementPolicy: 'managed',
    resource: { interface: 'public', url: 'http://controlplane-keystone-keystone.openstack.svc:5000/v3', serviceRef: N.service, regionRef: 'controlplane-keystone-region', enabled: true },
  });
  t.match(conditionOf(world.response.status, 'CatalogReady'), { status: 'True', reason: 'CatalogRegistered', message: 'Identity Service controlplane-keystone-identity-service and Endpoint controlplane-keystone-identity-region-ep-public registered in region RegionOne (Region controlplane-keystone-region) and Available' });
});

t.test('the Endpoint URL: publicEndpoint, else the gateway, else in-cluster Keystone', async (t) => {
  const { app } = await testServer();
  t.teardown(() => app.close());
  const urlOf = async (keystone: Obj) => {
    const cp = managedCP();
    cp.spec.services.keystone = keystone;
    const world = await converge(app, cp);
    return find(world.response.children, 'Endpoint')!.spec.resource.url;
  };
  const gateway = { parentRef: { name: 'gw' }, hostname: 'id.example.com' };
  t.equal(await urlOf({ publicEndpoint: 'https://keystone.example.com/v3', gateway }), 'https://keystone.example.com/v3');
  t.equal(await urlOf({ gateway }), 'https://id.example.com/v3');
  t.equal(await urlOf({}), 'http://controlplane-keystone-keystone.openstack.svc:5000/v3');
});

t.test('after an edit: WaitingForCatalog until K-ORC is Available for the new generation', async (t) => {
  const { app } = await testServer();
  t.teardown(() => app.close());
  const world = await converge(app, managedCP());
  const edited = structuredClone(world.parent);
  edited.metadata.generation = 2;
  edited.spec.services.keystone.publicEndpoint = 'https://keystone.example.com/v3';
  // Keystone's spec changes too (bootstrap.publicEndpoint): honest readiness stops the chain there
  // until Keystone carries it, and the catalog objects stay as they were.
  const first = await sync(app, edited, world.children, world.related);
  t.match(conditionOf(first.status, 'KeystoneReady'), { status: 'False', reason: 'WaitingForKeystone', message: /does not carry the desired spec yet/ });
  t.equal(find(first.children, 'Endpoint')!.spec.resource.url, find(world.children, 'Endpoint')!.spec.resource.url, 'not reached: kept as last applied');
  const keystoneApplied = applyResponse(first.children, edited, healthy, world.children);
  const res = await sync(app, edited, keystoneApplied, world.related);
  t.match(conditionOf(res.status, 'CatalogReady'), { status: 'False', reason: 'WaitingForCatalog', message: /Endpoint controlplane-keystone-identity-region-ep-public does not carry the desired spec yet/ });
  t.equal(find(res.children, 'Endpoint')!.spec.resource.url, 'https://keystone.example.com/v3');
  // Applied: the Endpoint's generation moved, K-ORC has not caught up (its conditions are stale).
  const staleStatus: StatusOf = (c, g) => (c.kind === 'Endpoint' ? orcStatus(g - 1) : healthy(c, g));
  const applied = applyResponse(res.children, edited, staleStatus, keystoneApplied);
  t.equal(find(applied, 'Endpoint')!.metadata.generation, 2);
  const stale = await sync(app, edited, applied, world.related);
  t.match(conditionOf(stale.status, 'CatalogReady'), { status: 'False', reason: 'WaitingForCatalog', message: /not yet Available for its current generation/ });
  t.equal(stale.resyncAfterSeconds, 10);
  const caughtUp = withChild(applied, 'Endpoint', (c) => ({ ...c, status: orcStatus(2) }));
  const done = await sync(app, edited, caughtUp, world.related);
  t.match(conditionOf(done.status, 'CatalogReady'), { status: 'True', reason: 'CatalogRegistered' });
  // K-ORC-defaulted fields on the live object do not count as a difference.
  const defaulted = withChild(caughtUp, 'Service', (c) => ({ ...c, spec: { ...c.spec, resource: { ...c.spec.resource, description: 'set by someone' } } }));
  t.match(conditionOf((await sync(app, edited, defaulted, world.related)).status, 'CatalogReady'), { status: 'True' });
});

t.test('CatalogFailed on a terminal K-ORC error; WaitingForCatalog while not Available', async (t) => {
  const { app } = await testServer();
  t.teardown(() => app.close());
  const world = await converge(app, managedCP());
  const failedEndpoint = withChild(world.children, 'Endpoint', (c) => ({ ...c, status: orcStatus(1, { available: false, reason: 'UnrecoverableError', message: 'resource has been deleted from OpenStack' }) }));
  const res = await sync(app, world.parent, failedEndpoint, world.related);
  t.match(conditionOf(res.status, 'CatalogReady'), { status: 'False', reason: 'CatalogFailed', message: /Endpoint controlplane-keystone-identity-region-ep-public failed \(UnrecoverableError: resource has been deleted from OpenStack\)/ });
  t.equal(res.resyncAfterSeconds, 10);
  t.ok(find(res.children, 'Endpoint'), 'kept');
  const pending = withChild(world.children, 'Service', (c) => ({ ...c, status: orcStatus(1, { available: false, message: 'Waiting for OpenStack resource to be created' }) }));
  t.match(conditionOf((await sync(app, world.parent, pending, world.related)).status, 'CatalogReady'), { reason: 'WaitingForCatalog', message: /Service controlplane-keystone-identity-service is not yet Available/ });
  const missing = world.children.filter((c) => c.kind !== 'Endpoint');
  const recreated = await sync(app, world.parent, missing, world.related);
  t.match(conditionOf(recreated.status, 'CatalogReady'), { reason: 'WaitingForCatalog', message: /Endpoint controlplane-keystone-identity-region-ep-public is being created/ });
  t.ok(find(recreated.children, 'Endpoint'), 'an Endpoint deleted by someone is recreated');
});

t.test('WaitingForAdminCredential: the gate (a row a full pass cannot reach)', async (t) => {
  const result = catalogStage.run(stageInput(managedCP(), [], [clusterSecretStore()]));
  t.match(result.condition, { status: 'False', reason: 'WaitingForAdminCredential' });
  t.same(result.outcome, { kind: 'waiting', requeueSeconds: 10 });
  t.same(result.children, [], 'no catalog entry before the admin credential is ready');
});
