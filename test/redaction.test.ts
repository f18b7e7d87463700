// One redaction for everything the service writes (src/redaction.ts, docs/architecture.md §1.4),
// through every door a child's words or a secret value take: the whole status of every hook, the
// children but Secrets, the events written to the log; and without showing where a secret is when
// it is a common word (issue 41, finding 7: the admin password `Memcached` turned a message into
// "… [redacted] openstack-memcached Ready").
import t from 'tap';
import fc from 'fast-check';
import { post, testServer } from './support/server.js';
import { converge, conditionOf, managedCP } from './support/sync.js';
import { b64, clusterSecretStore, healthy, isOrc, orcStatus, readyCondition, secret, surroundings, syncRequest, type StatusOf } from './support/world.js';
import { withChild } from './support/korc.js';
import { base64Cores } from '../src/capture/secret-values.js';
import { REDACTED_VALUE, WITHHELD_MESSAGE } from '../src/redaction.js';
import type { Obj } from './support/shared.js';

/** Every string of a value, with its path. */
function strings(value: unknown, path = '', out: [string, string][] = []): [string, string][] {
  if (typeof value === 'string') out.push([path, value]);
  else if (Array.isArray(value)) value.forEach((v, i) => strings(v, `${path}[${i}]`, out));
  else if (value && typeof value === 'object') for (const [k, v] of Object.entries(value)) strings(v, `${path}.${k}`, out);
  return out;
}

const memcachedDown: StatusOf = (c, g) => (c.kind === 'Memcached' ? { conditions: [{ ...readyCondition(false), message: 'Memcached openstack-memcached has 0 of 3 pods Ready' }] } : healthy(c, g));

t.test('an admin password that is a common word: no message shows where it is', async (t) => {
  const { app } = await testServer();
  t.teardown(() => app.close());
  // The finding's two words, a name of the request, and a child quoting the password; `quoted`:
  // a child's words around the password are copied into a message (withheld whole), else the
  // messages are the hooks' own, composed from names and reasons, and stay as any other password
  // gets them (issue 55: `Memcached` withheld "MariaDB openstack-db and Memcached openstack-memcached Ready").
  const cases: [string, StatusOf, boolean][] = [
    ['Memcached', memcachedDown, true],
    ['Memcached', healthy, false],
    ['keystone', healthy, false],
    ['openstack-memcached', memcachedDown, true],
    ['Memcached', (c, g) => (c.kind === 'MariaDB' ? { conditions: [{ ...readyCondition(false), message: 'auth failed for admin:Memcached' }] } : healthy(c, g)), true],
  ];
  for (const [password, statusOf, quoted] of cases) {
    const baseline = await converge(app, managedCP(), undefined, statusOf, 'Zq8-not-a-word-2f');
    const world = await converge(app, managedCP(), undefined, statusOf, password);
    // The admin credential's id carries a hash of the password: the one part of a message that is the password's own.
    const messages = (s: Obj) => (s.conditions as Obj[]).map((c) => (c.message as string).replace(/(admin-app-credential-)[0-9a-f]{8}\b/g, '$1<hash>'));
    const structure = (s: Obj) => (s.conditions as Obj[]).map(({ message: _m, ...rest }) => rest);
    const got = messages(world.response.status);
    const plain = messages(baseline.response.status);
    t.same(structure(world.response.status), structure(baseline.response.status), `${password}: types, statuses and reasons as with any other password`);
    t.same(strings(world.response.status).filter(([, s]) => s.includes(REDACTED_VALUE) && s !== WITHHELD_MESSAGE), [], `${password}: nothing is replaced in place`);
    t.ok(got.every((m, i) => m === plain[i] || m === WITHHELD_MESSAGE), `${password}: every message is the one any other password gets, or withheld whole`);
    if (quoted) t.ok(got.includes(WITHHELD_MESSAGE), `${password}: the messages copying a child's words around it are withheld whole`);
    else t.same(got, plain, `${password}: the hooks' own messages are never withheld or changed by what a Secret holds`);
    t.same(got.filter((m) => m.includes(password) && !plain.includes(m)), [], `${password}: a message holds it only as any other password's does`);
  }
  const infrastructure = conditionOf((await converge(app, managedCP(), undefined, healthy, 'Memcached')).response.status, 'InfrastructureReady');
  t.match(infrastructure.message, /^MariaDB openstack-db and Memcached openstack-memcached Ready/, 'the finding: the composed message stays');
});

t.test('a secret no one can read elsewhere is still replaced in place', async (t) => {
  const { app } = await testServer();
  t.teardown(() => app.close());
  const password = 'Zq8-not-a-word-2f';
  const echo: StatusOf = (c, g) => (c.kind === 'MariaDB' ? { conditions: [{ ...readyCondition(false), message: `auth failed for admin:${password}` }] } : healthy(c, g));
  const world = await converge(app, managedCP(), undefined, echo, password);
  t.match(conditionOf(world.response.status, 'InfrastructureReady').message, /auth failed for admin:\[redacted\]/);
});

t.test('the finalize hook: its messages and the events it logs go through the same redaction', async (t) => {
  const { app, logs } = await testServer();
  t.teardown(() => app.close());
  const world = await converge(app, managedCP());
  const parent = { ...world.parent, metadata: { ...world.parent.metadata, deletionTimestamp: '2026-11-21T11:00:00Z' } };
  // A K-ORC object K-ORC cannot delete, quoting a secret; and a Secret whose value is a name the
  // stall event lists (a common word: the line is withheld whole, never pointing at it).
  const noisy = `auth failed: ${b64('admin:Zq8-not-a-word-2f')}`;
  const children = withChild(world.children, 'Endpoint', (c) => ({ ...c, status: orcStatus(c.metadata.generation, { available: false, reason: 'InvalidConfiguration', message: noisy }) }));
  const quotedSecret = secret(parent.metadata.namespace, 'quoted', { token: 'Zq8-not-a-word-2f' });
  const detaching = await post(app, '/controlplane/finalize', syncRequest({ ...parent, metadata: { ...parent.metadata, deletionTimestamp: '2026-11-21T11:59:00Z' } }, children, [...world.related, quotedSecret], true));
  t.equal(detaching.status, 200);
  t.match(conditionOf(detaching.json.status, 'KORCReady').message, /detaching Endpoint\/\S+ first .*auth failed: \S*\[redacted\]/, 'the K-ORC message quoting the secret (base64) is redacted in place');
  t.same(strings(detaching.json.status).filter(([, s]) => base64Cores('Zq8-not-a-word-2f').some((c) => s.includes(c))), [], 'no trace of it in the status');
  const related = [...world.related, secret(parent.metadata.namespace, 'named', { token: 'controlplane-keystone-identity-service' })];
  const stalled = await post(app, '/controlplane/finalize', syncRequest(parent, children, related, true));
  t.equal(stalled.json.finalized, true, 'released after 5 minutes');
  // The stall message is composed from names: a Secret value equal to one changes nothing (issue 55).
  const unrelated = await post(app, '/controlplane/finalize', syncRequest(parent, children, [...world.related, secret(parent.metadata.namespace, 'named', { token: 'Zq8-not-a-word-2f' })], true));
  t.equal(conditionOf(stalled.json.status, 'KORCReady').message, conditionOf(unrelated.json.status, 'KORCReady').message, 'the stall message names the object whose name is a secret value, as with any other value');
  t.match(conditionOf(stalled.json.status, 'KORCReady').message, /controlplane-keystone-identity-service/);
  const lines = logs.map((l) => JSON.parse(l)).filter((l) => l.reason === 'ORCTeardownStalled');
  const line = lines[0];
  t.equal(line?.msg, lines[1]?.msg, 'and so is the event it logs');
  t.ok(line?.objects.includes('Endpoint/controlplane-keystone-identity-region-ep-public'), 'the objects stay listed (names, not free text)');
});

t.test('the SecretAggregate hook: a source value that is a word of its own message changes nothing', async (t) => {
  const { app } = await testServer();
  t.teardown(() => app.close());
  const sa = { apiVersion: 'c5c3.io/v1alpha1', kind: 'SecretAggregate', metadata: { name: 'agg', namespace: 'ns', uid: 'uid-agg', generation: 1 }, spec: { sources: [{ secretRef: { name: 'a' } }], target: { name: 'merged-target' } } };
  const request = (value: string) => ({
    controller: {},
    parent: sa,
    children: {},
    related: { 'Secret.v1': { 'ns/a': secret('ns', 'a', { password: value }) } },
  });
  const plain = await post(app, '/secretaggregate/sync', request('Zq8-not-a-word-2f'));
  t.match(conditionOf(plain.json.status, 'Ready'), { reason: 'Aggregated', message: /Secret merged-target holds 1 key/ });
  const word = await post(app, '/secretaggregate/sync', request('merged-target'));
  t.same(conditionOf(word.json.status, 'Ready'), conditionOf(plain.json.status, 'Ready'), 'the message the hook composed from names is the one any other value gets');
  t.equal(word.json.children[0].data.password, b64('merged-target'), 'the target Secret carries the value: Secrets are not redacted');
});

t.test('property: a secret planted in every child status never reaches the status or a child other than a Secret', async (t) => {
  const { app } = await testServer({ level: 'silent' });
  t.teardown(() => app.close());
  const world = await converge(app, managedCP());
  await fc.assert(
    fc.asyncProperty(
      fc.stringMatching(/^[A-Za-z0-9+/=:_-]{8,40}$/).filter((s) => !/^\p{L}+$/u.test(s)),
      fc.constantFrom('raw', 'base64', 'user:'),
      fc.boolean(),
      async (value, form, finalizing) => {
        const quoted = form === 'raw' ? value : form === 'base64' ? b64(value) : b64(`user:${value}`);
        const message = `operator said ${quoted}`;
        const children = world.children.map((c) => ({
          ...c,
          status: isOrc(c) ? orcStatus(c.metadata.generation ?? 1, { available: false, reason: 'UnrecoverableError', message, id: c.status?.id }) : { ...(c.status ?? {}), conditions: [{ ...readyCondition(false), message }] },
        }));
        const base = [clusterSecretStore(), secret(world.parent.metadata.namespace, 'planted', { token: value })];
        const related = surroundings(world.parent, children, base);
        const parent = finalizing ? { ...world.parent, metadata: { ...world.parent.metadata, deletionTimestamp: '2026-11-21T11:59:00Z' } } : world.parent;
        const res = await post(app, finalizing ? '/controlplane/finalize' : '/controlplane/sync', syncRequest(parent, children, related, finalizing));
        if (res.status !== 200) return false;
        const needles = [value, b64(value), ...base64Cores(value).filter((c) => c.length >= 8)];
        const written = [res.json.status, ...(res.json.children as Obj[]).filter((c) => c.kind !== 'Secret')];
        return !strings(written).some(([, s]) => needles.some((n) => s.includes(n)));
      },
    ),
    { numRuns: 60, seed: 41 },
  );
  t.pass('no planted value in any status or non-Secret child');
});
