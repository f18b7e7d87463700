// Seed 000 "Security invariant", as tests over every response of a full lifecycle: the minted
// credential is restricted by default; the app-credential Secret is referenced only by the
// AC's secretRef and the PushSecret; no password or credential Secret reaches the Keystone spec
// or any workload; no secret value reaches a log line, a condition or a plain-text field.
import t from 'tap';
import { testServer } from './support/server.js';
import { ADMIN_PASSWORD, clusterSecretStore } from './support/world.js';
import { converge, managedCP, sync } from './support/sync.js';
import { acOf, appCredential, names } from './support/korc.js';
import type { Obj } from './support/shared.js';

const N = names();

/** Every [path, value] of string leaves in an object. */
function strings(value: unknown, path = ''): [string, string][] {
  if (typeof value === 'string') return [[path, value]];
  if (Array.isArray(value)) return value.flatMap((v, i) => strings(v, `${path}[${i}]`));
  if (value && typeof value === 'object') return Object.entries(value).flatMap(([k, v]) => strings(v, path ? `${path}.${k}` : k));
  return [];
}

t.test('the minted credential is restricted by default', async (t) => {
  const { app } = await testServer();
  t.teardown(() => app.close());
  const cp = managedCP();
  delete cp.spec.korc.adminCredential.applicationCredential;
  const world = await converge(app, cp);
  t.equal(acOf(world.response.children)!.spec.resource.unrestricted, false);
  t.equal(world.response.status.adminApplicationCredential.restricted, true);
});

t.test('the app-credential Secret is referenced only by the AC secretRef and the PushSecret', async (t) => {
  const { app } = await testServer();
  t.teardown(() => app.close());
  const world = await converge(app, managedCP());
  const references = world.response.children.flatMap((c: Obj) =>
    strings(c)
      .filter(([path, v]) => v === N.ac && path !== 'metadata.name')
      .map(([path]) => `${c.kind}/${c.metadata.name}: ${path}`),
  );
  t.same(references.sort(), [
    `ApplicationCredential/${N.ac}: spec.resource.secretRef`,
    `PushSecret/${N.push}: spec.selector.secret.name`,
  ]);
});

t.test('no password or credential Secret in the Keystone spec or any workload', async (t) => {
  const { app } = await testServer();
  t.teardown(() => app.close());
  const world = await converge(app, managedCP());
  const keystone = world.response.children.find((c: Obj) => c.kind === 'Keystone')!;
  const forbidden = [N.ac, N.passwordCloud, 'k-orc-clouds-yaml'];
  for (const [path, v] of strings(keystone.spec)) t.notOk(forbidden.includes(v), `Keystone spec.${path} does not reference ${v}`);
  const workloads = ['Pod', 'Deployment', 'StatefulSet', 'DaemonSet', 'Job', 'CronJob'];
  t.notOk(world.response.children.some((c: Obj) => workloads.includes(c.kind)), 'the hooks emit no workload');
  t.same(keystone.spec.bootstrap.adminPasswordSecretRef, { name: 'controlplane-keystone-keystone-admin-credentials', key: 'password' }, 'Keystone gets the admin password only through its bootstrap ref');
});

t.test('no secret value in a log line, a condition, an annotation or any plain-text field', async (t) => {
  const { app, logs } = await testServer({ level: 'trace' });
  t.teardown(() => app.close());
  const world = await converge(app, managedCP());
  const value = appCredential(world.response.children).value!;
  // A broken request too, so error paths log.
  await sync(app, world.parent, world.children, [clusterSecretStore(false), ...world.related.slice(1)]).catch(() => undefined);
  const secrets = [ADMIN_PASSWORD, value, Buffer.from(ADMIN_PASSWORD).toString('base64'), Buffer.from(value).toString('base64')];
  for (const s of secrets) t.notOk(logs.some((l) => l.includes(s)), `no log line holds ${s === ADMIN_PASSWORD ? 'the password' : 'a credential'}`);
  const plain = world.response.children.flatMap((c: Obj) => strings({ ...c, data: undefined }));
  for (const [path, v] of [...plain, ...strings(world.response.status)]) {
    t.notOk(v.includes(ADMIN_PASSWORD) || v.includes(value), `${path} holds no secret in clear`);
  }
});
