// Scheduled rotation (issue 19): the roles of two admin ACs (credential/slots.ts) and
// status.adminApplicationCredential with a superseded credential (credential/credential-status.ts).
import t from 'tap';
import { ObjectIndex } from '../src/k8s/observed.js';
import { adminCredentials, publishedCredential } from '../src/controlplane/credential/slots.js';
import { credentialStatus } from '../src/controlplane/credential/credential-status.js';
import { DAY_MS, type Schedule } from '../src/controlplane/credential/schedule.js';

const cp = { name: 'cp', namespace: 'ns', uid: 'u', generation: 1 };
const S: Schedule = { intervalMs: 30 * DAY_MS, preRotationMs: 7 * DAY_MS, graceMs: DAY_MS, source: 's' };
const ac = (name: string, id: string | undefined, annotations: Record<string, string>, created: string, expiresAt?: string) => ({
  apiVersion: 'openstack.k-orc.cloud/v1alpha1',
  kind: 'ApplicationCredential',
  metadata: { name, namespace: 'ns', creationTimestamp: created, annotations },
  spec: { resource: { name: `${name}-x`, unrestricted: false, ...(expiresAt ? { expiresAt } : {}) } },
  status: id ? { id, conditions: [{ type: 'Available', status: 'True' }, { type: 'Progressing', status: 'False' }] } : { conditions: [{ type: 'Available', status: 'False' }] },
});
const secret = (name: string, value: string) => ({ apiVersion: 'v1', kind: 'Secret', metadata: { name, namespace: 'ns' }, data: { value: Buffer.from(value).toString('base64') } });
const index = (...objs: object[]) => {
  const map: Record<string, Record<string, object>> = {};
  for (const o of objs as { apiVersion: string; kind: string; metadata: { name: string } }[]) {
    const key = `${o.kind}.${o.apiVersion}`;
    (map[key] ??= {})[`ns/${o.metadata.name}`] = o;
  }
  return new ObjectIndex(map, 'ns');
};
const A = 'cp-admin-app-credential';
const B = 'cp-admin-app-credential-b';

t.test('roles: one live AC is published; two: the lower sequence is published until it is superseded and the newer is minted', async (t) => {
  const a = ac(A, 'ac-1', {}, '2026-01-01T00:00:00Z', '2026-01-31T00:00:00Z');
  t.equal(adminCredentials(cp, index(a)).published?.name, A);
  const bPending = ac(B, undefined, { 'c5c3.io/rotation-sequence': '1' }, '2026-01-24T00:00:00Z', '2026-02-23T00:00:00Z');
  t.match(adminCredentials(cp, index(a, bPending)), { published: { name: A }, replacement: { name: B } });
  const bMinted = ac(B, 'ac-2', { 'c5c3.io/rotation-sequence': '1' }, '2026-01-24T00:00:00Z', '2026-02-23T00:00:00Z');
  t.match(adminCredentials(cp, index(a, bMinted)), { published: { name: A }, replacement: { name: B } }, 'minted but not switched yet');
  const aSuperseded = ac(A, 'ac-1', { 'c5c3.io/superseded-at': '2026-01-24T00:01:00Z' }, '2026-01-01T00:00:00Z', '2026-01-31T00:00:00Z');
  t.match(adminCredentials(cp, index(aSuperseded, bMinted)), { published: { name: B }, superseded: { name: A } });
  t.match(adminCredentials(cp, index(aSuperseded, bPending)), { published: { name: A }, replacement: { name: B } }, 'a superseded mark never publishes a credential without an id');
  // Next rotation: A (sequence 2) replaces B (sequence 1), whatever the slot order.
  const aNext = ac(A, undefined, { 'c5c3.io/rotation-sequence': '2' }, '2026-02-16T00:00:00Z', '2026-03-18T00:00:00Z');
  t.match(adminCredentials(cp, index(aNext, bMinted)), { published: { name: B }, replacement: { name: A } });
  t.same(publishedCredential(cp, index(aNext, bMinted, secret(B, 'secret-b'))), { name: B, id: 'ac-2', value: 'secret-b', ac: bMinted });
});

t.test('status: expiresAt, rotationEligibleAt, the superseded credential with its revoke time; lastRotation moves at the switch', async (t) => {
  const aSuperseded = ac(A, 'ac-1', { 'c5c3.io/superseded-at': '2026-01-24T00:00:00Z' }, '2026-01-01T00:00:00Z', '2026-01-31T00:00:00Z');
  const b = ac(B, 'ac-2', { 'c5c3.io/rotation-sequence': '1' }, '2026-01-23T23:00:00Z', '2026-02-22T23:00:00Z');
  const now = new Date('2026-01-24T00:00:05Z');
  const previous = { id: 'ac-1', restricted: true, lastRotation: '2026-01-01T00:00:00Z' };
  t.same(credentialStatus(cp, index(aSuperseded, b), previous, () => now, S), {
    id: 'ac-2',
    restricted: true,
    lastRotation: '2026-01-24T00:00:05.000Z'.replace('.000Z', 'Z'),
    expiresAt: '2026-02-22T23:00:00Z',
    rotationEligibleAt: '2026-02-15T23:00:00Z',
    superseded: { id: 'ac-1', revokeAt: '2026-01-25T00:00:00Z' },
  });
  const alone = credentialStatus(cp, index(b), { id: 'ac-2', restricted: true, lastRotation: '2026-01-24T00:00:05Z' }, () => new Date('2026-01-26T00:00:00Z'), S);
  t.notOk(alone?.superseded, 'gone once revoked');
  t.equal(alone?.lastRotation, '2026-01-24T00:00:05Z', 'kept while the id stays');
  t.notOk(credentialStatus(cp, index(b), undefined, () => now)?.rotationEligibleAt, 'no schedule, no rotationEligibleAt');
});
