// The admission of spec.verification.tempest (src/api/verification.ts): the CEL rules and schema
// bounds refuse what could not run, the defaults fill the rest.
import t from 'tap';
import { controlPlaneCRD } from '../src/crd/generate.js';
import { VERIFY_NAME_BUDGET } from '../src/api/verification.js';
import { admission } from './support/crd.js';
import { fixtureControlPlane, type Obj } from './support/shared.js';

const admit = admission(controlPlaneCRD().spec.versions[0]!.schema.openAPIV3Schema as Obj);

function withTempest(tempest: Obj, name?: string): Obj {
  const cp = fixtureControlPlane('controlplane.yaml');
  cp.spec.verification = { tempest };
  if (name !== undefined) cp.metadata.name = name;
  return cp;
}

t.test('a Tempest verification is admitted with the defaults filled in', async (t) => {
  const { object, errors } = admit(withTempest({}));
  t.same(errors, []);
  t.same(object.spec.verification.tempest, { concurrency: 2, deadline: '1h' });
  t.same(admit(withTempest({ image: { repository: 'r', tag: 't' }, concurrency: 1, deadline: '2h30m', tests: { includeListRef: { name: 'lists', key: 'identity-2025.2.txt' }, exclude: ['a', 'b'] } })).errors, []);
  t.same(admit(withTempest({ extraConfig: { compute: { image_ref: '8a3c', flavor_ref: '42' }, 'compute-feature-enabled': { 'resize': 'false' } } })).errors, [], 'extraConfig of one-line values');
  t.same(admit(fixtureControlPlane('controlplane.yaml')).errors, [], 'unset is admitted (and no verification is defaulted)');
  t.notOk(admit(fixtureControlPlane('controlplane.yaml')).object.spec.verification);
});

t.test('admission refuses what could not run', async (t) => {
  const cases: [string, Obj, RegExp, string?][] = [
    ['include and includeListRef', { tests: { include: ['x'], includeListRef: { name: 'l', key: 'k' } } }, /set include or includeListRef, not both/],
    ['exclude and excludeListRef', { tests: { exclude: ['x'], excludeListRef: { name: 'l', key: 'k' } } }, /set exclude or excludeListRef, not both/],
    ['concurrency 0', { concurrency: 0 }, /tempest.concurrency must be at least 1/],
    ['deadline 30s', { deadline: '30s' }, /tempest.deadline must be a duration between 1m and 24h/],
    ['deadline 25h', { deadline: '25h' }, /tempest.deadline must be a duration between 1m and 24h/],
    ['deadline one hour', { deadline: 'one hour' }, /tempest.deadline must be a duration between 1m and 24h/],
    ['an empty include list', { tests: { include: [] } }, /fewer than 1 items/],
    ['an empty regex', { tests: { exclude: [''] } }, /fewer than 1 characters/],
    ['a list key that is no file name', { tests: { includeListRef: { name: 'l', key: 'a/b' } } }, /pattern/],
    ['a name over the budget', {}, /name must be at most 42 characters/, 'x'.repeat(VERIFY_NAME_BUDGET + 1)],
    ['the admin password in extraConfig', { extraConfig: { auth: { admin_password: 'x' } } }, /must not hold \[auth\] admin_password/],
    ['a value of two lines', { extraConfig: { compute: { image_ref: 'a\n[auth]' } } }, /a value is one line/],
    ['a value over 1024 characters', { extraConfig: { compute: { image_ref: 'a'.repeat(1025) } } }, /more than 1024 characters/],
  ];
  for (const [what, tempest, expected, name] of cases) t.match(admit(withTempest(tempest, name)).errors.join('\n'), expected, what);
  t.equal(VERIFY_NAME_BUDGET, 42, '63 - "-verify-" - "2025.2" - "-" - 6 hex');
  t.same(admit(withTempest({}, 'x'.repeat(VERIFY_NAME_BUDGET))).errors, [], 'a name of 42 characters is admitted');
  const long = fixtureControlPlane('controlplane.yaml');
  long.metadata.name = 'x'.repeat(VERIFY_NAME_BUDGET + 1);
  t.same(admit(long).errors, [], 'without a verification the name budget does not apply');
});
