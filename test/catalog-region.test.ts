// The catalog in its region (catalog-region.ts, docs/architecture.md §2.7): every row an Endpoint
// naming a Region of spec.region; the hand-over from the region-less rows of earlier releases and
// from another region, with no moment without a row; the Region's own gates and failures.
import t from 'tap';
import { testServer } from './support/server.js';
import { applied, applyResponse, healthy, orcStatus, type StatusOf } from './support/world.js';
import { converge, conditionOf, managedCP, step, sync, type World } from './support/sync.js';
import { find } from './support/korc.js';
import { fixtureControlPlane, type Obj } from './support/shared.js';
import { childNames, serviceChildNames } from '../src/controlplane/names.js';

const CP = 'controlplane-keystone';
const N = childNames(CP);
const ref = { cloudName: 'admin', secretName: 'k-orc-clouds-yaml' };
const cloud = () => fixtureControlPlane('controlplane-services.yaml');
const names = (children: Obj[], kind: string) => children.filter((c) => c.kind === kind).map((c) => c.metadata.name).sort();

/** The region-less Endpoint an earlier release registered for `name`, as applied and Available (id `legacy-<name>` unless given). */
function legacyEndpoint(parent: Obj, name: string, resource: Obj, id = `legacy-${name}`): Obj {
  const desired = { apiVersion: 'openstack.k-orc.cloud/v1alpha1', kind: 'Endpoint', metadata: { name, namespace: parent.metadata.namespace }, spec: { cloudCredentialsRef: ref, managementPolicy: 'managed', resource } };
  return applied(desired, parent, orcStatus(1, { id }));
}

/** A converged world as an earlier release left it: no Region, each regioned Endpoint replaced by the region-less one of the same row. */
function regionless(world: World): Obj[] {
  const out: Obj[] = [];
  for (const c of world.children) {
    if (c.kind === 'Region') continue;
    if (c.kind !== 'Endpoint') {
      out.push(c);
      continue;
    }
    const { regionRef: _, ...resource } = c.spec.resource;
    const n = childNames(world.parent.metadata.name);
    const legacyName = c.metadata.name === n.identityRegionEndpoint ? n.identityEndpoint : c.metadata.name.replace(/-region-ep-/, '-endpoint-');
    out.push(legacyEndpoint(world.parent, legacyName, resource));
  }
  return out;
}

t.test('a fresh ControlPlane: every row names a Region of spec.region, the identity one the managed Region adopting the bootstrap region', async (t) => {
  const { app } = await testServer();
  t.teardown(() => app.close());
  const parent = cloud();
  const world = await converge(app, parent, undefined, undefined, undefined, [], 30);
  const cp = parent.metadata.name;
  const n = childNames(cp);
  const children = world.response.children;
  t.same(find(children, 'Region', n.region)!.spec, { cloudCredentialsRef: ref, managementPolicy: 'managed', managedOptions: { onDelete: 'detach' }, resource: { name: 'RegionOne' } }, 'no description: none is declared');
  t.same(find(children, 'Endpoint', n.identityRegionEndpoint)!.spec.resource.regionRef, n.region);
  for (const svc of ['placement', 'glance']) {
    const s = serviceChildNames(cp, svc);
    t.same(find(children, 'Region', s.regionOf('a'))!.spec, { cloudCredentialsRef: ref, managementPolicy: 'unmanaged', import: { filter: { name: 'RegionOne' } } }, `${svc}: an import of spec.region of its own`);
    for (const iface of ['public', 'internal']) t.equal(find(children, 'Endpoint', s.regionEndpointOf('a', iface))!.spec.resource.regionRef, s.regionOf('a'), `${svc} ${iface}`);
  }
  // Every Endpoint names a Region, and no region-less name is left.
  t.same(children.filter((c) => c.kind === 'Endpoint' && !c.spec.resource.regionRef).map((c) => c.metadata.name), []);
  t.notOk(find(children, 'Endpoint', n.identityEndpoint));
  t.match(conditionOf(world.response.status, 'CatalogReady'), { status: 'True', reason: 'CatalogRegistered', message: /registered in region RegionOne \(Region controlplane-services-region\)/ });
  t.match(conditionOf(world.response.status, 'PlacementReady'), { status: 'True', message: /registered in the catalog in region RegionOne/ });
});

t.test("spec.regionDescription is set on the managed Region only once K-ORC reports the region's id", async (t) => {
  const { app } = await testServer();
  t.teardown(() => app.close());
  const parent = managedCP();
  parent.spec.regionDescription = 'Frankfurt, hall 2';
  // K-ORC has not adopted the region yet: Available false, no id.
  const noId: StatusOf = (c, g) => (c.kind === 'Region' ? orcStatus(g, { available: false }) : healthy(c, g));
  const waiting = await converge(app, parent, undefined, noId);
  t.same(find(waiting.response.children, 'Region')!.spec.resource, { name: 'RegionOne' }, 'without an id: adopted by name alone (a description would fail adoption)');
  t.match(conditionOf(waiting.response.status, 'CatalogReady'), { status: 'False', reason: 'WaitingForCatalog', message: /Region controlplane-keystone-region is not yet Available/ });
  const adopted = await converge(app, parent);
  t.same(find(adopted.response.children, 'Region')!.spec.resource, { name: 'RegionOne', description: 'Frankfurt, hall 2' }, 'with an id: described');
  t.match(conditionOf(adopted.response.status, 'CatalogReady'), { status: 'True' });
});

t.test('a terminal error on a Region: RegionFailed on CatalogReady; ServiceRegionFailed on the service, whose CR waits', async (t) => {
  const { app } = await testServer();
  t.teardown(() => app.close());
  const failing = (kindName: string): StatusOf => (c, g) => (c.metadata.name === kindName ? orcStatus(g, { available: false, reason: 'InvalidConfiguration', message: 'invalid configuration creating resource: Conflict' }) : healthy(c, g));
  const identity = await converge(app, managedCP(), undefined, failing(N.region));
  t.match(conditionOf(identity.response.status, 'CatalogReady'), { status: 'False', reason: 'RegionFailed', message: /Region controlplane-keystone-region failed \(InvalidConfiguration: invalid configuration creating resource: Conflict\): the identity row cannot be registered in RegionOne/ });
  const parent = cloud();
  const placementRegion = serviceChildNames(parent.metadata.name, 'placement').regionOf('a');
  const world = await converge(app, parent, undefined, failing(placementRegion), undefined, [], 30);
  t.match(conditionOf(world.response.status, 'PlacementReady'), { status: 'False', reason: 'ServiceRegionFailed', message: /Region controlplane-services-placement-region failed .*: the Placement rows cannot be registered in RegionOne, and its CR is created once they can/ });
  t.notOk(find(world.response.children, 'Placement'), 'no CR while its rows cannot be registered');
  t.ok(find(world.response.children, 'Glance'), 'the other service goes on');
});

t.test('the CR of a service waits for its Region import: every client section of it names spec.region', async (t) => {
  const { app } = await testServer();
  t.teardown(() => app.close());
  const parent = cloud();
  const s = serviceChildNames(parent.metadata.name, 'glance');
  const noRegion: StatusOf = (c, g) => (c.metadata.name === s.regionOf('a') ? orcStatus(g, { available: false, message: 'Waiting for OpenStack resource to be created externally' }) : healthy(c, g));
  const world = await converge(app, parent, undefined, noRegion, undefined, [], 30);
  t.notOk(find(world.response.children, 'Glance'));
  t.match(conditionOf(world.response.status, 'GlanceReady'), { status: 'False', reason: 'WaitingForServiceCatalog', message: /^Region controlplane-services-glance-region is not yet Available: Waiting for OpenStack resource to be created externally; Endpoint controlplane-services-glance-region-ep-public is created once Region controlplane-services-glance-region is Available; .* \(the Glance CR is created once its Region is Available/ });
});

t.test('a ControlPlane converged under the region-less contract moves every row into its region, never without one', async (t) => {
  const { app } = await testServer();
  t.teardown(() => app.close());
  const parent = cloud();
  const cp = parent.metadata.name;
  const n = childNames(cp);
  const converged = await converge(app, parent, undefined, undefined, undefined, [], 30);
  const old = regionless(converged);
  const legacyNames = names(old, 'Endpoint');
  t.same(legacyNames, [n.identityEndpoint, ...['glance', 'placement'].flatMap((svc) => [serviceChildNames(cp, svc).internalEndpoint, serviceChildNames(cp, svc).publicEndpoint])].sort());
  const acBefore = find(old, 'ApplicationCredential')!;

  // The new rows are created; the old ones stay while the new are not Available.
  const notYet: StatusOf = (c, g) => (c.kind === 'Region' || (c.kind === 'Endpoint' && c.spec.resource.regionRef) ? orcStatus(g, { available: false }) : healthy(c, g));
  let world: World = { parent: converged.parent, children: old, related: converged.related, response: converged.response };
  for (let pass = 0; pass < 4; pass++) {
    world = await step(app, world, notYet);
    for (const name of legacyNames) t.ok(find(world.response.children, 'Endpoint', name), `pass ${pass}: ${name} kept while its replacement is not Available`);
  }
  t.match(conditionOf(world.response.status, 'CatalogReady'), { status: 'False', reason: 'WaitingForCatalog', message: /Endpoint controlplane-services-identity-endpoint \(registered in another region or in none\) stay until every row in RegionOne is Available/ });

  // Then K-ORC catches up: on every pass each service type keeps an Available row of each of its
  // interfaces (the identity catalog moves first, the services once CatalogReady is True again).
  const rowsOf = (children: Obj[]) => {
    const byRow = new Map<string, number>();
    for (const e of children.filter((c) => c.kind === 'Endpoint' && !c.metadata.deletionTimestamp && c.status?.conditions?.some((x: Obj) => x.type === 'Available' && x.status === 'True'))) {
      const key = `${e.spec.resource.serviceRef} ${e.spec.resource.interface}`;
      byRow.set(key, (byRow.get(key) ?? 0) + 1);
    }
    return byRow;
  };
  const expectedRows = [...rowsOf(old).keys()].sort();
  t.equal(expectedRows.length, 5, 'identity public, and placement and image public and internal');
  let passes = 0;
  for (; passes < 12 && conditionOf(world.response.status, 'Ready').status !== 'True'; passes++) {
    world = await step(app, world);
    const rows = rowsOf(world.children);
    t.same([...rows.keys()].sort(), expectedRows, `pass ${passes}: every row has an Available Endpoint`);
  }
  t.match(conditionOf(world.response.status, 'Ready'), { status: 'True' }, `Ready after ${passes} passes`);
  t.same(names(world.children, 'Endpoint').filter((name) => legacyNames.includes(name)), [], 'every region-less Endpoint gone');
  t.same(world.children.filter((c) => c.kind === 'Endpoint' && !c.spec.resource.regionRef), [], 'every Endpoint names its Region');
  t.match(conditionOf(world.response.status, 'CatalogReady'), { status: 'True', reason: 'CatalogRegistered' });
  t.match(conditionOf(world.response.status, 'GlanceReady'), { status: 'True', message: /in region RegionOne/ });
  t.same(find(world.children, 'ApplicationCredential')!.metadata.uid, acBefore.metadata.uid, 'no credential minted again');
  t.same(find(world.children, 'ApplicationCredential')!.spec, acBefore.spec);
});

t.test("the region-less identity row Keystone's bootstrap made, adopted by both objects: the old one is detached before it goes", async (t) => {
  const { app } = await testServer();
  t.teardown(() => app.close());
  const converged = await converge(app, managedCP());
  const old = regionless(converged).map((c) => (c.metadata.name === N.identityEndpoint ? { ...c, status: orcStatus(1, { id: 'bootstrap-public' }) } : c));
  // The new identity Endpoint adopted the same Keystone row (the bootstrap's, in the region: same URL).
  const sameRow: StatusOf = (c, g) => ([N.identityRegionEndpoint, N.identityEndpoint].includes(c.metadata.name) ? orcStatus(g, { id: 'bootstrap-public' }) : healthy(c, g));
  let world: World = { parent: converged.parent, children: old, related: converged.related, response: converged.response };
  world = await step(app, world, sameRow);
  t.notOk(find(world.response.children, 'Endpoint', N.identityRegionEndpoint), 'the new Endpoint waits for its Region to be Available');
  world = await step(app, world, sameRow);
  world = await step(app, world, sameRow);
  const legacy = find(world.response.children, 'Endpoint', N.identityEndpoint);
  t.equal(legacy?.spec.managedOptions?.onDelete, 'detach', 'detached first: deleting it must not delete the row its replacement holds');
  t.equal(legacy?.spec.resource.url, find(old, 'Endpoint', N.identityEndpoint)!.spec.resource.url, 'otherwise as it is');
  world = await step(app, world, sameRow);
  t.notOk(find(world.response.children, 'Endpoint', N.identityEndpoint), 'then released');
  world = await step(app, world, sameRow);
  t.match(conditionOf(world.response.status, 'CatalogReady'), { status: 'True' });
});

t.test('a region change that bypassed admission: the rows move to the other slot, the old kept until the new serve, then Endpoints before their Region', async (t) => {
  const { app } = await testServer();
  t.teardown(() => app.close());
  const parent = cloud();
  const cp = parent.metadata.name;
  const n = childNames(cp);
  const g = serviceChildNames(cp, 'glance');
  const converged = await converge(app, parent, undefined, undefined, undefined, [], 30);
  const moved = structuredClone(converged.parent);
  moved.spec.region = 'RegionTwo';
  moved.metadata.generation = 2;
  // While RegionTwo's rows are not Available, RegionOne's stay as they are.
  const notYet: StatusOf = (c, gen) => (c.metadata.name.includes('-region-b') ? orcStatus(gen, { available: false }) : healthy(c, gen));
  let world: World = { ...converged, parent: moved };
  for (let pass = 0; pass < 4; pass++) world = await step(app, world, notYet);
  t.same(find(world.response.children, 'Region', n.regionB)!.spec.resource, { name: 'RegionTwo' });
  t.notOk(find(world.response.children, 'Endpoint', n.identityRegionEndpointB), "RegionTwo's Endpoints are created only once their Region has an id");
  t.match(conditionOf(world.response.status, 'CatalogReady'), { status: 'False', message: new RegExp(`Endpoint ${n.identityRegionEndpointB} is created once Region ${n.regionB} is Available`) });
  for (const name of [n.region, n.identityRegionEndpoint]) t.ok(find(world.response.children, name === n.region ? 'Region' : 'Endpoint', name), `${name} kept while RegionTwo's rows are not Available`);
  t.same(find(world.response.children, 'Region', n.region)!.spec.resource, { name: 'RegionOne' }, 'the old Region untouched');
  // Then: every pass keeps an Available row per service and interface; the old Endpoints go before their Region.
  const seen: { pass: number; endpoints: boolean; region: boolean }[] = [];
  for (let pass = 0; pass < 14 && conditionOf(world.response.status, 'Ready').status !== 'True'; pass++) {
    world = await step(app, world);
    const has = (kind: string, name: string) => world.children.some((c) => c.kind === kind && c.metadata.name === name);
    seen.push({ pass, endpoints: has('Endpoint', g.regionEndpointOf('a', 'internal')) || has('Endpoint', g.regionEndpointOf('a', 'public')), region: has('Region', g.regionOf('a')) });
    for (const svc of [n.identityService, g.service]) {
      const available = world.children.filter((c) => c.kind === 'Endpoint' && c.spec.resource.serviceRef === svc && c.status?.conditions?.some((x: Obj) => x.type === 'Available' && x.status === 'True'));
      t.ok(available.some((e) => e.spec.resource.interface === 'public'), `pass ${pass}: ${svc} has an Available public row`);
    }
  }
  t.match(conditionOf(world.response.status, 'Ready'), { status: 'True' });
  const endpointsGone = seen.findIndex((x) => !x.endpoints);
  const regionGone = seen.findIndex((x) => !x.region);
  t.ok(endpointsGone >= 0 && regionGone > endpointsGone, `the old Endpoints gone (pass ${endpointsGone}) before their Region (pass ${regionGone})`);
  t.same(find(world.children, 'Region', g.regionOf('b'))!.spec.import, { filter: { name: 'RegionTwo' } });
  t.equal(find(world.children, 'Endpoint', g.regionEndpointOf('b', 'internal'))!.spec.resource.regionRef, g.regionOf('b'));
  t.notOk(find(world.children, 'Region', n.region), 'the managed Region of RegionOne released (detached: the region stays in Keystone)');
  t.match(conditionOf(world.response.status, 'GlanceReady'), { status: 'True', message: /in region RegionTwo/ });
  t.match(conditionOf(world.response.status, 'CatalogReady'), { status: 'True', message: /registered in region RegionTwo \(Region controlplane-services-region-b\)/ });
});

t.test("a set's Endpoints are created only once its Region has an id: K-ORC would adopt a row of the same URL in any region", async (t) => {
  const { app } = await testServer();
  t.teardown(() => app.close());
  const parent = cloud();
  const cp = parent.metadata.name;
  const n = childNames(cp);
  const p = serviceChildNames(cp, 'placement');
  const converged = await converge(app, parent, undefined, undefined, undefined, [], 30);
  const old = regionless(converged);
  // Placement's Region import has no id yet (its region not found); the identity Region has one.
  const placementRegionless: StatusOf = (c, g) => (c.kind === 'Region' && c.metadata.name === p.regionOf('a') ? orcStatus(g, { available: false }) : healthy(c, g));
  let world: World = { parent: converged.parent, children: old, related: converged.related, response: converged.response };
  for (let pass = 0; pass < 4; pass++) world = await step(app, world, placementRegionless);
  const emitted = names(world.response.children, 'Endpoint');
  t.ok(find(world.response.children, 'Region', p.regionOf('a')), 'the Region is emitted');
  for (const iface of ['public', 'internal']) t.notOk(emitted.includes(p.regionEndpointOf('a', iface)), `placement ${iface}: not created while its Region has no id`);
  t.ok(emitted.includes(n.identityRegionEndpoint), 'the identity row, whose Region has an id, is');
  t.ok(emitted.includes(p.publicEndpoint) && emitted.includes(p.internalEndpoint), 'the region-less placement rows stay');
  t.match(conditionOf(world.response.status, 'PlacementReady'), { status: 'False', reason: 'WaitingForServiceCatalog', message: new RegExp(`Endpoint ${p.regionEndpointOf('a', 'public')} is created once Region ${p.regionOf('a')} is Available`) });
  // An Endpoint already observed stays desired while its Region loses its id (never omitted).
  world = await step(app, world);
  world = await step(app, world);
  t.ok(find(world.children, 'Endpoint', p.regionEndpointOf('a', 'public')), 'created once the Region has an id');
  world = await step(app, world, placementRegionless);
  t.ok(find(world.response.children, 'Endpoint', p.regionEndpointOf('a', 'public')), 'an observed Endpoint is kept whatever its Region says');
});

t.test('both slots held by other regions: nothing is changed, and the condition says why', async (t) => {
  const { app } = await testServer();
  t.teardown(() => app.close());
  const converged = await converge(app, managedCP());
  const inRegion = (name: string, region: string) => applied({ apiVersion: 'openstack.k-orc.cloud/v1alpha1', kind: 'Region', metadata: { name, namespace: 'openstack' }, spec: { cloudCredentialsRef: ref, managementPolicy: 'managed', managedOptions: { onDelete: 'detach' }, resource: { name: region } } }, converged.parent, orcStatus(1, { id: region }));
  const children = [...converged.children.filter((c) => c.kind !== 'Region'), inRegion(N.region, 'RegionA'), inRegion(N.regionB, 'RegionB')];
  const res = await sync(app, converged.parent, children, converged.related);
  t.match(conditionOf(res.status, 'CatalogReady'), { status: 'False', reason: 'WaitingForCatalog', message: /the rows are being moved between regions already .* spec.region is RegionOne: nothing is changed/ });
  for (const c of children.filter((x) => x.kind === 'Region' || x.kind === 'Endpoint')) t.same(find(res.children, c.kind, c.metadata.name)?.spec, c.spec, `${c.kind} ${c.metadata.name} kept as it is`);
  t.same(applyResponse(res.children, converged.parent, healthy, children).filter((c) => c.kind === 'Endpoint').length, 1, 'no Endpoint added or removed');
});
