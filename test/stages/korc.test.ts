// Stage 5, KORC → KORCReady, called directly on a converged world, then changed.
import t from 'tap';
import { korcStage } from '../../src/controlplane/stages/korc.js';
import { identity } from '../../src/k8s/observed.js';
import { managedCP } from '../support/sync.js';
import { adminPasswordSecret, clusterSecretStore } from '../support/world.js';
import { appCredential, names, sha256 } from '../support/korc.js';
import { convergedWorld, emitted, run, type StageWorld } from '../support/stage.js';
import type { Obj } from '../support/shared.js';

const n = names();
const isAc = (o: Obj) => o.kind === 'ApplicationCredential';
const withPassword = (w: StageWorld, password: string): StageWorld => ({
  ...w,
  related: [...w.related.filter((r) => !(r.kind === 'Secret' && r.metadata.name === adminPasswordSecret(w.parent).metadata.name)), adminPasswordSecret(w.parent, password)],
});

const converged = convergedWorld(managedCP());

t.test('converged: the minted credential is kept, KORCReady True, the whole chain emitted', async (t) => {
  const r = run(korcStage, converged);
  t.match(r.condition, { status: 'True', reason: 'ApplicationCredentialMinted', message: /^ApplicationCredential controlplane-keystone-admin-app-credential minted \(id id-/ });
  t.same(r.outcome, { kind: 'complete' });
  t.same(emitted(r), [
    `ApplicationCredential/${n.ac}`,
    `Domain/${n.domain}`,
    'ExternalSecret/k-orc-clouds-yaml',
    `PushSecret/${n.push}`,
    `Secret/${n.ac}`,
    `Secret/${n.passwordCloud}`,
    `User/${n.user}`,
  ]);
  t.notOk(r.releases);
  const live = converged.children.find(isAc)!;
  t.same(r.children.find(isAc)!.spec, live.spec, 'the live AC as it is');
});

t.test('no readable admin password: WaitingForAdminPassword, nothing emitted (observed children are kept by the pipeline)', async (t) => {
  const w = { ...converged, related: converged.related.filter((r) => r.metadata.name !== adminPasswordSecret(converged.parent).metadata.name) };
  const r = run(korcStage, w);
  t.match(r.condition, { status: 'False', reason: 'WaitingForAdminPassword' });
  t.same(r.children, []);
});

t.test('the admin password changed: ReMinting releases exactly the AC and writes a fresh secret', async (t) => {
  const live = converged.children.find(isAc)!;
  const before = appCredential(converged.children).value!;
  const r = run(korcStage, withPassword(converged, 'a-new-Passw0rd'));
  t.match(r.condition, { status: 'False', reason: 'ReMinting', message: /the admin password changed/ });
  t.same(r.releases, [identity(live as Parameters<typeof identity>[0])]);
  t.notOk(r.children.find(isAc), 'the AC is left out: Metacontroller deletes it');
  const value = appCredential(r.children).value!;
  t.not(value, before, 'a secret never used before');
  t.equal(sha256(value).length, 64);
});

t.test('Manual mode: a password change keeps the credential and says so', async (t) => {
  const parent = structuredClone(converged.parent);
  parent.spec.korc.adminCredential.applicationCredential = { ...parent.spec.korc.adminCredential.applicationCredential, rotation: { mode: 'Manual' } };
  const r = run(korcStage, withPassword({ ...converged, parent }, 'a-new-Passw0rd'));
  t.match(r.condition, { status: 'True', reason: 'ApplicationCredentialMinted', message: /rotation mode Manual keeps this credential/ });
  t.notOk(r.releases);
});

t.test('the old AC Terminating: ReMinting while it goes, ReMintStalled after 5 minutes', async (t) => {
  const children = converged.children.map((c) => (isAc(c) ? { ...c, metadata: { ...c.metadata, deletionTimestamp: '2026-11-21T11:58:00Z' } } : c));
  const w = { ...converged, children };
  const r = run(korcStage, w);
  t.match(r.condition, { status: 'False', reason: 'ReMinting', message: /waiting for ApplicationCredential .* to be deleted/ });
  t.notOk(r.children.find(isAc));
  const late = run(korcStage, w, { now: new Date('2026-11-21T12:04:01Z') });
  t.match(late.condition, { status: 'False', reason: 'ReMintStalled', message: /Terminating for 6 minutes/ });
});

t.test('an empty cloudName: InvalidSpec naming the field, nothing emitted', async (t) => {
  const parent = structuredClone(converged.parent);
  parent.spec.korc.adminCredential.cloudCredentialsRef.cloudName = '';
  const r = run(korcStage, { ...converged, parent });
  t.match(r.condition, { status: 'False', reason: 'InvalidSpec', message: /spec\.korc\.adminCredential\.cloudCredentialsRef\.cloudName/ });
  t.same(r.children, []);
});

t.test('deterministic: same world, clock and random give the same result', async (t) => {
  t.same(run(korcStage, withPassword(converged, 'x-Passw0rd')), run(korcStage, withPassword(converged, 'x-Passw0rd')));
});

t.test('scheduled rotation: a due replacement is minted alongside, unless a release rollout holds mints', async (t) => {
  const parent = managedCP();
  parent.spec.korc.adminCredential.applicationCredential = { rotation: { mode: 'Scheduled' } };
  const schedule = {
    apiVersion: 'c5c3.io/v1alpha1',
    kind: 'CredentialRotation',
    metadata: { name: 'admin-schedule', namespace: parent.metadata.namespace, uid: 'uid-schedule' },
    spec: { target: 'adminApplicationCredential', intervalDays: 30, preRotationDays: 7, gracePeriodDays: 1 },
  };
  const world = convergedWorld(parent, undefined, [clusterSecretStore(), schedule]);
  t.equal(world.children.filter(isAc).length, 1, 'one credential at rest');
  const due = new Date(Date.parse('2026-11-21T12:00:00Z') + 24 * 86_400_000); // past expiresAt − 7 days
  const rotating = run(korcStage, world, { now: due });
  t.same(rotating.children.filter(isAc).map((c) => c.metadata.name).sort(), [n.ac, `${n.ac}-b`], 'the replacement is minted alongside');
  t.notOk(rotating.releases, 'nothing released: make-before-break');
  const held = run(korcStage, world, { now: due, input: { rollout: { holdReMint: 'a release rollout is in progress' } } });
  t.same(held.children.filter(isAc).map((c) => c.metadata.name), [n.ac], 'no replacement during the rollout');
  t.notOk(held.releases);
  t.match(held.condition, { status: 'True', message: /is due and waits while a release rollout is in progress/ });
});

t.test('an admin password that cannot be read (not a string, not base64, not UTF-8): AdminPasswordError, no value in the message', async (t) => {
  const ref = adminPasswordSecret(converged.parent);
  const key = Object.keys(ref.data)[0]!;
  const withValue = (value: unknown): StageWorld => ({
    ...converged,
    related: [...converged.related.filter((r) => !(r.kind === 'Secret' && r.metadata.name === ref.metadata.name)), { ...ref, data: { [key]: value } }],
  });
  for (const [value, why] of [
    [42, /is a number, not base64 text/],
    [{ a: 1 }, /is an object, not base64 text/],
    ['p@ss word!', /is not base64/],
    [Buffer.from([0xff, 0xfe, 0x41]).toString('base64'), /is not UTF-8 text/],
  ] as const) {
    const r = run(korcStage, withValue(value));
    t.match(r.condition, { status: 'False', reason: 'AdminPasswordError', message: why }, JSON.stringify(value));
    t.notMatch(r.condition.message, typeof value === 'string' ? value : JSON.stringify(value), 'the value is not in the message');
    t.same(r.outcome, { kind: 'failed', requeueSeconds: 10 });
    t.same(r.children, []);
  }
  t.match(run(korcStage, withValue('')).condition, { reason: 'WaitingForAdminPassword' }, 'an empty value is still a missing one');
  t.match(run(korcStage, withPassword(converged, 's3cr3t-Admin-Passw0rd')).condition, { status: 'True' }, 'a readable one is read');
});
