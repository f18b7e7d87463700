// The admin application credential's Secret edited or deleted by hand (docs/architecture.md §3.3):
// the secret the live AC was minted with is put back (proven by the AC's c5c3.io/secret-sha256,
// found in the Secret's last-applied content or in the materialised clouds.yaml), so Metacontroller
// repairs or recreates the Secret and the credential is kept. Without such a proof a lost secret
// is still a re-mint.
import t, { type Test } from 'tap';
import { testServer } from './support/server.js';
import { converge, step, conditionOf, managedCP, type World } from './support/sync.js';
import { b64, unb64, type StatusOf } from './support/world.js';
import type { Obj } from './support/shared.js';
import { sha256Hex } from '../src/k8s/secret.js';

const idle: StatusOf = () => undefined;
const secretName = (w: World) => `${w.parent.metadata.name}-admin-app-credential`;
const find = (children: Obj[], kind: string, name: string) => children.find((c) => c.kind === kind && c.metadata.name === name);
const withSecret = (w: World, change: (s: Obj) => Obj | undefined): World => ({
  ...w,
  children: w.children.flatMap((c) => (c.kind === 'Secret' && c.metadata.name === secretName(w) ? [change(c)].filter((x): x is Obj => x !== undefined) : [c])),
});

async function world() {
  const { app } = await testServer();
  const w = await converge(app, managedCP());
  const secret = find(w.children, 'Secret', secretName(w))!;
  const ac = find(w.children, 'ApplicationCredential', secretName(w))!;
  t.equal(sha256Hex(unb64(secret.data.value)), ac.metadata.annotations['c5c3.io/secret-sha256'], 'converged: the Secret holds the minted secret');
  return { app, w, minted: unb64(secret.data.value), ac };
}

/** The answer keeps the AC and writes the minted secret; applied, the Secret holds it; a pass later nothing moves. */
async function repaired(t: Test, app: Awaited<ReturnType<typeof world>>['app'], broken: World, minted: string, from: RegExp): Promise<void> {
  const answer = await step(app, broken, idle, broken.related);
  const ac = find(answer.response.children, 'ApplicationCredential', secretName(broken));
  t.ok(ac, 'the AC is answered (not released: no re-mint)');
  t.notOk(ac?.metadata.deletionTimestamp);
  t.equal(unb64(find(answer.response.children, 'Secret', secretName(broken))!.data.value), minted, 'the answer puts the minted secret back');
  const korc = conditionOf(answer.response.status, 'KORCReady');
  t.equal(korc.reason, 'ApplicationCredentialMinted');
  t.match(korc.message, from);
  t.equal(unb64(find(answer.children, 'Secret', secretName(broken))!.data.value), minted, 'applied (three-way merge), the live Secret holds it again');
  const next = await step(app, answer, idle, broken.related);
  const shape = (children: Obj[]) => children.map((c) => JSON.stringify([c.kind, c.metadata.name, c.metadata.generation, c.data])).sort();
  t.same(shape(next.children), shape(answer.children), 'a pass later nothing changes');
}

t.test('value edited by hand: put back from the last applied content, the credential kept', async (t) => {
  const { app, w, minted } = await world();
  const broken = withSecret(w, (s) => ({ ...s, data: { ...s.data, value: b64('edited-by-hand') } }));
  await repaired(t, app, broken, minted, /its secret was put back into Secret .* from the content last applied to Secret/);
});

t.test('Secret deleted by hand: recreated with the minted secret from the materialised clouds.yaml, the credential kept', async (t) => {
  const { app, w, minted } = await world();
  await repaired(t, app, withSecret(w, () => undefined), minted, /from Secret k-orc-clouds-yaml/);
});

t.test('nothing proves the secret: a lost value is still a re-mint', async (t) => {
  const { app, w } = await world();
  // The Secret gone and the materialised clouds.yaml not the AC's credential (e.g. being rotated).
  const related = w.related.map((r) => (r.kind === 'Secret' && r.metadata.name === 'k-orc-clouds-yaml' ? { ...r, data: { 'clouds.yaml': b64('clouds: {}\n') } } : r));
  const answer = await step(app, { ...withSecret(w, () => undefined), related }, idle, related);
  t.notOk(find(answer.response.children, 'ApplicationCredential', secretName(w)), 'the AC is released: re-mint');
  t.equal(conditionOf(answer.response.status, 'KORCReady').reason, 'ReMinting');
});
