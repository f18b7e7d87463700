// Every child the sync hook emits validates against its upstream CRD in ../shared/crds
// (structural schema with defaults, and the CRD's CEL rules).
import t from 'tap';
import { testServer } from '../support/server.js';
import { converge, managedCP } from '../support/sync.js';
import { fixtureControlPlane } from '../support/shared.js';
import { admit, secretErrors } from '../support/children.js';
import { conformance, type Obj } from '../support/shared.js';

function variants(): [string, Obj][] {
  const managed = managedCP();
  const brownfield = managedCP();
  brownfield.spec.infrastructure = {
    database: { host: 'db.example.com', port: 3306, database: 'keystone', secretRef: { name: 'keystone-db', key: 'password' }, tls: { enabled: true, mode: 'verify-full', caBundleSecretRef: { name: 'ca' }, clientCertSecretRef: { name: 'client' } } },
    cache: { servers: ['mc-0:11211', 'mc-1:11211'], backend: 'dogpile.cache.pymemcache' },
  };
  const full = managedCP();
  full.spec.services.keystone = {
    replicas: 2,
    image: { repository: 'registry.example.com/keystone', tag: 'x' },
    policyOverrides: { rules: { 'identity:get_user': 'role:reader' }, configMapRef: { name: 'policies' } },
    rotationInterval: '168h',
    gateway: { parentRef: { name: 'gw', namespace: 'gateways', sectionName: 'https' }, hostname: 'keystone.example.com', path: '/', annotations: { a: 'b' } },
    publicEndpoint: 'https://keystone.example.com:8443/v3',
  };
  const korc = managedCP();
  korc.spec.korc.adminCredential = {
    cloudCredentialsRef: { cloudName: 'orc-admin', secretName: 'orc-clouds' },
    applicationCredential: { restricted: false, accessRules: [{ service: 'identity', method: 'get', path: '/v3/auth/tokens' }], rotation: { mode: 'Manual' } },
  };
  const services = fixtureControlPlane('controlplane-services.yaml');
  services.spec.services.placement = {
    replicas: 1,
    image: { repository: 'registry.example.com/placement', tag: 'x' },
    publicEndpoint: 'https://placement.example.com',
    gateway: { parentRef: { name: 'gw' }, hostname: 'placement.example.com' },
    policyOverrides: { configMapRef: { name: 'placement-policy' } },
    extraConfig: { DEFAULT: { debug: 'true' } },
  };
  const brownfieldServices = fixtureControlPlane('controlplane-services.yaml');
  brownfieldServices.spec.infrastructure = brownfield.spec.infrastructure;
  const cloud = fixtureControlPlane('controlplane-cloud.yaml');
  const brownfieldCloud = fixtureControlPlane('controlplane-cloud.yaml');
  brownfieldCloud.spec.infrastructure = { ...brownfield.spec.infrastructure, messaging: { secretRef: { name: 'bus', key: 'transport_url' } } };
  brownfieldCloud.spec.services.nova.publicEndpoint = 'https://compute.example.com/';
  brownfieldCloud.spec.services.cinder.backends[0].imageVolumeCache = { enabled: true, maxSizeGB: 200 };
  return [
    ['managed', managed],
    ['brownfield with TLS', brownfield],
    ['every optional Keystone field', full],
    ['every K-ORC option', korc],
    ['services and a managed bus', services],
    ['services on brownfield infrastructure', brownfieldServices],
    ['the compute cloud', cloud],
    ['the compute cloud on brownfield infrastructure and bus', brownfieldCloud],
  ];
}

t.test('every emitted child validates against its upstream CRD', conformance, async (t) => {
  const { app } = await testServer();
  t.teardown(() => app.close());
  const seen = new Set<string>();
  for (const [name, cp] of variants()) {
    const world = await converge(app, cp, undefined, undefined, undefined, [], 30);
    // Every pass of the lifecycle, so a child as first created (the fresh AC) is checked too.
    for (const child of world.history!.flatMap((r) => r.children)) {
      const result = child.kind === 'Secret' ? { errors: secretErrors(child) } : admit(child);
      if (!result) {
        t.fail(`${name}: no CRD known for ${child.apiVersion} ${child.kind}`);
        continue;
      }
      seen.add(child.kind);
      if (result.errors.length > 0) t.same(result.errors, [], `${name}: ${child.kind} ${child.metadata.name}`);
    }
  }
  const kinds = ['MariaDB', 'Memcached', 'ExternalSecret', 'Keystone', 'Secret', 'PushSecret', 'ApplicationCredential', 'User', 'Domain', 'Service', 'Endpoint', 'Region',
    'RabbitmqCluster', 'Project', 'Role', 'RoleAssignment', 'Placement', 'Glance', 'GlanceBackend'];
  t.same(kinds.filter((k) => !seen.has(k)), [], `every child kind checked: ${[...seen].join(', ')}`);
});

t.test('the validator catches a child the CRD refuses', conformance, async (t) => {
  const bad = { apiVersion: 'keystone.openstack.c5c3.io/v1alpha1', kind: 'Keystone', metadata: { name: 'x' }, spec: { policyOverrides: {} } };
  t.ok(admit(bad)!.errors.length > 0);
  const mariadb = { apiVersion: 'k8s.mariadb.com/v1alpha1', kind: 'MariaDB', metadata: { name: 'x' }, spec: { replicas: 2, storage: { size: '1Gi' } } };
  t.match(admit(mariadb)!.errors.join(), /odd|replicas/i, 'even replicas are refused by the CEL rule');
  const unmanagedWithoutImport = { apiVersion: 'openstack.k-orc.cloud/v1alpha1', kind: 'User', metadata: { name: 'x' }, spec: { managementPolicy: 'unmanaged', cloudCredentialsRef: { cloudName: 'a', secretName: 'b' } } };
  t.match(admit(unmanagedWithoutImport)!.errors.join(), /import must be specified/, 'CEL rules naming a reserved word (import) are evaluated');
  const badMethod = { apiVersion: 'openstack.k-orc.cloud/v1alpha1', kind: 'ApplicationCredential', metadata: { name: 'x' }, spec: { cloudCredentialsRef: { cloudName: 'a', secretName: 'b' }, resource: { userRef: 'u', secretRef: 's', accessRules: [{ method: 'get' }] } } };
  t.ok(admit(badMethod)!.errors.length > 0, 'a lower-case method is refused by K-ORC');
  t.same(secretErrors({ type: 'Opaque', stringData: {}, data: { a: 'not base64!' } }).length, 2);
});
