// Stage 5, KORCReady: every row of the KORCReady contract table (docs/architecture.md §7.3), the password cloud, the
// imports, the first mint, and every re-mint path (docs/architecture.md §3.2), at the HTTP level.
import t from 'tap';
import { testServer } from './support/server.js';
import { ADMIN_PASSWORD, adminPasswordSecret, applyResponse, b64, clusterSecretStore, healthy, orcStatus, type StatusOf } from './support/world.js';
import { converge, conditionOf, managedCP, step, sync, type World } from './support/sync.js';
import { acOf, appCredential, cloudsOf, find, names, secretValues, sha256, withChild } from './support/korc.js';
import type { Obj } from './support/shared.js';

const N = names();
const acPending: StatusOf = (c, g) => (c.kind === 'ApplicationCredential' ? orcStatus(g, { available: false, message: 'Waiting for User to be ready' }) : healthy(c, g));
const terminatingAt = (world: World, at: string): Obj[] =>
  withChild(world.children, 'ApplicationCredential', (c) => ({ ...c, metadata: { ...c.metadata, deletionTimestamp: at } }));
const withoutAc = (children: Obj[]) => children.filter((c) => c.kind !== 'ApplicationCredential');
/** The children after Metacontroller applied `res` to `world` (K-ORC and ESO healthy). */
const applyAll = (world: World, res: { children: Obj[] }): Obj[] => applyResponse(res.children, world.parent, healthy, world.children);
const relatedWithPassword = (world: World, password: string) => [
  ...world.related.filter((r) => !r.metadata.name.endsWith('-admin-credentials')),
  adminPasswordSecret(world.parent, password),
];

t.test('WaitingForAdminPassword: no K-ORC child is created until the password is readable', async (t) => {
  const { app } = await testServer();
  t.teardown(() => app.close());
  const world = await converge(app, managedCP(), [clusterSecretStore()], healthy, null);
  const korc = conditionOf(world.response.status, 'KORCReady');
  t.match(korc, { status: 'False', reason: 'WaitingForAdminPassword', message: /Secret controlplane-keystone-keystone-admin-credentials does not exist yet/ });
  t.equal(world.response.resyncAfterSeconds, 10);
  t.notOk(world.response.children.some((c: Obj) => c.apiVersion.startsWith('openstack.k-orc.cloud') || c.kind === 'Secret' || c.kind === 'PushSecret'));
  t.notOk(conditionOf(world.response.status, 'AdminCredentialReady'), 'the chain stops at KORC');
  // The Secret exists without the key.
  const noKey = [...world.related, { ...adminPasswordSecret(world.parent), data: { other: b64('x') } }];
  const res = await sync(app, world.parent, world.children, noKey);
  t.match(conditionOf(res.status, 'KORCReady'), { reason: 'WaitingForAdminPassword', message: /has no key "password"/ });
});

t.test('first mint in one pass: the AC comes with the answer that first writes its secret; ApplicationCredentialMinted', async (t) => {
  const { app } = await testServer();
  t.teardown(() => app.close());
  // Everything up to Keystone converged, K-ORC has not been reached yet.
  const before = await converge(app, managedCP(), [clusterSecretStore()], healthy, null);
  t.notOk(find(before.response.children, 'Secret', N.ac), 'no app-credential Secret yet');
  const second = await step(app, before, acPending);
  const ac = acOf(second.response.children)!;
  t.ok(ac, 'the AC is in the same answer that writes the Secret (K-ORC waits for the Secret on its own)');
  const value = appCredential(second.response.children).value!;
  t.match(value, /^[A-Za-z0-9_-]{43}$/, '32 random bytes, base64url');
  t.match(conditionOf(second.response.status, 'KORCReady'), { reason: 'WaitingForApplicationCredential', message: /is being created/ });
  t.same(ac.metadata.labels, { 'c5c3.io/controlplane': 'controlplane-keystone', 'c5c3.io/credential': 'admin-application-credential' });
  t.same(ac.metadata.annotations, { 'forge.c5c3.io/admin-password-hash': sha256(ADMIN_PASSWORD), 'c5c3.io/secret-sha256': sha256(value), 'c5c3.io/rotation-requests': '' });
  t.same(ac.spec, {
    cloudCredentialsRef: { cloudName: 'admin', secretName: N.passwordCloud },
    managementPolicy: 'managed',
    resource: {
      name: `${N.ac}-${sha256(value).slice(0, 8)}`,
      description: 'c5c3 admin credential of ControlPlane openstack/controlplane-keystone',
      userRef: N.user,
      secretRef: N.ac,
      unrestricted: false,
    },
  });
  t.equal(find(second.response.children, 'Secret', N.ac)!.metadata.annotations['c5c3.io/minted-secret-sha256'], sha256(value), 'the secret is recorded as used');
  const first = second;

  const pending = await step(app, second, acPending);
  // K-ORC's own Progressing message says what it waits for (e.g. "Waiting for Service/identity to be created").
  t.match(conditionOf(pending.response.status, 'KORCReady'), { reason: 'WaitingForApplicationCredential', message: /is not yet Available with an id: Waiting for User to be ready/ });
  t.same(acOf(pending.response.children), ac, 'the AC is kept as it is while K-ORC mints');
  t.equal(appCredential(pending.response.children)['clouds.yaml'], appCredential(first.response.children)['clouds.yaml'], 'the password cloud until there is an id');

  const minted = await step(app, { ...pending, children: withChild(pending.children, 'ApplicationCredential', (c) => ({ ...c, status: healthy(c, c.metadata.generation) })) });
  const korc = conditionOf(minted.response.status, 'KORCReady');
  t.match(korc, { status: 'True', reason: 'ApplicationCredentialMinted', message: new RegExp(`id-${N.ac}-`) });
  const clouds = cloudsOf(find(minted.response.children, 'Secret', N.ac));
  t.same(clouds, {
    clouds: {
      admin: {
        auth: { auth_url: 'http://controlplane-keystone-keystone.openstack.svc:5000/v3', application_credential_id: `id-${ac.spec.resource.name}`, application_credential_secret: value },
        auth_type: 'v3applicationcredential',
        endpoint_type: 'internal',
        identity_api_version: 3,
        region_name: 'RegionOne',
      },
    },
  });
  t.same(minted.response.status.adminApplicationCredential, { id: `id-${ac.spec.resource.name}`, restricted: true, lastRotation: '2026-11-21T12:00:00Z' });
});

t.test('the password cloud and the imports; cloudName honoured in every clouds.yaml', async (t) => {
  const { app } = await testServer();
  t.teardown(() => app.close());
  const cp = managedCP();
  cp.spec.region = 'RegionTwo';
  cp.spec.korc.adminCredential.cloudCredentialsRef = { cloudName: 'orc-admin', secretName: 'orc-clouds' };
  const world = await converge(app, cp);
  t.match(conditionOf(world.response.status, 'Ready'), { status: 'True' }, 'converges with a non-default cloud name and Secret');
  const pwCloud = cloudsOf(find(world.response.children, 'Secret', N.passwordCloud));
  t.same(pwCloud, {
    clouds: {
      'orc-admin': {
        auth: {
          auth_url: 'http://controlplane-keystone-keystone.openstack.svc:5000/v3',
          username: 'admin',
          password: ADMIN_PASSWORD,
          project_name: 'admin',
          user_domain_name: 'Default',
          project_domain_name: 'Default',
        },
        endpoint_type: 'internal',
        identity_api_version: 3,
        region_name: 'RegionTwo',
      },
    },
  });
  t.same(Object.keys(cloudsOf(find(world.response.children, 'Secret', N.ac)).clouds), ['orc-admin'], 'the application-credential cloud too');
  t.equal(acOf(world.response.children)!.spec.cloudCredentialsRef.cloudName, 'orc-admin');
  const ref = { cloudName: 'orc-admin', secretName: 'orc-clouds' };
  t.same(find(world.response.children, 'Domain')!.spec, { cloudCredentialsRef: ref, managementPolicy: 'unmanaged', import: { filter: { name: 'Default' } } });
  t.same(find(world.response.children, 'User')!.spec, { cloudCredentialsRef: ref, managementPolicy: 'unmanaged', import: { filter: { name: 'admin', domainRef: N.domain } } });
  t.equal(find(world.response.children, 'User')!.metadata.name, 'controlplane-keystone-user-admin', 'K8s name per ControlPlane, OpenStack name admin');
  t.ok(find(world.response.children, 'ExternalSecret', 'orc-clouds'), 'the clouds.yaml ExternalSecret is named by secretName');
  for (const kind of ['Service', 'Endpoint']) t.same(find(world.response.children, kind)!.spec.cloudCredentialsRef, ref);
});

t.test('ApplicationCredentialFailed on a terminal K-ORC error at the current generation only', async (t) => {
  const { app } = await testServer();
  t.teardown(() => app.close());
  const world = await converge(app, managedCP(), [clusterSecretStore()], acPending);
  const terminal = (generation: number) =>
    withChild(world.children, 'ApplicationCredential', (c) => ({ ...c, status: orcStatus(generation, { available: false, reason: 'InvalidConfiguration', message: 'invalid configuration creating resource: 400' }) }));
  const res = await sync(app, world.parent, terminal(1), world.related);
  t.match(conditionOf(res.status, 'KORCReady'), { status: 'False', reason: 'ApplicationCredentialFailed', message: /InvalidConfiguration: invalid configuration creating resource: 400/ });
  t.equal(res.resyncAfterSeconds, 10);
  t.ok(acOf(res.children), 'the failed AC is kept');
  const stale = withChild(terminal(1), 'ApplicationCredential', (c) => ({ ...c, metadata: { ...c.metadata, generation: 2 } }));
  const res2 = await sync(app, world.parent, stale, world.related);
  t.match(conditionOf(res2.status, 'KORCReady'), { reason: 'WaitingForApplicationCredential' }, 'a terminal reason of an older generation is ignored');
});

t.test('WaitingForApplicationCredential names the stuck import', async (t) => {
  const { app } = await testServer();
  t.teardown(() => app.close());
  const statusOf: StatusOf = (c, g) =>
    c.kind === 'User' ? orcStatus(g, { available: false, message: 'Waiting for OpenStack resource to be created externally' }) : acPending(c, g);
  const world = await converge(app, managedCP(), [clusterSecretStore()], statusOf);
  t.match(conditionOf(world.response.status, 'KORCReady'), {
    reason: 'WaitingForApplicationCredential',
    message: /admin User import controlplane-keystone-user-admin is not yet Available: Waiting for OpenStack resource to be created externally/,
  });
  const failedDomain = withChild(world.children, 'Domain', (c) => ({ ...c, status: orcStatus(1, { available: false, reason: 'InvalidConfiguration', message: 'filter matched 2 domains' }) }));
  const res = await sync(app, world.parent, failedDomain, world.related);
  t.match(conditionOf(res.status, 'KORCReady'), { message: /Domain import controlplane-keystone-domain-default failed \(InvalidConfiguration: filter matched 2 domains\)/ });
});

t.test('re-mint on a password change: omit, fresh secret, Terminating, stalled, recreated', async (t) => {
  const { app } = await testServer();
  t.teardown(() => app.close());
  const world = await converge(app, managedCP());
  const oldAc = acOf(world.children)!;
  const oldValue = appCredential(world.response.children).value!;
  const oldPwCloud = find(world.response.children, 'Secret', N.passwordCloud)!;
  const related = relatedWithPassword(world, 'rotated-Passw0rd');

  const start = await sync(app, world.parent, world.children, related);
  t.notOk(acOf(start.children), 'the AC is left out: Metacontroller deletes it');
  t.match(conditionOf(start.status, 'KORCReady'), { status: 'False', reason: 'ReMinting', message: /the admin password changed/ });
  t.equal(start.resyncAfterSeconds, 10);
  const fresh = appCredential(start.children);
  t.not(fresh.value, oldValue, 'a fresh secret');
  t.equal(fresh['clouds.yaml'], secretValues(find(start.children, 'Secret', N.passwordCloud))['clouds.yaml'], 'the password cloud again');
  t.match(cloudsOf(find(start.children, 'Secret', N.passwordCloud)).clouds.admin.auth, { password: 'rotated-Passw0rd' }, 'the password cloud follows the live password');
  t.not(JSON.stringify(find(start.children, 'Secret', N.passwordCloud)), JSON.stringify(oldPwCloud));
  t.equal(find(start.children, 'Secret', N.ac)!.metadata.annotations['c5c3.io/minted-secret-sha256'], sha256(oldValue), 'the old secret stays recorded as used');

  // Metacontroller deleted it; K-ORC's finalizer holds it while it revokes.
  const deleting = { ...oldAc, metadata: { ...oldAc.metadata, deletionTimestamp: '2026-11-21T11:58:00Z' } };
  const applied = { ...world, related, children: [...applyAll(world, start), deleting] };
  const terminating = await sync(app, world.parent, applied.children, related);
  t.notOk(acOf(terminating.children), 'still left out while Terminating');
  t.match(conditionOf(terminating.status, 'KORCReady'), { reason: 'ReMinting', message: /waiting for ApplicationCredential .* to be deleted/ });
  t.equal(appCredential(terminating.children).value, fresh.value, 'the fresh secret is kept');

  const stalledChildren = withChild(applied.children, 'ApplicationCredential', (c) => ({ ...c, metadata: { ...c.metadata, deletionTimestamp: '2026-11-21T11:54:59Z' } }));
  const stalled = await sync(app, world.parent, stalledChildren, related);
  t.match(conditionOf(stalled.status, 'KORCReady'), { status: 'False', reason: 'ReMintStalled', message: /Terminating for 5 minutes/ });
  const edge = withChild(applied.children, 'ApplicationCredential', (c) => ({ ...c, metadata: { ...c.metadata, deletionTimestamp: '2026-11-21T11:55:00Z' } }));
  t.match(conditionOf((await sync(app, world.parent, edge, related)).status, 'KORCReady'), { reason: 'ReMinting' }, 'exactly 5 minutes is not stalled yet');

  const gone = await sync(app, world.parent, withoutAc(applied.children), related);
  const newAc = acOf(gone.children)!;
  t.ok(newAc, 'recreated once gone');
  t.equal(newAc.metadata.annotations['forge.c5c3.io/admin-password-hash'], sha256('rotated-Passw0rd'), 'stamped with the new hash');
  t.equal(newAc.metadata.annotations['c5c3.io/secret-sha256'], sha256(fresh.value!));
  t.not(newAc.spec.resource.name, oldAc.spec.resource.name, 'a new OpenStack-side name per mint');

  // K-ORC mints it: new id, lastRotation moves.
  const later = await converge(app, { ...world.parent, status: gone.status }, related.filter((r) => r.metadata.name !== 'k-orc-clouds-yaml'), healthy, 'rotated-Passw0rd', applyAll({ ...world, children: withoutAc(applied.children) }, gone));
  t.match(conditionOf(later.response.status, 'Ready'), { status: 'True' });
  t.not(later.response.status.adminApplicationCredential.id, world.response.status.adminApplicationCredential.id);
});


t.test('rotation modes: Manual keeps the credential on a password change; Scheduled without a schedule says so and behaves as PasswordDriven', async (t) => {
  const { app } = await testServer();
  t.teardown(() => app.close());
  const cp = managedCP();
  cp.spec.korc.adminCredential.applicationCredential.rotation.mode = 'Manual';
  const world = await converge(app, cp);
  const related = relatedWithPassword(world, 'rotated-Passw0rd');
  const res = await sync(app, world.parent, world.children, related);
  t.same(acOf(res.children)!.metadata.annotations, acOf(world.response.children)!.metadata.annotations, 'kept, old hash echoed');
  t.match(conditionOf(res.status, 'KORCReady'), { status: 'True', reason: 'ApplicationCredentialMinted', message: /rotation mode Manual keeps this credential/ });
  t.match(cloudsOf(find(res.children, 'Secret', N.passwordCloud)).clouds.admin.auth, { password: 'rotated-Passw0rd' }, 'the password cloud is re-rendered');
  // An empty hash is a mismatch in every mode.
  const nudged = withChild(world.children, 'ApplicationCredential', (c) => ({ ...c, metadata: { ...c.metadata, annotations: { ...c.metadata.annotations, 'forge.c5c3.io/admin-password-hash': '' } } }));
  const res2 = await sync(app, world.parent, nudged, world.related);
  t.notOk(acOf(res2.children));
  t.match(conditionOf(res2.status, 'KORCReady'), { reason: 'ReMinting', message: /forge\.c5c3\.io\/admin-password-hash annotation is empty/ });

  const scheduled = managedCP();
  scheduled.spec.korc.adminCredential.applicationCredential.rotation.mode = 'Scheduled';
  const w2 = await converge(app, scheduled);
  t.match(conditionOf(w2.response.status, 'KORCReady'), { status: 'True', message: /rotation mode Scheduled without a CredentialRotation declaring intervalDays: the credential rotates as in PasswordDriven/ });
  t.notOk(acOf(w2.response.children)!.spec.resource.expiresAt, 'no schedule, no expiry');
  const res3 = await sync(app, w2.parent, w2.children, relatedWithPassword(w2, 'rotated-Passw0rd'));
  t.match(conditionOf(res3.status, 'KORCReady'), { reason: 'ReMinting' }, 'Scheduled re-mints on a password change');
});

t.test('re-mint on drift of the managed resource fields; never a changed resource on a live AC', async (t) => {
  const { app } = await testServer();
  t.teardown(() => app.close());
  const world = await converge(app, managedCP());
  const liveResource = acOf(world.children)!.spec.resource;
  const variants: [string, (spec: Obj) => void, RegExp][] = [
    ['restricted false', (s) => (s.korc.adminCredential.applicationCredential.restricted = false), /spec\.resource changed \(unrestricted\)/],
    ['access rules', (s) => (s.korc.adminCredential.applicationCredential.accessRules = [{ service: 'identity', method: 'get', path: '/v3/users' }]), /spec\.resource changed \(accessRules\)/],
  ];
  for (const [name, edit, reason] of variants) {
    const parent = structuredClone(world.parent);
    edit(parent.spec);
    parent.metadata.generation = 2;
    const res = await sync(app, parent, world.children, world.related);
    t.notOk(acOf(res.children), `${name}: left out for re-mint`);
    t.match(conditionOf(res.status, 'KORCReady'), { reason: 'ReMinting', message: reason }, name);
    const next = await sync(app, parent, withoutAc(applyResponse(res.children, parent, healthy, world.children)), world.related);
    const ac = acOf(next.children)!;
    if (name === 'restricted false') t.equal(ac.spec.resource.unrestricted, true, 'minted unrestricted');
    else t.same(ac.spec.resource.accessRules, [{ method: 'GET', path: '/v3/users', serviceRef: 'identity' }], 'access rules in K-ORC shape');
  }
  // A K-ORC-defaulted field on the live resource is not drift.
  const defaulted = withChild(world.children, 'ApplicationCredential', (c) => ({ ...c, spec: { ...c.spec, resource: { ...c.spec.resource, roleRefs: [] } } }));
  const res = await sync(app, world.parent, defaulted, world.related);
  t.same(acOf(res.children)!.spec.resource, { ...liveResource, roleRefs: [] }, 'kept with the live resource, never rewritten');
  t.match(conditionOf(res.status, 'KORCReady'), { status: 'True' });
});

t.test('re-mint on a pending CredentialRotation request; honoured once; latched before the first mint costs nothing', async (t) => {
  const { app } = await testServer();
  t.teardown(() => app.close());
  const request = (generation: number, uid = 'uid-cr-1'): Obj => ({
    apiVersion: 'c5c3.io/v1alpha1', kind: 'CredentialRotation',
    metadata: { name: 'rotate-admin', namespace: 'openstack', uid, generation },
    spec: { target: 'adminApplicationCredential', reMint: true },
    status: { lastTriggeredGeneration: generation },
  });
  const world = await converge(app, managedCP(), [clusterSecretStore(), request(1)]);
  t.equal(acOf(world.children)!.metadata.annotations['c5c3.io/rotation-requests'], 'uid-cr-1/1', 'the first mint lists the request latched before it');
  t.match(conditionOf(world.response.status, 'Ready'), { status: 'True' }, 'and no extra re-mint');

  const base = [clusterSecretStore(), request(2)];
  const res = await sync(app, world.parent, world.children, [...base, ...world.related.filter((r) => r.kind === 'Secret')]);
  t.notOk(acOf(res.children), 'a new request starts a re-mint');
  t.match(conditionOf(res.status, 'KORCReady'), { reason: 'ReMinting', message: /CredentialRotation rotate-admin requested a re-mint \(generation 2\)/ });
  const after = await converge(app, { ...world.parent, status: res.status }, base, healthy, ADMIN_PASSWORD, withoutAc(applyResponse(res.children, world.parent, healthy, world.children)));
  t.equal(acOf(after.children)!.metadata.annotations['c5c3.io/rotation-requests'], 'uid-cr-1/2');
  t.match(conditionOf(after.response.status, 'Ready'), { status: 'True' }, 'honoured once, never replayed');
  const other = { apiVersion: 'c5c3.io/v1alpha1', kind: 'CredentialRotation', metadata: { name: 'other-ns', namespace: 'elsewhere', uid: 'u9' }, spec: { target: 'adminApplicationCredential' }, status: { lastTriggeredGeneration: 5 } };
  const ignored = await sync(app, after.parent, after.children, [...after.related, other, { ...request(0, 'uid-cr-2'), metadata: { ...request(0).metadata, uid: 'uid-cr-2', name: 'unlatched' } }]);
  t.ok(acOf(ignored.children), 'requests of other namespaces and unlatched ones are not requests');
});

t.test('a secret is used once: lost or changed behind a live AC, with nothing proving the minted one, re-mints; a used one is never minted again', async (t) => {
  const { app } = await testServer();
  t.teardown(() => app.close());
  const world = await converge(app, managedCP());
  const oldValue = appCredential(world.response.children).value!;
  // Nothing to put back (test/minted-secret.test.ts has the Secret repaired when something proves
  // it): no last-applied content, no materialised clouds.yaml.
  const unproven = (c: Obj) => ({ ...c, metadata: { ...c.metadata, annotations: {} } });
  const related = world.related.filter((r) => !(r.kind === 'Secret' && r.metadata.name === 'k-orc-clouds-yaml'));
  const lost = withChild(world.children, 'Secret', (c) => unproven({ ...c, data: { 'clouds.yaml': c.data['clouds.yaml'] } }), N.ac);
  const res = await sync(app, world.parent, lost, related);
  t.notOk(acOf(res.children));
  t.match(conditionOf(res.status, 'KORCReady'), { reason: 'ReMinting', message: /has no value/ });
  const changed = withChild(world.children, 'Secret', (c) => unproven({ ...c, data: { ...c.data, value: b64('someone-else') } }), N.ac);
  t.match(conditionOf((await sync(app, world.parent, changed, related)).status, 'KORCReady'), { reason: 'ReMinting', message: /not the one the credential was minted with/ });

  // The response that started the re-mint was not applied to the Secret (a conflict): the AC is
  // Terminating and the Secret still holds the used secret.
  const stuck = terminatingAt(world, '2026-11-21T11:59:00Z');
  const t1 = await sync(app, world.parent, stuck, world.related);
  t.not(appCredential(t1.children).value, oldValue, 'regenerated while Terminating');
  const gone = await sync(app, world.parent, withoutAc(world.children), world.related);
  t.notOk(acOf(gone.children), 'the AC is gone but its secret was used: no mint with it');
  t.match(conditionOf(gone.status, 'KORCReady'), { reason: 'ReMinting', message: /fresh secret/ });
  t.not(appCredential(gone.children).value, oldValue);
});

t.test('InvalidSpec for an access rule K-ORC would refuse; lower-case methods are accepted', async (t) => {
  const { app } = await testServer();
  t.teardown(() => app.close());
  const cp = managedCP();
  cp.spec.korc.adminCredential.applicationCredential.accessRules = [{ service: 'identity', method: 'FETCH', path: '/v3' }];
  const world = await converge(app, cp);
  t.match(conditionOf(world.response.status, 'KORCReady'), { status: 'False', reason: 'InvalidSpec', message: /accessRules\[0\]\.method: must be one of CONNECT/ });
  t.notOk(acOf(world.response.children));
});

t.test('InvalidSpec for two access rules on one path: Metacontroller would merge them into one (found with the real Metacontroller and K-ORC)', async (t) => {
  const { app } = await testServer();
  t.teardown(() => app.close());
  const cp = managedCP();
  cp.spec.korc.adminCredential.applicationCredential.accessRules = [
    { service: 'identity', method: 'GET', path: '/v3/**' },
    { service: 'identity', method: 'POST', path: '/v3/services' },
    { service: 'identity', method: 'DELETE', path: '/v3/**' },
  ];
  const world = await converge(app, cp);
  t.match(conditionOf(world.response.status, 'KORCReady'), { status: 'False', reason: 'InvalidSpec', message: /accessRules\[2\]\.path: "\/v3\/\*\*" is the path of accessRules\[0\] too/ });
  t.notOk(acOf(world.response.children), 'nothing minted with rules Metacontroller could not keep');
  cp.spec.korc.adminCredential.applicationCredential.accessRules[2].path = '/v3/services/*';
  const fixed = await converge(app, cp);
  t.ok(acOf(fixed.response.children), 'distinct paths: minted');
  t.same(acOf(fixed.response.children)!.spec.resource.accessRules.map((r: Obj) => r.path), ['/v3/**', '/v3/services', '/v3/services/*']);
});
