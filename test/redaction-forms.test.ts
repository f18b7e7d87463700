// The bus password in every form it takes never reaches ControlPlane.status (issue 55): the managed
// bus URL carries `encodeURIComponent(password)` of the RabbitMQ default-user Secret
// (services/messaging.ts), and a user's brownfield `transport_url` carries its own userinfo. A
// Nova, Neutron or Cinder CR whose condition message quotes the URL in another form (another
// scheme or host, the userinfo alone, the other hex case, decoded, base64, ...) is copied into the
// status: the redaction (src/redaction.ts secretForms) knows every one of these forms.
import t, { type Test } from 'tap';
import { post, testServer } from './support/server.js';
import { converge } from './support/sync.js';
import { b64, clusterSecretStore, platformObjects, readyCondition, secret, surroundings, syncRequest } from './support/world.js';
import { base64Cores } from '../src/capture/secret-values.js';
import { fixtureControlPlane, type Obj } from './support/shared.js';

const lower = (s: string) => s.replace(/%[0-9A-F]{2}/g, (x) => x.toLowerCase());

/** The 14 forms a child may quote the bus URL in: user, password as the URL carries it (encoded), decoded, host. */
function forms(user: string, encoded: string, plain: string, host: string): string[] {
  const url = `rabbit://${user}:${encoded}@${host}:5672/`;
  return [
    url,
    `amqp://${user}:${encoded}@${host}:5672/`,
    `rabbit://${user}:${encoded}@other.example.com:5672/`,
    `${user}:${encoded}`,
    encoded,
    `rabbit://${user}:${lower(encoded)}@${host}:5672/`,
    `rabbit://${user}:${plain}@${host}:5672/`,
    plain,
    b64(url),
    b64(`${user}:${encoded}`),
    `rabbit://${user}:${encoded}@${host}:5672/openstack`,
    `transport_url=rabbit://${user}:${encoded}@${host}:5672/?heartbeat=60`,
    `${user}:${lower(encoded)}`,
    `https://${user}:${encoded}@${host}/`,
  ];
}

const strings = (v: unknown, out: string[] = []): string[] => {
  if (typeof v === 'string') out.push(v);
  else if (Array.isArray(v)) v.forEach((x) => strings(x, out));
  else if (v && typeof v === 'object') for (const x of Object.values(v)) strings(x, out);
  return out;
};

const BUS_CRS = ['Nova', 'Neutron', 'Cinder'];

async function check(t: Test, name: string, cp: Obj, base: Obj[], user: string, encoded: string, plain: string, host: string) {
  const { app } = await testServer({ level: 'silent' });
  t.teardown(() => app.close());
  const world = await converge(app, cp, base, undefined, undefined, [], 40);
  t.ok(world.children.some((c) => c.kind === 'Nova'), `${name}: the cloud converged with its bus readers`);
  const needles = [plain, encoded, lower(encoded), ...[plain, encoded, `${user}:${encoded}`].flatMap((v) => base64Cores(v))].filter((n) => n.length >= 8);
  const quote = async (message: string) => {
    const children = world.children.map((c) => (BUS_CRS.includes(c.kind) ? { ...c, status: { ...(c.status ?? {}), conditions: [{ ...readyCondition(false), message }] } } : c));
    const res = await post(app, '/controlplane/sync', syncRequest(world.parent, children, surroundings(world.parent, children, base)));
    t.equal(res.status, 200);
    return res.json as Obj;
  };
  // The copy is made: a message quoting nothing secret reaches the status.
  const control = await quote('the bus said: connection refused');
  t.ok(strings(control.status).some((s) => s.includes('the bus said: connection refused')), `${name}: the CRs' messages are copied into the status`);
  const leaked: string[] = [];
  for (const [i, form] of forms(user, encoded, plain, host).entries()) {
    const answer = await quote(`the bus said: cannot connect to ${form}: timeout`);
    const found = strings(answer.status).filter((s) => needles.some((n) => s.includes(n)));
    if (found.length > 0) leaked.push(`form ${i + 1} (${form}): ${found[0]}`);
  }
  t.same(leaked, [], `${name}: none of the 14 forms reaches ControlPlane.status`);
}

t.test('the managed bus: the default user password, percent-encoded in the URL the hooks build', async (t) => {
  const cp = fixtureControlPlane('controlplane-cloud.yaml');
  const password = 'Zq8/p@ss:w%rd+é';
  const base = [clusterSecretStore(), ...platformObjects(cp).map((o) => (o.kind === 'Secret' && o.metadata.name.endsWith('-rabbitmq-default-user') ? secret(o.metadata.namespace, o.metadata.name, { username: 'rabbit-default-user', password, host: `${cp.metadata.name}-rabbitmq.${cp.metadata.namespace}.svc`, port: '5672' }, { labels: o.metadata.labels }) : o))];
  await check(t, 'managed', cp, base, 'rabbit-default-user', encodeURIComponent(password), password, `${cp.metadata.name}-rabbitmq.${cp.metadata.namespace}.svc`);
});

t.test('a brownfield bus: the password inside the user-supplied transport_url', async (t) => {
  const cp = fixtureControlPlane('controlplane-cloud.yaml');
  cp.spec.infrastructure.messaging = { secretRef: { name: 'user-bus', key: 'transport_url' } };
  const encoded = 'Zq8%2Fp%40ss%3Aword';
  const base = [clusterSecretStore(), ...platformObjects(cp).filter((o) => o.kind !== 'Secret'), secret(cp.metadata.namespace, 'user-bus', { transport_url: `rabbit://bus-user:${encoded}@bus.example.com:5672/` })];
  await check(t, 'brownfield', cp, base, 'bus-user', encoded, decodeURIComponent(encoded), 'bus.example.com');
});
