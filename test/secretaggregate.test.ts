// POST /secretaggregate/customize and /secretaggregate/sync over HTTP: the README example (three
// sources, one with selected keys), every reason Ready can give, the target kept at its last
// content whenever it cannot be published whole, renames, and no Secret value in any status.
import t, { type Test } from 'tap';
import { testServer, post, FIXED_NOW } from './support/server.js';
import { applied, b64, objectMap, secret } from './support/world.js';
import { secretErrors } from './support/children.js';
import { GVK } from '../src/k8s/kinds.js';
import type { Obj } from './support/shared.js';
import type { HooksServer } from '../src/server.js';

type Answer = { status: Obj; children: Obj[]; resyncAfterSeconds?: number };

const NS = 'openstack';
const SEED_SPEC: Obj = {
  sources: [
    { secretRef: { name: 'nova-db-credentials' } },
    { secretRef: { name: 'nova-rabbitmq-credentials' } },
    { secretRef: { name: 'nova-app-credential' }, keys: ['application_credential_id', 'application_credential_secret'] },
  ],
  target: { name: 'nova-aggregated-credentials' },
};
const VALUES = {
  db: { username: 'nova', password: 'db-S3cret-value' },
  rabbit: { transport_url: 'rabbit://nova:mq-S3cret-value@rabbitmq.openstack.svc:5672/' },
  ac: { application_credential_id: 'ac-id-0123', application_credential_secret: 'ac-S3cret-value', 'clouds.yaml': 'clouds: {not: selected}' },
};
const SECRET_VALUES = ['db-S3cret-value', 'mq-S3cret-value', 'ac-S3cret-value', 'clouds: {not: selected}'];

const aggregateOf = (spec: Obj = SEED_SPEC, generation = 1, status?: Obj): Obj => ({
  apiVersion: 'c5c3.io/v1alpha1',
  kind: 'SecretAggregate',
  metadata: { name: 'nova-all-credentials', namespace: NS, uid: 'uid-aggregate', generation },
  spec,
  ...(status ? { status } : {}),
});
const sources = (over: { [K in keyof typeof VALUES]?: Record<string, string> } = {}): Obj[] => {
  const v = { ...VALUES, ...over };
  return [secret(NS, 'nova-db-credentials', v.db), secret(NS, 'nova-rabbitmq-credentials', v.rabbit), secret(NS, 'nova-app-credential', v.ac)];
};

async function sync(app: HooksServer, parent: Obj, children: Obj[], related: Obj[]): Promise<Answer> {
  const res = await post(app, '/secretaggregate/sync', {
    controller: {},
    parent,
    children: objectMap(children, [GVK.Secret]),
    related: objectMap(related, [GVK.Secret]),
  });
  if (res.status !== 200) throw new Error(`secretaggregate sync answered ${res.status}: ${res.body}`);
  return res.json as Answer;
}
const ready = (a: Answer) => (a.status.conditions as Obj[]).find((c) => c.type === 'Ready')!;
const decoded = (s: Obj) => Object.fromEntries(Object.entries(s.data as Record<string, string>).map(([k, v]) => [k, Buffer.from(v, 'base64').toString('utf8')]));
/** The target as Metacontroller leaves it after applying `desired`, with its ownerReference. */
const live = (desired: Obj, parent = aggregateOf()) => applied(desired, parent);
const noValueIn = (t: Test, answer: Answer) => {
  const status = JSON.stringify(answer.status);
  for (const v of SECRET_VALUES) t.notOk(status.includes(v) || status.includes(b64(v)), `no secret value in the status`);
};

t.test('customize relates the sources and the target by name, in the namespace, never without names', async (t) => {
  const { app } = await testServer();
  t.teardown(() => app.close());
  const customize = async (spec: unknown) => {
    const res = await post(app, '/secretaggregate/customize', { controller: {}, parent: { ...aggregateOf(), spec } });
    t.equal(res.status, 200);
    return res.json.relatedResources as Obj[];
  };
  t.same(await customize(SEED_SPEC), [
    { apiVersion: 'v1', resource: 'secrets', namespace: NS, names: ['nova-db-credentials', 'nova-rabbitmq-credentials', 'nova-app-credential', 'nova-aggregated-credentials'] },
  ]);
  t.same((await customize({ sources: [{ secretRef: { name: 'a' } }, { secretRef: { name: 'a' } }], targetSecretName: 'out' }))[0]!.names, ['a', 'out'], 'unique names; the deprecated targetSecretName is related');
  t.same((await customize({ sources: [{ secretRef: { name: 'Not_A_Name' } }, { secretRef: {} }, 'x'], target: { name: 'out' } }))[0]!.names, ['out'], 'names that cannot be Secrets are left out');
  t.same(await customize({}), [], 'nothing to name: no rule at all (a rule without names would relate every Secret)');
  t.same(await customize('garbage'), []);
});

t.test('three sources, one with selected keys: the documented Secret', async (t) => {
  const { app } = await testServer();
  t.teardown(() => app.close());
  const answer = await sync(app, aggregateOf(), [], sources());
  t.equal(answer.children.length, 1);
  const target = answer.children[0]!;
  t.same(target.metadata, { name: 'nova-aggregated-credentials', namespace: NS, labels: { 'c5c3.io/secretaggregate': 'nova-all-credentials' } });
  t.equal(target.type, 'Opaque');
  t.same(Object.keys(target.data), ['application_credential_id', 'application_credential_secret', 'password', 'transport_url', 'username'], 'keys sorted; clouds.yaml was not selected');
  t.same(decoded(target), {
    application_credential_id: 'ac-id-0123',
    application_credential_secret: 'ac-S3cret-value',
    password: 'db-S3cret-value',
    transport_url: VALUES.rabbit.transport_url,
    username: 'nova',
  });
  t.equal(target.data.password, sources()[0]!.data.password, 'values are copied as stored (base64), never re-encoded');
  t.same(secretErrors(target), [], 'a Secret the API server accepts');
  t.match(ready(answer), { type: 'Ready', status: 'True', reason: 'Aggregated', message: 'Secret nova-aggregated-credentials holds 5 keys from 3 Secrets', observedGeneration: 1, lastTransitionTime: '2026-11-21T12:00:00Z' });
  t.equal(answer.status.observedGeneration, 1);
  t.equal(answer.resyncAfterSeconds, undefined, 'a source change resyncs the aggregate (related objects are watched)');
  noValueIn(t, answer);

  // At rest: the applied target observed, the same answer (a fixed point), lastTransitionTime kept.
  const later = new Date(FIXED_NOW.getTime() + 3600_000);
  const { app: app2 } = await testServer({ clock: () => later });
  t.teardown(() => app2.close());
  const again = await sync(app2, aggregateOf(SEED_SPEC, 1, answer.status), [live(target)], sources());
  t.same(again, answer, 'a second pass over its own result changes nothing');

  const reordered = await sync(app, aggregateOf(), [], sources().reverse());
  t.same(reordered, answer, 'the order of related objects does not matter, only spec order');
});

t.test('a selected key removed from a source: waits, the target keeps its last content', async (t) => {
  const { app } = await testServer();
  t.teardown(() => app.close());
  const first = await sync(app, aggregateOf(), [], sources());
  const observed = live(first.children[0]!);
  const { application_credential_secret: _gone, ...rest } = VALUES.ac;
  const answer = await sync(app, aggregateOf(SEED_SPEC, 1, first.status), [observed], sources({ ac: rest as typeof VALUES.ac }));
  t.same(answer.children, [JSON.parse(observed.metadata.annotations['metacontroller.k8s.io/last-applied-configuration'])], 'the target exactly as last applied');
  t.same(decoded(answer.children[0]!), decoded(first.children[0]!), 'no partial credential set is published');
  t.match(ready(answer), {
    status: 'False',
    reason: 'WaitingForSource',
    message: 'Waiting for the sources: Secret nova-app-credential has no key application_credential_secret; Secret nova-aggregated-credentials keeps its last content',
    lastTransitionTime: '2026-11-21T12:00:00Z',
  });
  noValueIn(t, answer);

  const back = await sync(app, aggregateOf(SEED_SPEC, 1, answer.status), [observed], sources({ ac: { ...VALUES.ac, application_credential_secret: 'ac-S3cret-value-2' } }));
  t.equal(decoded(back.children[0]!).application_credential_secret, 'ac-S3cret-value-2', 'the key back (rotated): published');
  t.equal(ready(back).reason, 'Aggregated');
});

t.test('missing, deleting and empty sources: nothing is created until every source is complete', async (t) => {
  const { app } = await testServer();
  t.teardown(() => app.close());
  const [db, rabbit, ac] = sources();
  const cases: [string, Obj[], string][] = [
    ['a source does not exist', [db!, ac!], 'Secret nova-rabbitmq-credentials does not exist'],
    ['a source is being deleted', [db!, { ...rabbit!, metadata: { ...rabbit!.metadata, deletionTimestamp: '2026-11-21T11:00:00Z' } }, ac!], 'Secret nova-rabbitmq-credentials is being deleted'],
    ['an all-keys source has no data', [db!, { ...rabbit!, data: {} }, ac!], 'Secret nova-rabbitmq-credentials has no data'],
    ['two selected keys missing', [db!, rabbit!, { ...ac!, data: {} }], 'Secret nova-app-credential has no keys application_credential_id, application_credential_secret'],
    ['no source at all', [], 'Secret nova-db-credentials does not exist; Secret nova-rabbitmq-credentials does not exist; Secret nova-app-credential does not exist'],
  ];
  for (const [name, related, detail] of cases) {
    const answer = await sync(app, aggregateOf(), [], related);
    t.same(answer.children, [], `${name}: no target`);
    t.match(ready(answer), { status: 'False', reason: 'WaitingForSource', message: `Waiting for the sources: ${detail}; Secret nova-aggregated-credentials is created once every source is complete` }, name);
  }
});

t.test('a key two sources provide is a conflict: named, nothing published, resolved by selecting keys', async (t) => {
  const { app } = await testServer();
  t.teardown(() => app.close());
  const first = await sync(app, aggregateOf(), [], sources());
  const observed = live(first.children[0]!);
  const clash = sources({ rabbit: { ...VALUES.rabbit, password: 'mq-S3cret-value', username: 'nova-mq' } });
  const answer = await sync(app, aggregateOf(SEED_SPEC, 1, first.status), [observed], clash);
  t.same(decoded(answer.children[0]!), decoded(first.children[0]!), 'the target keeps its last content');
  t.match(ready(answer), {
    status: 'False',
    reason: 'KeyConflict',
    message:
      'Two sources provide the same key: key password from sources[0] (Secret nova-db-credentials) and sources[1] (Secret nova-rabbitmq-credentials); ' +
      'key username from sources[0] (Secret nova-db-credentials) and sources[1] (Secret nova-rabbitmq-credentials). ' +
      'Select keys so that every key has one source; Secret nova-aggregated-credentials keeps its last content',
  });
  noValueIn(t, answer);

  const resolved = structuredClone(SEED_SPEC);
  resolved.sources[1].keys = ['transport_url'];
  const fixed = await sync(app, aggregateOf(resolved, 2, answer.status), [observed], clash);
  t.equal(ready(fixed).reason, 'Aggregated');
  t.same(decoded(fixed.children[0]!), decoded(first.children[0]!), 'the selection keeps the first source\'s credentials');

  const twice = { sources: [{ secretRef: { name: 'nova-db-credentials' } }, { secretRef: { name: 'nova-db-credentials' }, keys: ['password'] }], target: { name: 'out' } };
  const repeated = { sources: [{ secretRef: { name: 'nova-db-credentials' }, keys: ['password', 'password'] }], target: { name: 'out' } };
  t.equal(ready(await sync(app, aggregateOf(repeated), [], clash)).reason, 'Aggregated', 'a key listed twice in one source (admission bypassed) is one key');
  t.match(ready(await sync(app, aggregateOf(twice), [], clash)).message, /^Two sources provide the same key: key password from sources\[0\] \(Secret nova-db-credentials\) and sources\[1\] \(Secret nova-db-credentials\)/, 'the same Secret listed twice with overlapping keys is a conflict too');
});

t.test('a result over the 1 MiB Secret limit is refused, the target kept', async (t) => {
  const { app } = await testServer();
  t.teardown(() => app.close());
  const first = await sync(app, aggregateOf(), [], sources());
  const observed = live(first.children[0]!);
  const big = sources({ rabbit: { transport_url: 'x'.repeat(1024 * 1024 - 30) } });
  const answer = await sync(app, aggregateOf(SEED_SPEC, 1, first.status), [observed], big);
  t.match(ready(answer), { status: 'False', reason: 'TargetTooLarge', message: /^The aggregate would hold 1048\d+ bytes, more than a Secret can \(1048576\)/ });
  t.same(decoded(answer.children[0]!), decoded(first.children[0]!));
  const under = sources({ rabbit: { transport_url: 'x'.repeat(1024 * 1024 - 200) } });
  t.match(ready(await sync(app, aggregateOf(), [], under)), { reason: 'TargetTooLarge', message: /last-applied annotation/ }, 'just under 1 MiB fits a Secret, not what Metacontroller can apply');
});

/**
 * What the API server counts of the target's annotations once Metacontroller applied it
 * (metacontroller v4.17.2 manage_children.go, dynamic/apply/apply.go SetLastApplied): the
 * last-applied annotation's key and the desired Secret as JSON, the controller-uid label added
 * (generateSelector). Its values are base64 and names: JSON.stringify's bytes are Go's.
 */
const LAST_APPLIED = 'metacontroller.k8s.io/last-applied-configuration';
const annotationBytes = (desired: Obj, uid: string) =>
  LAST_APPLIED.length + Buffer.byteLength(JSON.stringify({ ...desired, metadata: { ...desired.metadata, labels: { ...desired.metadata.labels, 'controller-uid': uid } } }));

t.test("a target Metacontroller cannot apply (its last-applied copy past the API server's 256 KiB of annotations) is not Ready, the observed target kept", async (t) => {
  const { app } = await testServer();
  t.teardown(() => app.close());
  const first = await sync(app, aggregateOf(), [], sources());
  const observed = live(first.children[0]!);
  // The case: sources adding up to 200 KB.
  const big = sources({ db: { username: 'nova', password: 'p'.repeat(100_000) }, rabbit: { transport_url: 'r'.repeat(100_000) } });
  const answer = await sync(app, aggregateOf(SEED_SPEC, 1, first.status), [observed], big);
  t.match(ready(answer), { status: 'False', reason: 'TargetTooLarge', message: /^The aggregate \(200\d+ bytes\) cannot be applied: Metacontroller copies the whole Secret into its last-applied annotation, \d+ bytes of annotations, more than the API server admits \(262144\); Secret nova-aggregated-credentials keeps its last content$/ });
  t.equal(answer.children.length, 1, 'one child');
  t.same(decoded(answer.children[0]!), decoded(first.children[0]!), 'the observed target as it was');
  noValueIn(t, answer);
  const fresh = await sync(app, aggregateOf(), [], big);
  t.same(fresh.children, [], 'no target yet: none is created');
  t.match(ready(fresh).message, /Secret nova-aggregated-credentials is created once every source is complete$/);

  // The limit, byte for byte: the longest value whose target is published (a binary search over
  // the answers) makes annotations that fit; one byte more makes annotations that do not.
  const uid = aggregateOf().metadata.uid as string;
  const sized = (n: number) => sources({ rabbit: { transport_url: 'x'.repeat(n) } });
  let lo = 100_000;
  let hi = 300_000;
  while (hi - lo > 1) {
    const mid = Math.floor((lo + hi) / 2);
    if ((await sync(app, aggregateOf(), [], sized(mid))).children.length > 0) lo = mid;
    else hi = mid;
  }
  const fits = await sync(app, aggregateOf(), [], sized(lo));
  t.equal(ready(fits).reason, 'Aggregated', `${lo} bytes of value: published`);
  t.ok(annotationBytes(fits.children[0]!, uid) <= 262_144, 'its annotations fit');
  const over = { ...fits.children[0]!, data: { ...fits.children[0]!.data, transport_url: b64('x'.repeat(lo + 1)) } };
  t.ok(annotationBytes(over, uid) > 262_144, 'one byte more would not');
  t.equal(ready(await sync(app, aggregateOf(), [], sized(lo + 1))).reason, 'TargetTooLarge');
});

t.test('the target name is taken by a Secret that is not ours: never overwritten', async (t) => {
  const { app } = await testServer();
  t.teardown(() => app.close());
  const foreign = secret(NS, 'nova-aggregated-credentials', { someone: 'else' });
  const answer = await sync(app, aggregateOf(), [], [...sources(), foreign]);
  t.same(answer.children, [], 'no child of that name: Metacontroller neither creates nor updates it');
  t.match(ready(answer), { status: 'False', reason: 'TargetNotOwned', message: /^Secret nova-aggregated-credentials exists and is not owned by SecretAggregate nova-all-credentials/ });

  const otherOwner = { ...foreign, metadata: { ...foreign.metadata, ownerReferences: [{ apiVersion: 'c5c3.io/v1alpha1', kind: 'SecretAggregate', name: 'other', uid: 'uid-other', controller: true }] } };
  t.equal(ready(await sync(app, aggregateOf(), [], [...sources(), otherOwner])).reason, 'TargetNotOwned', 'owned by another aggregate');

  const first = await sync(app, aggregateOf(), [], sources());
  const ours = live(first.children[0]!);
  const lagging = await sync(app, aggregateOf(), [], [...sources(), ours]);
  t.equal(ready(lagging).reason, 'Aggregated', 'our own target seen as related before it is a child: still ours');
});

t.test('a Terminating target is returned as it is until it is gone', async (t) => {
  const { app } = await testServer();
  t.teardown(() => app.close());
  const first = await sync(app, aggregateOf(), [], sources());
  const terminating = live(first.children[0]!);
  terminating.metadata.deletionTimestamp = '2026-11-21T11:59:00Z';
  const answer = await sync(app, aggregateOf(), [terminating], sources());
  t.equal(answer.children.length, 1, 'kept (omitting it would be harmless, returning it is the rule)');
  t.match(ready(answer), { status: 'False', reason: 'WaitingForTarget', message: 'Secret nova-aggregated-credentials is being deleted; it is created again once it is gone' });
});

t.test('a renamed target: the old one goes only with the response that publishes the new one', async (t) => {
  const { app } = await testServer();
  t.teardown(() => app.close());
  const first = await sync(app, aggregateOf(), [], sources());
  const old = live(first.children[0]!);
  const renamed = { ...SEED_SPEC, target: { name: 'nova-credentials' } };
  const [db, rabbit] = sources();
  const waiting = await sync(app, aggregateOf(renamed, 2), [old], [db!, rabbit!]);
  t.same(waiting.children.map((c) => c.metadata.name), ['nova-aggregated-credentials'], 'the new target cannot be published: the old one stays');
  const published = await sync(app, aggregateOf(renamed, 2), [old], sources());
  t.same(published.children.map((c) => c.metadata.name), ['nova-credentials'], 'published: the old target is released');
  t.same(decoded(published.children[0]!), decoded(first.children[0]!));

  const configMap = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'not-ours-to-drop', namespace: NS }, data: { a: 'b' } };
  const res = await post(app, '/secretaggregate/sync', { controller: {}, parent: aggregateOf(renamed, 2), children: objectMap([old, configMap], [GVK.Secret]), related: objectMap(sources(), [GVK.Secret]) });
  t.same(res.json.children.map((c: Obj) => `${c.kind}/${c.metadata.name}`).sort(), ['ConfigMap/not-ours-to-drop', 'Secret/nova-credentials'], 'a child of another kind in the request is never released');

  const readsOld = { sources: [{ secretRef: { name: 'nova-aggregated-credentials' } }], target: { name: 'nova-credentials' } };
  const chained = await sync(app, aggregateOf(readsOld, 3), [old], [...sources(), old]);
  t.equal(ready(chained).reason, 'Aggregated');
  t.same(chained.children.map((c) => c.metadata.name).sort(), ['nova-aggregated-credentials', 'nova-credentials'], 'an old target the spec now reads as a source is kept, not deleted');
});

t.test('unusable specs: InvalidSpec naming the field, every observed Secret kept', async (t) => {
  const { app } = await testServer();
  t.teardown(() => app.close());
  const first = await sync(app, aggregateOf(), [], sources());
  const observed = live(first.children[0]!);
  const target = { name: 'nova-aggregated-credentials' };
  const cases: [string, unknown, RegExp][] = [
    ['spec not an object', 'garbage', /^The spec is invalid: spec: must be an object$/],
    ['no sources', { target }, /^The spec is invalid: spec.sources: must list at least one Secret$/],
    ['empty sources', { sources: [], target }, /^The spec is invalid: spec.sources: must list at least one Secret$/],
    ['no target', { sources: SEED_SPEC.sources }, /^The spec is invalid: spec.target.name: is required$/],
    ['the reference placeholder only', { targetSecretName: 'nova-aggregated-credentials' }, /^The spec is invalid: spec.sources: must list at least one Secret$/],
    ['target among the sources', { sources: [{ secretRef: { name: 'nova-aggregated-credentials' } }], target }, /target Secret nova-aggregated-credentials cannot also be a source/],
    ['empty source name', { sources: [{ secretRef: {} }], target }, /^The spec is invalid: spec.sources\[0\].secretRef.name: must name a Secret, got ""$/],
    ['keys not a list', { sources: [{ secretRef: { name: 'a' }, keys: 'password' }], target }, /^The spec is invalid: spec.sources\[0\].keys: must be an array, got a string$/],
    ['bad key', { sources: [{ secretRef: { name: 'a' }, keys: ['pass word'] }], target }, /^The spec is invalid: spec.sources\[0\].keys\[0\]: must match pattern/],
    ['bad target name', { sources: SEED_SPEC.sources, target: { name: 'Nova_Creds' } }, /^The spec is invalid: spec.target.name: must match pattern/],
    ['bad deprecated target name', { sources: SEED_SPEC.sources, targetSecretName: 'Nova_Creds' }, /^The spec is invalid: spec.targetSecretName: must be a Secret name/],
    ['both target names, different', { sources: SEED_SPEC.sources, target, targetSecretName: 'other' }, /targetSecretName: is deprecated and, when set with target.name, must equal it/],
  ];
  for (const [name, spec, message] of cases) {
    const answer = await sync(app, aggregateOf(spec as Obj), [observed], sources());
    t.match(ready(answer), { status: 'False', reason: 'InvalidSpec', message }, name);
    t.same(answer.children.map((c) => c.metadata.name), ['nova-aggregated-credentials'], `${name}: the observed target is kept`);
  }
  const alias = await sync(app, aggregateOf({ sources: SEED_SPEC.sources, targetSecretName: 'nova-aggregated-credentials' }), [observed], sources());
  t.equal(ready(alias).reason, 'Aggregated', 'the deprecated targetSecretName names the target when target is absent');
  t.same(alias.children, first.children);
});

t.test('a wrong envelope is a 400 and nothing is applied', async (t) => {
  const { app } = await testServer();
  t.teardown(() => app.close());
  const wrongKind = await post(app, '/secretaggregate/sync', { controller: {}, parent: { ...aggregateOf(), kind: 'ControlPlane' }, children: {} });
  t.equal(wrongKind.status, 400);
  const noChildren = await post(app, '/secretaggregate/sync', { controller: {}, parent: aggregateOf() });
  t.equal(noChildren.status, 400);
  t.match(noChildren.json.message, /children/);
});
