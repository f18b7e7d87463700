// planMint (credential/mint.ts), the admin credential's mint decision, as a table: one row per
// situation, the facts that make it and the plan expected. Pure: no HTTP, no world.
import t from 'tap';
import { planMint, type MintFacts, type MintPlan } from '../../src/controlplane/credential/mint.js';
import { managedResource } from '../../src/controlplane/credential/application-credential.js';
import { ANNOTATION } from '../../src/controlplane/names.js';
import { sha256Hex } from '../../src/k8s/secret.js';
import type { KubeObject } from '../../src/k8s/observed.js';
import type { LatchedRequest } from '../../src/controlplane/credential/rotation-requests.js';

const CP = 'cp';
const VALUE = 'secret-one';
const PW = sha256Hex('password-one');
const want = managedResource(CP, true, []);

function ac(annotations: Record<string, string | undefined> = {}, extra: { deletionTimestamp?: string; resource?: Record<string, unknown> } = {}): KubeObject {
  const base: Record<string, string | undefined> = {
    [ANNOTATION.passwordHash]: PW,
    [ANNOTATION.secretHash]: sha256Hex(VALUE),
    [ANNOTATION.rotationRequests]: '',
    ...annotations,
  };
  const metadata: KubeObject['metadata'] = {
    name: `${CP}-admin-app-credential`,
    namespace: 'ns',
    creationTimestamp: '2026-11-01T00:00:00Z',
    annotations: Object.fromEntries(Object.entries(base).filter((e): e is [string, string] => e[1] !== undefined)),
  };
  if (extra.deletionTimestamp) metadata.deletionTimestamp = extra.deletionTimestamp;
  return {
    apiVersion: 'openstack.k-orc.cloud/v1alpha1',
    kind: 'ApplicationCredential',
    metadata,
    spec: { resource: { unrestricted: false, userRef: want.userRef, secretRef: want.secretRef, ...extra.resource } },
  };
}

const request = (uid: string, generation: number, latchedAt?: string): LatchedRequest => ({ key: `${uid}/${generation}`, legacyKey: `rotate/${generation}`, name: 'rotate', generation, latchedAt });

const facts = (f: Partial<MintFacts>): MintFacts => ({
  live: ac(),
  observedValue: VALUE,
  mintedSecretHash: sha256Hex(VALUE),
  passwordHash: PW,
  mode: 'PasswordDriven',
  want,
  requests: [],
  ...f,
});

type Row = [situation: string, facts: MintFacts, expected: Partial<MintPlan> & { kind: MintPlan['kind'] }, reason?: RegExp];

const rows: Row[] = [
  ['converged: keep', facts({}), { kind: 'keep', value: VALUE, notes: [], unknown: [] }],
  ['no value observed: re-mint', facts({ observedValue: undefined }), { kind: 'remint' }, /has no value/],
  ['value differs from the minted one: re-mint', facts({ observedValue: 'tampered' }), { kind: 'remint' }, /not the one the credential was minted with/],
  ['password changed: re-mint', facts({ passwordHash: sha256Hex('password-two') }), { kind: 'remint' }, /admin password changed/],
  ['password changed, Manual: keep with a note', facts({ passwordHash: sha256Hex('password-two'), mode: 'Manual' }), { kind: 'keep' }, /Manual keeps this credential/],
  ['empty password hash (the nudge): re-mint, also in Manual', facts({ live: ac({ [ANNOTATION.passwordHash]: '' }), mode: 'Manual' }), { kind: 'remint' }, /annotation is empty/],
  ['resource drift: re-mint', facts({ live: ac({}, { resource: { unrestricted: true } }) }), { kind: 'remint' }, /spec\.resource changed \(unrestricted\)/],
  ['pending request: re-mint', facts({ requests: [request('u1', 1, '2026-11-02T00:00:00Z')] }), { kind: 'remint' }, /CredentialRotation rotate requested a re-mint \(generation 1\)/],
  ['request listed by uid: keep', facts({ live: ac({ [ANNOTATION.rotationRequests]: 'u1/1' }), requests: [request('u1', 1, '2026-11-02T00:00:00Z')] }), { kind: 'keep' }],
  ['legacy name/G listed, latched before the AC: keep', facts({ live: ac({ [ANNOTATION.rotationRequests]: 'rotate/1' }), requests: [request('u1', 1, '2026-10-01T00:00:00Z')] }), { kind: 'keep' }],
  ['legacy name/G listed, latched after the AC (re-created): re-mint', facts({ live: ac({ [ANNOTATION.rotationRequests]: 'rotate/1' }), requests: [request('u2', 1, '2026-11-02T00:00:00Z')] }), { kind: 'remint' }],
  ['an empty list is a list: a request latched before the AC but not listed is pending', facts({ requests: [request('u1', 1, '2026-10-01T00:00:00Z')] }), { kind: 'remint' }, /CredentialRotation rotate requested a re-mint/],
  ['no list (reference operator), request latched before: keep, adopted', facts({ live: ac({ [ANNOTATION.rotationRequests]: undefined }), requests: [request('u1', 1, '2026-10-01T00:00:00Z')] }), { kind: 'keep', unknown: [ANNOTATION.rotationRequests] }],
  ['no list, request latched after: re-mint', facts({ live: ac({ [ANNOTATION.rotationRequests]: undefined }), requests: [request('u1', 1, '2026-11-02T00:00:00Z')] }), { kind: 'remint' }],
  [
    'no bookkeeping at all (takeover): keep, every annotation adopted',
    facts({ live: ac({ [ANNOTATION.passwordHash]: undefined, [ANNOTATION.secretHash]: undefined, [ANNOTATION.rotationRequests]: undefined }) }),
    { kind: 'keep', unknown: [ANNOTATION.passwordHash, ANNOTATION.secretHash, ANNOTATION.rotationRequests] },
  ],
  ['Scheduled: keep; the schedule itself is the KORC stage\'s (credential/schedule.ts), no note here', facts({ mode: 'Scheduled' }), { kind: 'keep', notes: [] }],
  ['a pending re-mint held (release rollout): keep, the reasons in a note', facts({ passwordHash: sha256Hex('password-two'), holdReMint: 'a release rollout is in progress' }), { kind: 'keep' }, /a re-mint waits while a release rollout is in progress: the admin password changed/],
  ['held, but no value to keep: re-mint anyway', facts({ observedValue: undefined, holdReMint: 'a release rollout is in progress' }), { kind: 'remint' }],
  ['old AC Terminating, fresh value observed: terminating, keep that value', facts({ live: ac({}, { deletionTimestamp: '2026-11-21T11:00:00Z' }), observedValue: 'fresh', mintedSecretHash: sha256Hex(VALUE) }), { kind: 'terminating', value: 'fresh', since: '2026-11-21T11:00:00Z' }],
  ['old AC Terminating, used value observed: terminating, no value kept', facts({ live: ac({}, { deletionTimestamp: '2026-11-21T11:00:00Z' }) }), { kind: 'terminating', value: undefined }],
  ['no AC, no value: mint with a fresh one', facts({ live: undefined, observedValue: undefined }), { kind: 'mint', value: undefined }],
  ['no AC, unused value: mint with it (one pass)', facts({ live: undefined, observedValue: 'fresh' }), { kind: 'mint', value: 'fresh' }],
  ['no AC, the value was used: write a fresh one first', facts({ live: undefined }), { kind: 'await-secret' }],
];

for (const [situation, f, expected, reason] of rows) {
  t.test(situation, async (t) => {
    const plan = planMint(f);
    t.match(plan, expected);
    if (reason) {
      const text = plan.kind === 'remint' ? plan.reasons.join('; ') : plan.kind === 'keep' ? plan.notes.join('; ') : '';
      t.match(text, reason);
    }
    t.same(planMint(structuredClone(f)), plan, 'deterministic');
  });
}
