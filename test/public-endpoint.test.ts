// A service's public catalog URL from its publicEndpoint (docs/architecture.md §2.13, DESIGN §11.22):
// the service's path (Cinder /v3, Nova /v2.1) is appended to a bare origin only; a URL that carries
// a path is the user's whole URL (issue 55: https://x/api/v3 became …/api/v3/v3).
import t from 'tap';
import { SERVICES } from '../src/api/services/index.js';
import { isBareOrigin, publicUrl } from '../src/controlplane/services/projection.js';
import type { DeclaredService } from '../src/controlplane/services/projection.js';

const cp = { name: 'keystone', namespace: 'openstack', uid: 'u', generation: 1 };
const service = (name: string) => {
  const d = SERVICES.find((s) => s.name === name);
  if (!d) throw new Error(`no service ${name}`);
  return d;
};
const url = (name: string, publicEndpoint: string) => publicUrl(service(name), cp, { publicEndpoint } as unknown as DeclaredService);

t.test('a URL with a path of its own stays as written', async (t) => {
  t.equal(url('cinder', 'https://cinder.public.example.com/api/v3'), 'https://cinder.public.example.com/api/v3');
  t.equal(url('nova', 'https://nova.public.example.com/api/v2.1'), 'https://nova.public.example.com/api/v2.1');
  t.equal(url('cinder', 'https://cinder.public.example.com/v3'), 'https://cinder.public.example.com/v3');
  t.equal(url('nova', 'https://x.example.com:8443/compute?x=1'), 'https://x.example.com:8443/compute?x=1');
});

t.test('a bare origin gains the service path', async (t) => {
  t.equal(url('cinder', 'https://cinder.public.example.com'), 'https://cinder.public.example.com/v3');
  t.equal(url('cinder', 'https://cinder.public.example.com/'), 'https://cinder.public.example.com/v3');
  t.equal(url('nova', 'https://nova.public.example.com:8443'), 'https://nova.public.example.com:8443/v2.1');
  t.equal(url('nova', 'http://[2001:db8::1]:8774/'), 'http://[2001:db8::1]:8774/v2.1');
});

t.test('a service without a path takes publicEndpoint as it is', async (t) => {
  t.equal(url('glance', 'https://glance.example.com'), 'https://glance.example.com');
  t.equal(url('placement', 'https://api.example.com/placement'), 'https://api.example.com/placement');
});

t.test('isBareOrigin', async (t) => {
  for (const u of ['https://x', 'https://x/', 'http://x.example.com:80', 'https://[::1]:443/']) t.ok(isBareOrigin(u), u);
  for (const u of ['https://x/v3', 'https://x//', 'https://x?y', 'https://x#f', 'x.example.com', '', 'https:///v3']) t.notOk(isBareOrigin(u), u);
});
