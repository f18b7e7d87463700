// The tempest.conf and Job of a rollout's verification for the whole compute cloud (issue 59 item
// 2): a section per declared service with its catalog type, the internal interface and the region,
// the release's microversions, service_available from what is declared, and a ListRef mounted
// where the Job's arguments point. sync-verification.test.ts drives a Keystone-only ControlPlane.
import t from 'tap';
import { SERVICES } from '../src/api/services/index.js';
import { RELEASE_MICROVERSIONS, tempestConf } from '../src/controlplane/rollout/tempest-conf.js';
import { tempestSettings, verificationChildren } from '../src/controlplane/rollout/verification.js';
import type { Rollout } from '../src/controlplane/rollout/rollout-state.js';
import { fixtureControlPlane, type Obj } from './support/shared.js';

/** `[section]` of an ini text as key → value. */
function section(conf: string, name: string): Record<string, string> | undefined {
  const part = conf.split(/^\[/m).find((p) => p.startsWith(`${name}]\n`));
  if (!part) return undefined;
  return Object.fromEntries(part.split('\n').slice(1).filter((l) => l.includes(' = ')).map((l) => l.split(' = ') as [string, string]));
}

const TEMPEST_SECTION: Record<string, string> = { glance: 'image', placement: 'placement', neutron: 'network', cinder: 'volume', nova: 'compute' };

t.test('the compute cloud: a section per service, its catalog type, internal interface, region and microversions', async (t) => {
  const cp = fixtureControlPlane('controlplane-cloud.yaml');
  const conf = tempestConf({ namespace: cp.metadata.namespace, cp: cp.metadata.name, spec: cp.spec, release: '2025.2' });
  const region = cp.spec.region ?? 'RegionOne';
  t.match(section(conf, 'identity'), { uri_v3: `http://${cp.metadata.name}-keystone.${cp.metadata.namespace}.svc:5000/v3`, region, catalog_type: 'identity' });
  const mv = RELEASE_MICROVERSIONS['2025.2']!;
  const expected: Record<string, { min: string; max: string } | undefined> = { placement: mv.placement, cinder: mv.volume, nova: mv.compute };
  t.same(SERVICES.map((d) => d.name).sort(), Object.keys(TEMPEST_SECTION).sort(), 'every service beside Keystone has a Tempest section');
  for (const d of SERVICES) {
    const s = section(conf, TEMPEST_SECTION[d.name]!);
    t.match(s, { catalog_type: d.serviceType, endpoint_type: 'internal', region }, `${d.name}: [${TEMPEST_SECTION[d.name]}]`);
    const range = expected[d.name];
    if (range) t.match(s, { min_microversion: range.min, max_microversion: range.max }, `${d.name}: 2025.2's microversions`);
    else t.notOk(s && 'max_microversion' in s, `${d.name}: no microversions`);
  }
  t.same(section(conf, 'service_available'), { cinder: 'true', glance: 'true', horizon: 'false', neutron: 'true', nova: 'true', swift: 'false' });
  t.notMatch(conf, /password|secret/i, 'no password option in tempest.conf');
  // A release without known microversions: no bounds (Tempest skips what needs one).
  const unknown = tempestConf({ namespace: 'openstack', cp: 'x', spec: cp.spec, release: '2030.1' });
  t.notMatch(unknown, /microversion/);
});

t.test('extraConfig: its options over the derived ones, new sections after them; nothing that is not one line of a name', async (t) => {
  const cp = fixtureControlPlane('controlplane-cloud.yaml');
  const extraConfig = {
    compute: { image_ref: 'a1b2', flavor_ref: '42', endpoint_type: 'public' },
    'compute-feature-enabled': { resize: 'false' },
    network: { 'bad name': 'x', public_network_id: 'first\nsecond' },
    '[auth': { admin_password: 'x' },
  };
  const spec = { ...cp.spec, verification: { tempest: { extraConfig } } };
  const conf = tempestConf({ namespace: 'openstack', cp: cp.metadata.name, spec: spec as never, release: '2025.2' });
  t.match(section(conf, 'compute'), { catalog_type: 'compute', image_ref: 'a1b2', flavor_ref: '42', endpoint_type: 'public' }, 'added beside the derived options, one replaced');
  t.equal(conf.match(/^endpoint_type = /gm)?.length, 5, 'the replaced option once, in place');
  t.same(section(conf, 'compute-feature-enabled'), { resize: 'false' });
  t.ok(conf.indexOf('[compute-feature-enabled]') > conf.indexOf('[validation]'), 'a new section after the derived ones');
  t.notMatch(conf, /bad name|first|second|\[\[auth|admin_password/, 'what admission refuses is left out');
  const plain = tempestConf({ namespace: 'openstack', cp: cp.metadata.name, spec: cp.spec, release: '2025.2' });
  t.equal(tempestConf({ namespace: 'openstack', cp: cp.metadata.name, spec: { ...cp.spec, verification: { tempest: { extraConfig: 'x' } } } as never, release: '2025.2' }), plain, 'an extraConfig that is no map changes nothing');
});

t.test('Keystone alone: no service section, every service unavailable', async (t) => {
  const cp = fixtureControlPlane('controlplane.yaml');
  const conf = tempestConf({ namespace: 'openstack', cp: cp.metadata.name, spec: cp.spec, release: '2025.2' });
  for (const s of Object.values(TEMPEST_SECTION)) t.equal(section(conf, s), undefined, `no [${s}]`);
  t.same(section(conf, 'service_available'), { cinder: 'false', glance: 'false', horizon: 'false', neutron: 'false', nova: 'false', swift: 'false' });
});

t.test('list ConfigMaps (ListRefs): mounted at the path the arguments name; inline lists in our ConfigMap', async (t) => {
  const cp = fixtureControlPlane('controlplane.yaml');
  const spec: Obj = { ...cp.spec, verification: { tempest: { tests: { includeListRef: { name: 'lists', key: 'identity-2025.2.txt' }, exclude: ['test_a'] } } } };
  const rollout = { from: { release: '2025.1', image: { repository: 'k', tag: '1' } }, to: { release: '2025.2', image: { repository: 'k', tag: '2' } }, startedAt: '2026-11-21T12:00:00Z', phaseStartedAt: '2026-11-21T12:00:00Z', generation: 2 } as unknown as Rollout;
  const settings = tempestSettings(spec as never, '2025.2')!;
  const [job, configMap] = verificationChildren({ name: cp.metadata.name, namespace: 'openstack', uid: 'u', generation: 2 }, spec as never, rollout, settings) as Obj[];
  const pod = job!.spec.template.spec;
  const container = pod.containers[0];
  const includeAt = container.args[container.args.indexOf('--include-list') + 1] as string;
  const volume = (pod.volumes as Obj[]).find((v) => v.configMap?.name === 'lists');
  t.same(volume?.configMap.items, [{ key: 'identity-2025.2.txt', path: 'include-tests.txt' }], 'the user ConfigMap key as include-tests.txt');
  const mount = (container.volumeMounts as Obj[]).find((m) => m.name === volume?.name);
  t.equal(`${mount?.mountPath}/include-tests.txt`, includeAt, '--include-list names the mounted file');
  t.ok(mount?.readOnly);
  t.notOk('include-tests.txt' in configMap!.data, 'a ListRef is not copied into our ConfigMap');
  t.equal(configMap!.data['exclude-tests.txt'], 'test_a\n', 'an inline list is');
  const excludeAt = container.args[container.args.indexOf('--exclude-list') + 1] as string;
  const ours = (container.volumeMounts as Obj[]).find((m) => m.name === 'tempest-conf');
  t.equal(excludeAt, `${ours?.mountPath}/exclude-tests.txt`, '--exclude-list names our ConfigMap file');
  // Nothing included: the smoke set.
  const smoke = verificationChildren({ name: cp.metadata.name, namespace: 'openstack', uid: 'u', generation: 2 }, cp.spec, rollout, tempestSettings({ ...cp.spec, verification: { tempest: {} } } as never, '2025.2')!) as Obj[];
  t.same(smoke[0]!.spec.template.spec.containers[0].args, ['--concurrency', '2', '--smoke']);
});
