import t, { type Test } from 'tap';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { controlPlaneCRD, credentialRotationCRD, renderCRDs, secretAggregateCRD } from '../src/crd/generate.js';
import { DEFAULTS } from '../src/api/controlplane.js';
import { admission } from './support/crd.js';
import { examples, exampleControlPlane, REPO_ROOT, upstreamSchema, type Obj } from './support/shared.js';

const ours = {
  ControlPlane: controlPlaneCRD().spec.versions[0]!.schema.openAPIV3Schema as Obj,
  CredentialRotation: credentialRotationCRD().spec.versions[0]!.schema.openAPIV3Schema as Obj,
  SecretAggregate: secretAggregateCRD().spec.versions[0]!.schema.openAPIV3Schema as Obj,
};
const reference = {
  ControlPlane: upstreamSchema('c5c3.io/controlplanes.yaml'),
  CredentialRotation: upstreamSchema('c5c3.io/credentialrotations.yaml'),
  SecretAggregate: upstreamSchema('c5c3.io/secretaggregates.yaml'),
};
const admit = { ControlPlane: admission(ours.ControlPlane), CredentialRotation: admission(ours.CredentialRotation), SecretAggregate: admission(ours.SecretAggregate) };

t.test('committed CRDs equal the generator output (run `npm run gen` after a schema change)', async (t) => {
  const files = renderCRDs();
  t.equal(files.size, 3);
  for (const [path, content] of files) {
    t.equal(readFileSync(join(REPO_ROOT, path), 'utf8'), content, `${path} is up to date`);
  }
});

t.test('generated CRDs: status subresource, printer columns, names', async (t) => {
  const cp = controlPlaneCRD();
  const cr = credentialRotationCRD();
  for (const crd of [cp, cr]) {
    const v = crd.spec.versions[0]!;
    t.same(v.subresources, { status: {} }, `${crd.metadata.name} has the status subresource`);
    t.equal(crd.spec.scope, 'Namespaced');
    t.ok(v.served && v.storage);
    const refCrd = parse(readFileSync(join(REPO_ROOT, crd.metadata.name === 'controlplanes.c5c3.io' ? '../shared/crds/c5c3.io/controlplanes.yaml' : '../shared/crds/c5c3.io/credentialrotations.yaml'), 'utf8'));
    t.same(crd.spec.names, refCrd.spec.names, 'same names as the reference');
    t.same(v.additionalPrinterColumns, refCrd.spec.versions[0].additionalPrinterColumns, 'same printer columns as the reference');
  }
  t.same(cp.spec.versions[0]!.additionalPrinterColumns.map((c) => c.name), ['Ready', 'Release', 'Age']);
});

// Keywords whose value must match the reference at every path the reference defines.
const COMPARED = ['type', 'format', 'enum', 'pattern', 'minimum', 'maximum', 'minLength', 'maxLength', 'x-kubernetes-list-type', 'x-kubernetes-list-map-keys', 'x-kubernetes-map-type'];

// Defaults we add on top of the reference: the reference webhook's defaults, as schema defaults.
const ADDED_DEFAULTS: Record<string, unknown> = {
  'spec.infrastructure': {},
  'spec.infrastructure.database': {
    clusterRef: { name: DEFAULTS.databaseClusterName },
    database: DEFAULTS.databaseName,
    secretRef: { name: DEFAULTS.databaseSecretName },
  },
  'spec.infrastructure.database.database': 'keystone',
  'spec.infrastructure.database.secretRef': { name: 'keystone-db' },
  'spec.infrastructure.cache': { backend: 'dogpile.cache.pymemcache', clusterRef: { name: 'openstack-memcached' } },
  'spec.infrastructure.cache.backend': 'dogpile.cache.pymemcache',
  'spec.korc': {},
  'spec.korc.adminCredential': {},
  'spec.korc.adminCredential.applicationCredential': {},
  'spec.korc.adminCredential.applicationCredential.rotation': {},
  'spec.korc.adminCredential.cloudCredentialsRef': {},
  'spec.korc.adminCredential.passwordSecretRef': { key: 'password', name: 'keystone-admin' },
  'spec.korc.adminCredential.passwordSecretRef.key': 'password',
};
// Stricter than the reference CRD, as the reference webhook was.
const ADDED_LIMITS: Record<string, Obj> = {
  'spec.services.keystone.rotationInterval': { maxLength: 32 },
  // A Secret name; bounded so the root CEL rule comparing it with the child names stays cheap.
  'spec.korc.adminCredential.cloudCredentialsRef.secretName': { maxLength: 253 },
};

// Fields of ours the reference does not have: the SecretAggregate API of seed 002 (the reference
// SecretAggregate is a types-only placeholder) and the status every kind of ours reports.
// Fields beyond the reference: SecretAggregate's real spec, and status this service keeps.
const ADDED_FIELDS = new Set([
  'SecretAggregate spec.sources',
  'SecretAggregate spec.target',
  'SecretAggregate status.observedGeneration',
  'CredentialRotation status.lastTriggeredTime',
  'ControlPlane status.unappliedChildren',
]);

function compare(t: Test, ref: Obj, mine: Obj | undefined, path: string, kind: string) {
  if (!mine) {
    t.fail(`${kind} ${path}: missing from our schema`);
    return;
  }
  for (const key of COMPARED) {
    const expected = ADDED_LIMITS[path]?.[key] ?? ref[key];
    if (expected !== undefined || mine[key] !== undefined) t.same(mine[key], expected, `${kind} ${path}: same ${key}`);
  }
  if (ref.default !== undefined) t.same(mine.default, ref.default, `${kind} ${path}: same default`);
  else if (mine.default !== undefined) t.same(mine.default, ADDED_DEFAULTS[path], `${kind} ${path}: default is one of the webhook's`);
  // Our required fields are a subset: a field is dropped from `required` only when it gained a default.
  for (const req of (mine.required ?? []) as string[]) t.ok((ref.required ?? []).includes(req), `${kind} ${path}: ${req} required only where the reference requires it`);
  for (const req of (ref.required ?? []) as string[]) {
    if (!(mine.required ?? []).includes(req)) t.not(mine.properties?.[req]?.default, undefined, `${kind} ${path}.${req}: optional only because it has a default`);
  }
  for (const [name, sub] of Object.entries((ref.properties ?? {}) as Obj)) compare(t, sub, mine.properties?.[name], `${path}.${name}`.replace(/^\./, ''), kind);
  for (const name of Object.keys(mine.properties ?? {})) {
    const sub = `${path}.${name}`.replace(/^\./, '');
    t.ok((ref.properties && name in ref.properties) || ADDED_FIELDS.has(`${kind} ${sub}`), `${kind} ${sub}: exists in the reference`);
  }
  if (ref.items) compare(t, ref.items, mine.items, `${path}[]`, kind);
  if (ref.additionalProperties) compare(t, ref.additionalProperties, mine.additionalProperties, `${path}{}`, kind);
}

t.test('every field of the reference CRDs has the same type, enum, format and default in ours', async (t) => {
  compare(t, reference.ControlPlane, ours.ControlPlane, '', 'ControlPlane');
  compare(t, reference.CredentialRotation, ours.CredentialRotation, '', 'CredentialRotation');
  compare(t, reference.SecretAggregate, ours.SecretAggregate, '', 'SecretAggregate');
});

t.test('every CEL rule of the reference is present in ours', async (t) => {
  function rules(schema: Obj, path: string, out: Map<string, string[]>) {
    const found = (schema['x-kubernetes-validations'] ?? []) as Obj[];
    if (found.length) out.set(path, found.map((r) => r.rule));
    for (const [k, v] of Object.entries((schema.properties ?? {}) as Obj)) rules(v, `${path}.${k}`, out);
    if (schema.items) rules(schema.items, `${path}[]`, out);
  }
  const refRules = new Map<string, string[]>();
  const ourRules = new Map<string, string[]>();
  rules(reference.ControlPlane, '', refRules);
  rules(ours.ControlPlane, '', ourRules);
  t.ok(refRules.size > 0);
  for (const [path, list] of refRules) for (const rule of list) t.ok(ourRules.get(path)?.includes(rule), `${path}: ${rule}`);
});

t.test('every example is admitted by our CRDs (no webhook needed)', async (t) => {
  let count = 0;
  for (const { file, docs } of examples()) {
    for (const doc of docs) {
      if (doc.kind !== 'ControlPlane' && doc.kind !== 'CredentialRotation') continue;
      count++;
      // On create the API server ignores status (status subresource); it is checked separately.
      const { status, ...object } = doc;
      const result = admit[doc.kind as 'ControlPlane'](object);
      t.same(result.errors, [], `${file}: ${doc.kind} ${doc.metadata.name} is admitted`);
      if (status === undefined) continue;
      const statusResult = admit[doc.kind as 'ControlPlane']({ ...object, status });
      if (file === 'credentialrotation-reference-shape-with-status.yaml') {
        // examples/README.md: its condition lacks `message`, which metav1.Condition requires.
        t.match(statusResult.errors, [/message/], `${file}: the illustrative status is refused, as by the reference`);
      } else {
        t.same(statusResult.errors, [], `${file}: status is valid`);
      }
    }
  }
  t.equal(count, 8, 'six ControlPlanes and two CredentialRotations');
});

t.test('the minimal example is defaulted to the webhook-expanded form', async (t) => {
  const minimal = admit.ControlPlane(exampleControlPlane('controlplane-kind-minimal.yaml')).object;
  const expanded = admit.ControlPlane(exampleControlPlane('controlplane-webhook-defaulted-expanded.yaml')).object;
  t.same(minimal.spec.infrastructure, expanded.spec.infrastructure);
  t.same(minimal.spec.korc, expanded.spec.korc);
  t.equal(minimal.spec.region, 'RegionOne');
  t.same(minimal.spec.korc.adminCredential.passwordSecretRef, { key: 'password', name: 'keystone-admin' });
  t.equal(minimal.spec.korc.adminCredential.applicationCredential.restricted, true);
  t.equal(minimal.spec.infrastructure.cache.replicas, 3);
});

const base = () => admit.ControlPlane(exampleControlPlane('controlplane-full-managed.yaml')).object;
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
  ];
  for (const [name, mutate, expected] of cases) {
    const { errors } = admit.ControlPlane(withSpec(mutate));
    t.match(errors.join('\n'), expected, name);
  }
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

t.test('SecretAggregate CRD: seed 002 API, columns Ready, Target, Age; everything the placeholder accepted still accepted', async (t) => {
  const crd = secretAggregateCRD();
  const refCrd = parse(readFileSync(join(REPO_ROOT, '../shared/crds/c5c3.io/secretaggregates.yaml'), 'utf8'));
  t.same(crd.spec.names, refCrd.spec.names, 'same names as the reference');
  const v = crd.spec.versions[0]!;
  t.same(v.subresources, { status: {} });
  t.same(v.additionalPrinterColumns.map((c) => [c.name, c.jsonPath]), [
    ['Ready', ".status.conditions[?(@.type=='Ready')].status"],
    ['Target', '.spec.target.name'],
    ['Age', '.metadata.creationTimestamp'],
  ]);
  const sa = (spec: Obj) => ({ apiVersion: 'c5c3.io/v1alpha1', kind: 'SecretAggregate', metadata: { name: 'nova-all-credentials', namespace: 'openstack' }, spec });
  // The example of seed 002, verbatim.
  const seed = {
    sources: [
      { secretRef: { name: 'nova-db-credentials' } },
      { secretRef: { name: 'nova-rabbitmq-credentials' } },
      { secretRef: { name: 'nova-app-credential' }, keys: ['application_credential_id', 'application_credential_secret'] },
    ],
    target: { name: 'nova-aggregated-credentials' },
  };
  t.same(admit.SecretAggregate(sa(seed)).errors, [], 'the seed 002 example is admitted');
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
