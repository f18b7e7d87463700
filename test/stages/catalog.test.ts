// Stage 7, Catalog → CatalogReady, called directly on a converged world.
import t from 'tap';
import { catalogStage } from '../../src/controlplane/stages/catalog.js';
import { managedCP } from '../support/sync.js';
import { names } from '../support/korc.js';
import { orcStatus } from '../support/world.js';
import { convergedWorld, decidedTrue, emitted, run, type StageWorld } from '../support/stage.js';
import type { Obj } from '../support/shared.js';

const n = names();
const converged = convergedWorld(managedCP());
const change = (w: StageWorld, kind: string, f: (o: Obj) => Obj): StageWorld => ({ ...w, children: w.children.map((c) => (c.kind === kind ? f(structuredClone(c)) : c)) });

t.test('gate: nothing created while AdminCredentialReady is not True', async (t) => {
  const r = run(catalogStage, converged, { decided: decidedTrue() });
  t.match(r.condition, { status: 'False', reason: 'WaitingForAdminCredential' });
  t.same(r.children, []);
});

t.test('converged: identity Service and public Endpoint registered in the Region adopting spec.region', async (t) => {
  const r = run(catalogStage, converged);
  t.match(r.condition, { status: 'True', reason: 'CatalogRegistered' });
  t.same(emitted(r), [`Endpoint/${n.endpoint}`, `Region/${n.region}`, `Service/${n.service}`]);
  const endpoint = r.children.find((c) => c.kind === 'Endpoint')!;
  t.match(endpoint.spec, { managementPolicy: 'managed', resource: { interface: 'public', serviceRef: n.service, regionRef: n.region, enabled: true } });
  t.match(r.children.find((c) => c.kind === 'Region')!.spec, { managementPolicy: 'managed', managedOptions: { onDelete: 'detach' }, resource: { name: 'RegionOne' } });
  const service = r.children.find((c) => c.kind === 'Service')!;
  t.match(service.spec, { resource: { name: 'keystone', type: 'identity', enabled: true } });
});

t.test('Available for an older generation: WaitingForCatalog', async (t) => {
  const w = change(converged, 'Endpoint', (o) => ({ ...o, metadata: { ...o.metadata, generation: 2 }, status: orcStatus(1) }));
  t.match(run(catalogStage, w).condition, { status: 'False', reason: 'WaitingForCatalog', message: /Endpoint .* not yet Available for its current generation/ });
});

t.test('a terminal K-ORC error: CatalogFailed, children still emitted', async (t) => {
  const w = change(converged, 'Service', (o) => ({ ...o, status: orcStatus(o.metadata.generation, { available: false, reason: 'InvalidConfiguration', message: 'bad' }) }));
  const r = run(catalogStage, w);
  t.match(r.condition, { status: 'False', reason: 'CatalogFailed' });
  t.equal(r.children.length, 3);
});

t.test('the catalog URL follows publicEndpoint', async (t) => {
  const parent = structuredClone(converged.parent);
  parent.spec.services ??= {};
  parent.spec.services.keystone = { ...parent.spec.services.keystone, publicEndpoint: 'https://identity.example.com/v3' };
  const r = run(catalogStage, { ...converged, parent });
  const endpoint = r.children.find((c) => c.kind === 'Endpoint') as Obj;
  t.equal(endpoint.spec.resource.url, 'https://identity.example.com/v3');
  t.match(r.condition, { status: 'False', reason: 'WaitingForCatalog', message: /does not carry the desired spec yet/ }, 'the live Endpoint still has the old URL');
});
