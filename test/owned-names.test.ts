// cloudCredentialsRef.secretName naming a child of the ControlPlane: refused at admission (a root
// CEL rule, where metadata.name is visible) and, for an object that bypassed it, InvalidSpec on
// KORCReady with every observed child kept, never a 500 (the field is immutable: a 500 would
// repeat on every sync for good).
import t from 'tap';
import { controlPlaneCRD } from '../src/crd/generate.js';
import { childNames } from '../src/controlplane/names.js';
import { readSpec } from '../src/controlplane/spec.js';
import { admission } from './support/crd.js';
import { post, testServer } from './support/server.js';
import { conditionOf, converge, ids, managedCP } from './support/sync.js';
import { syncRequest } from './support/world.js';
import { fixtureControlPlane, type Obj } from './support/shared.js';

const admit = admission(controlPlaneCRD().spec.versions[0]!.schema.openAPIV3Schema as Obj);
const withSecretName = (cp: Obj, name: string) => {
  const copy = structuredClone(cp);
  copy.spec.korc ??= {};
  copy.spec.korc.adminCredential ??= {};
  copy.spec.korc.adminCredential.cloudCredentialsRef = { cloudName: 'admin', secretName: name };
  return copy;
};

t.test('admission refuses every child name of the ControlPlane as cloudCredentialsRef.secretName', async (t) => {
  const cp = fixtureControlPlane('controlplane.yaml');
  for (const name of Object.values(childNames(cp.metadata.name))) {
    t.match(admit(withSecretName(cp, name)).errors.join('\n'), /must not be the name of a child of this ControlPlane/, name);
  }
  for (const name of [`${cp.metadata.name}-placement-service-user`, `${cp.metadata.name}-placement-service-user-v2`, `${cp.metadata.name}-glance-service-user-v17`]) {
    t.match(admit(withSecretName(cp, name)).errors.join('\n'), /must not be the name of a child of this ControlPlane/, `${name} (a service user's password Secret, rotated ones too)`);
    t.match(readSpec(withSecretName(cp, name).spec, cp.metadata.name).resolved.korc, { ok: false, errors: [/is the name of a child of this ControlPlane/] }, `${name}: InvalidSpec when admission was bypassed`);
  }
  t.same(admit(withSecretName(cp, 'k-orc-clouds-yaml')).errors, [], 'the default is admitted');
  t.same(admit(withSecretName(cp, `other-${cp.metadata.name}-keystone-db-credentials`)).errors, [], 'a name that only contains a child name is admitted');
  t.same(admit(withSecretName({ ...cp, metadata: { ...cp.metadata, name: 'other' } }, `${cp.metadata.name}-keystone-db-credentials`)).errors, [], "another ControlPlane's child name is not ours");
  t.same(admit(fixtureControlPlane('controlplane-minimal.yaml')).errors, [], 'a spec without korc is admitted (defaults)');
  // An object admitted before the rule existed can still be updated (finalizers removed, labels
  // changed): the rule is not ratcheted at the root, so it applies on create only.
  const old = withSecretName(cp, `${cp.metadata.name}-keystone-db-credentials`);
  const updated = { ...old, metadata: { ...old.metadata, labels: { changed: 'yes' }, finalizers: [] } };
  t.same(admit(updated, old).errors, [], 'an update of an existing object is admitted');
});

t.test('the sync hook answers InvalidSpec naming the field, keeps every child, never 500', async (t) => {
  const { app } = await testServer();
  t.teardown(() => app.close());
  const world = await converge(app, managedCP());
  for (const name of Object.values(childNames(world.parent.metadata.name))) {
    const res = await post(app, '/controlplane/sync', syncRequest(withSecretName(world.parent, name), world.children, world.related));
    t.equal(res.status, 200, `${name}: 200`);
    const korc = conditionOf(res.json.status, 'KORCReady');
    t.match(korc, { status: 'False', reason: 'InvalidSpec', message: /cloudCredentialsRef\.secretName: .* is the name of a child of this ControlPlane/ }, `${name}: InvalidSpec`);
    t.same(ids(res.json.children), ids(world.children), `${name}: nothing dropped`);
  }
  const fresh = await post(app, '/controlplane/sync', syncRequest(withSecretName(managedCP(), childNames(world.parent.metadata.name).dbCredentials), [], world.related));
  t.equal(fresh.status, 200, 'a fresh ControlPlane: 200');
});

t.test('the Secrets of the services beside Keystone are owned names too (admission and InvalidSpec)', async (t) => {
  const cp = fixtureControlPlane('controlplane.yaml');
  const n = cp.metadata.name;
  for (const name of [`${n}-placement-service-user`, `${n}-placement-db-credentials`, `${n}-glance-service-user`, `${n}-glance-db-credentials`]) {
    t.match(admit(withSecretName(cp, name)).errors.join('\n'), /must not be the name of a child of this ControlPlane/, name);
  }
  const resolved = readSpec(withSecretName(cp, `${n}-placement-service-user`).spec, n).resolved.korc;
  t.match(resolved, { ok: false, errors: [/placement-service-user is the name of a child of this ControlPlane/] }, 'the KORC stage reports it as InvalidSpec');
});
