import t from 'tap';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { controlPlaneCRD, credentialRotationCRD, renderCRDs, secretAggregateCRD } from '../src/crd/generate.js';
import { renderControllers } from '../src/crd/controllers.js';
import { admission } from './support/crd.js';
import { fixtureControlPlane, REPO_ROOT, type Obj } from './support/shared.js';

const ours = {
  ControlPlane: controlPlaneCRD().spec.versions[0]!.schema.openAPIV3Schema as Obj,
  CredentialRotation: credentialRotationCRD().spec.versions[0]!.schema.openAPIV3Schema as Obj,
  SecretAggregate: secretAggregateCRD().spec.versions[0]!.schema.openAPIV3Schema as Obj,
};
const admit = { ControlPlane: admission(ours.ControlPlane), CredentialRotation: admission(ours.CredentialRotation), SecretAggregate: admission(ours.SecretAggregate) };

t.test('committed CRDs equal the generator output (run `npm run gen` after a schema change)', async (t) => {
  const files = renderCRDs();
  t.equal(files.size, 3);
  for (const [path, content] of files) {
    t.equal(readFileSync(join(REPO_ROOT, path), 'utf8'), content, `${path} is up to date`);
  }
});

t.test('the committed ControlPlane CompositeController equals the generator output (run `npm run gen`)', async (t) => {
  for (const [path, content] of renderControllers()) t.equal(readFileSync(join(REPO_ROOT, path), 'utf8'), content, `${path} is up to date`);
});

t.test('generated CRDs: status subresource, printer columns, names', async (t) => {
  const cp = controlPlaneCRD();
  const cr = credentialRotationCRD();
  for (const crd of [cp, cr]) {
    const v = crd.spec.versions[0]!;
    t.same(v.subresources, { status: {} }, `${crd.metadata.name} has the status subresource`);
    t.equal(crd.spec.scope, 'Namespaced');
    t.ok(v.served && v.storage);
  }
  t.same(cp.spec.versions[0]!.additionalPrinterColumns.map((c) => c.name), ['Ready', 'Release', 'Phase', 'Age']);
});

t.test('the minimal example gets the reference webhook defaults from the schema', async (t) => {
  const minimal = admit.ControlPlane(fixtureControlPlane('controlplane-minimal.yaml')).object;
  t.equal(minimal.spec.region, 'RegionOne');
  t.same(minimal.spec.infrastructure.database.clusterRef, { name: 'openstack-db' });
  t.same(minimal.spec.infrastructure.cache.clusterRef, { name: 'openstack-memcached' });
  t.same(minimal.spec.korc.adminCredential.passwordSecretRef, { key: 'password', name: 'keystone-admin' });
  t.equal(minimal.spec.korc.adminCredential.applicationCredential.restricted, true);
  t.equal(minimal.spec.infrastructure.cache.replicas, 3);
});

const base = () => admit.ControlPlane(fixtureControlPlane('controlplane.yaml')).object;
const withSpec = (mutate: (spec: Obj) => void) => {
  const cp = base();
  mutate(cp.spec);
  return cp;
};

t.test('CEL admission rules refuse what the reference webhook refused', async (t) => {
  const cases: [string, (s: Obj) => void, RegExp][] = [
    ['database with clusterRef and host', (s) => (s.infrastructure.database.host = 'db'), /exactly one of clusterRef or host/],
    ['database with neither', (s) => delete s.infrastructure.database.clusterRef, /exactly one of clusterRef or host/],
    ['cache with clusterRef and servers', (s) => (s.infrastructure.cache.servers = ['a:1']), /exactly one of clusterRef or servers/],
    ['cache with neither', (s) => delete s.infrastructure.cache.clusterRef, /exactly one of clusterRef or servers/],
    ['cache with empty servers', (s) => {
      delete s.infrastructure.cache.clusterRef;
      s.infrastructure.cache.servers = [];
    }, /exactly one of clusterRef or servers/],
    ['bad release', (s) => (s.openStackRelease = '2025.10'), /pattern/],
    ['rotationInterval 25h', (s) => (s.services.keystone.rotationInterval = '25h'), /whole number of days/],
    ['rotationInterval 0h', (s) => (s.services.keystone.rotationInterval = '0h'), /whole number of days/],
    ['rotationInterval 7d', (s) => (s.services.keystone.rotationInterval = '7d'), /whole number of days/],
    ['rotationInterval -24h', (s) => (s.services.keystone.rotationInterval = '-24h'), /whole number of days/],
    ['empty global policy rule name', (s) => (s.global.rules[''] = 'role:admin'), /policy rule name must not be empty/],
    ['empty keystone policy rule value', (s) => (s.services.keystone.policyOverrides = { rules: { a: '' } }), /policy rule value must not be empty/],
    ['bad rotation mode', (s) => (s.korc.adminCredential.applicationCredential.rotation.mode = 'Weekly'), /allowed values/],
    ['keystone replicas 0', (s) => (s.services.keystone.replicas = 0), /must be >= 1/],
    ['rolloutDeadline 30s', (s) => (s.rolloutDeadline = '30s'), /rolloutDeadline must be a duration between 1m and 24h/],
    ['rolloutDeadline 25h', (s) => (s.rolloutDeadline = '25h'), /rolloutDeadline must be a duration between 1m and 24h/],
    ['rolloutDeadline 15 minutes', (s) => (s.rolloutDeadline = '15 minutes'), /rolloutDeadline must be a duration between 1m and 24h/],
  ];
  for (const [name, mutate, expected] of cases) {
    const { errors } = admit.ControlPlane(withSpec(mutate));
    t.match(errors.join('\n'), expected, name);
  }
  for (const deadline of ['1m', '15m', '90s', '2h30m', '24h']) {
    t.same(admit.ControlPlane(withSpec((s) => (s.rolloutDeadline = deadline))).errors, [], `rolloutDeadline ${deadline} is accepted`);
  }
  t.equal(base().spec.rolloutDeadline, '15m', 'rolloutDeadline defaults to 15m');
  for (const interval of ['24h', '48h', '168h', '1440m', '24h0m0s', '86400s']) {
    t.same(admit.ControlPlane(withSpec((s) => (s.services.keystone.rotationInterval = interval))).errors, [], `rotationInterval ${interval} is accepted`);
  }
});

t.test('CEL transition rules make the reference webhook immutable fields immutable', async (t) => {
  const old = base();
  const cases: [string, (s: Obj) => void, RegExp][] = [
    ['region', (s) => (s.region = 'RegionTwo'), /region is immutable/],
    ['database mode', (s) => {
      delete s.infrastructure.database.clusterRef;
      s.infrastructure.database.host = 'db';
    }, /database mode .* is immutable/],
    ['database clusterRef.name', (s) => (s.infrastructure.database.clusterRef.name = 'other-db'), /clusterRef.name is immutable/],
    ['database name', (s) => (s.infrastructure.database.database = 'other'), /database name is immutable/],
    ['cloudCredentialsRef.secretName', (s) => (s.korc.adminCredential.cloudCredentialsRef.secretName = 'other'), /secretName is immutable/],
    ['release downgrade', (s) => (s.openStackRelease = '2025.1'), /cannot be downgraded/],
  ];
  for (const [name, mutate, expected] of cases) {
    const updated = withSpec(mutate);
    t.match(admit.ControlPlane(updated, old).errors.join('\n'), expected, `changing ${name} is refused`);
    t.notMatch(admit.ControlPlane(updated).errors.join('\n'), expected, `${name} is free on create`);
  }
  const allowed = withSpec((s) => {
    s.openStackRelease = '2026.1';
    s.services.keystone.replicas = 5;
    s.infrastructure.cache.replicas = 5;
    s.korc.adminCredential.applicationCredential.restricted = false;
  });
  t.same(admit.ControlPlane(allowed, old).errors, [], 'upgrades and mutable fields can change');
});

t.test('CredentialRotation CRD: target enum and day counts', async (t) => {
  const cr = (spec: Obj) => ({ apiVersion: 'c5c3.io/v1alpha1', kind: 'CredentialRotation', metadata: { name: 'r' }, spec });
  t.same(admit.CredentialRotation(cr({ target: 'adminApplicationCredential', reMint: true })).errors, []);
  t.match(admit.CredentialRotation(cr({ target: 'dbPassword' })).errors.join(), /allowed values/);
  t.match(admit.CredentialRotation(cr({ target: 'adminApplicationCredential', intervalDays: 0 })).errors.join(), /must be >= 1/);
  t.match(admit.CredentialRotation(cr({})).errors.join(), /required property 'target'/);
});

t.test('SecretAggregate CRD: the upstream API, columns Ready, Target, Age; everything the placeholder accepted still accepted', async (t) => {
  const crd = secretAggregateCRD();
  const v = crd.spec.versions[0]!;
  t.same(v.subresources, { status: {} });
  t.same(v.additionalPrinterColumns.map((c) => [c.name, c.jsonPath]), [
    ['Ready', ".status.conditions[?(@.type=='Ready')].status"],
    ['Target', '.spec.target.name'],
    ['Age', '.metadata.creationTimestamp'],
  ]);
  const sa = (spec: Obj) => ({ apiVersion: 'c5c3.io/v1alpha1', kind: 'SecretAggregate', metadata: { name: 'nova-all-credentials', namespace: 'openstack' }, spec });
  // The upstream example (docs/hooks.md "Merging Secrets: SecretAggregate"), verbatim.
  const seed = {
    sources: [
      { secretRef: { name: 'nova-db-credentials' } },
      { secretRef: { name: 'nova-rabbitmq-credentials' } },
      { secretRef: { name: 'nova-app-credential' }, keys: ['application_credential_id', 'application_credential_secret'] },
    ],
    target: { name: 'nova-aggregated-credentials' },
  };
  t.same(admit.SecretAggregate(sa(seed)).errors, [], 'the upstream example is admitted');
  t.same(admit.SecretAggregate(sa({})).errors, [], 'an empty spec (the placeholder accepted it) is admitted; the hook reports InvalidSpec');
  t.same(admit.SecretAggregate(sa({ targetSecretName: 'x' })).errors, [], 'the placeholder field is kept, not pruned');
  t.same(admit.SecretAggregate(sa({ ...seed, targetSecretName: 'nova-aggregated-credentials' })).errors, [], 'both names, equal');
  const refused: [string, Obj, RegExp][] = [
    ['target among the sources', { ...seed, target: { name: 'nova-db-credentials' } }, /the target Secret cannot also be a source/],
    ['both names, different', { ...seed, targetSecretName: 'other' }, /must equal it/],
    ['empty secretRef', { ...seed, sources: [{ secretRef: {} }] }, /secretRef.name must name a Secret/],
    ['bad key', { ...seed, sources: [{ secretRef: { name: 'a' }, keys: ['a b'] }] }, /pattern/],
    ['bad target', { ...seed, target: { name: 'Nova' } }, /pattern/],
    ['target without name', { ...seed, target: {} }, /name/],
    ['too many sources', { ...seed, sources: Array.from({ length: 33 }, (_, i) => ({ secretRef: { name: `s${i}` } })) }, /must NOT have more than 32 items/],
  ];
  for (const [name, spec, expected] of refused) t.match(admit.SecretAggregate(sa(spec)).errors.join('\n'), expected, name);
});

t.test('services and messaging: the CRD refuses what the hooks could not project', async (t) => {
  const base = fixtureControlPlane('controlplane-services.yaml');
  const with_ = (edit: (cp: Obj) => void) => {
    const cp = structuredClone(base);
    edit(cp);
    return cp;
  };
  t.same(admit.ControlPlane(base).errors, [], 'the services example is admitted');
  t.match(admit.ControlPlane(with_((cp) => (cp.spec.infrastructure.messaging = { replicas: 3, secretRef: { name: 'bus' } }))).errors.join(), /exactly one of replicas \(managed\) or secretRef/);
  t.match(admit.ControlPlane(with_((cp) => (cp.spec.infrastructure.messaging = {}))).errors.join(), /exactly one of replicas/);
  t.match(admit.ControlPlane(with_((cp) => (cp.spec.infrastructure.messaging = { secretRef: { name: 'bus' } })), base).errors.join(), /messaging mode .* is immutable/);
  t.match(admit.ControlPlane(with_((cp) => delete cp.spec.infrastructure.messaging), base).errors.join(), /messaging cannot be removed once set/);
  t.same(admit.ControlPlane(with_((cp) => (cp.spec.infrastructure.messaging = { replicas: 5 })), base).errors, [], 'replicas may change');
  const secondDefault = { name: 'b', type: 'S3', isDefault: true, s3: { bucket: 'x', endpoint: 'https://s', credentialsSecretRef: { name: 'c' } } };
  t.match(admit.ControlPlane(with_((cp) => cp.spec.services.glance.backends.push(secondDefault))).errors.join(), /exactly one backend must be isDefault/);
  t.match(admit.ControlPlane(with_((cp) => (cp.spec.services.glance.backends[0].isDefault = false))).errors.join(), /exactly one backend must be isDefault/);
  t.match(admit.ControlPlane(with_((cp) => delete cp.spec.services.glance.backends[0].s3)).errors.join(), /the s3 block must be set exactly when type is S3/);
  t.match(admit.ControlPlane(with_((cp) => (cp.spec.services.glance.backends = []))).errors.join(), /fewer than 1|minItems|must NOT have fewer/);
  t.match(admit.ControlPlane(with_((cp) => (cp.spec.services.placement.policyOverrides = { rules: { x: '' } }))).errors.join(), /policy rule value must not be empty/);
  t.same(admit.ControlPlane(with_((cp) => delete cp.spec.services.placement), base).errors, [], 'removal is admitted: CEL cannot read annotations; the hook keeps the children until c5c3.io/allow-placement-deletion (docs/architecture.md §2.13)');
});
