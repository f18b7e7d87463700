// No spec makes a ControlPlane hook fail: a value of the wrong type anywhere in the spec (null, a
// number that overflowed to Infinity, a string for a list, an access rule without its fields) is
// an InvalidSpec condition naming the field in sync, every observed child kept, and finalize goes
// on as it would with a valid spec (a 500 there blocks the deletion for good).
import t from 'tap';
import { post, testServer } from './support/server.js';
import { converge, ids, managedCP } from './support/sync.js';
import { syncRequest } from './support/world.js';
import type { Obj } from './support/shared.js';

/** The request as JSON text with the spec value at `path` replaced by the JSON text `raw`. */
function withSpecValue(request: Obj, path: string[], raw: string): string {
  const copy = structuredClone(request);
  let holder = copy.parent.spec as Obj;
  for (const key of path.slice(0, -1)) holder = holder[key] ??= {};
  holder[path[path.length - 1]!] = '@@hostile@@';
  return JSON.stringify(copy).replace('"@@hostile@@"', raw);
}

const AC = ['korc', 'adminCredential', 'applicationCredential'];
const CASES: [string[], string, RegExp][] = [
  [['infrastructure', 'database'], 'null', /spec\.infrastructure\.database: must be an object, got null/],
  [['infrastructure', 'cache'], 'null', /spec\.infrastructure\.cache: must be an object, got null/],
  [['services', 'keystone'], 'null', /spec\.services\.keystone: must be an object, got null/],
  // After the null above: the spec memo once keyed both by JSON text (Infinity is written null).
  [['services', 'keystone'], '1e400', /spec\.services\.keystone: must be an object, got a number/],
  [['services', 'keystone', 'replicas'], '1e400', /spec\.services\.keystone\.replicas: must be/],
  [['infrastructure', 'database', 'port'], '-1e400', /spec\.infrastructure\.database\.port: must be/],
  [[...AC, 'accessRules'], '[{}]', /accessRules\[0\]\.method: is required/],
  [[...AC, 'accessRules'], '"x"', /accessRules: must be an array, got a string/],
  [[...AC, 'accessRules'], '[null]', /accessRules\[0\]: must be an object, got null/],
  [[...AC, 'accessRules'], '[{"method":1,"path":"/v3/x","service":"identity"}]', /accessRules\[0\]\.method: must be a string, got a number/],
  [['korc', 'adminCredential'], 'null', /spec\.korc\.adminCredential: must be an object, got null/],
  [['openStackRelease'], '1e400', /spec\.openStackRelease: must be a string, got a number/],
  // More than 10,000 values: validated up to the first error, then its whole top-level field goes.
  [[...AC, 'accessRules'], `[${Array.from({ length: 20_000 }, () => '{}').join(',')}]`, /accessRules\[0\]\.method: is required/],
  [['infrastructure', 'cache', 'servers'], `[${Array.from({ length: 20_000 }, () => '1').join(',')}]`, /cache\.servers\[0\]: must be a string, got a number/],
];

t.test('hostile spec values: InvalidSpec naming the field in sync, children kept; finalize unaffected', async (t) => {
  const { app } = await testServer({ level: 'silent' });
  t.teardown(() => app.close());
  const world = await converge(app, managedCP());
  const observed = ids(world.children);
  const finalizeValid = await post(app, '/controlplane/finalize', syncRequest(world.parent, world.children, world.related, true));
  t.equal(finalizeValid.status, 200);
  for (const [path, raw, named] of CASES) {
    const what = `spec.${path.join('.')} = ${raw.length > 60 ? `${raw.slice(0, 60)}… (${raw.length} characters)` : raw}`;
    const sync = await post(app, '/controlplane/sync', withSpecValue(syncRequest(world.parent, world.children, world.related), path, raw));
    t.equal(sync.status, 200, `${what}: sync answers 200`);
    const invalid = ((sync.json?.status?.conditions ?? []) as Obj[]).filter((c) => c.reason === 'InvalidSpec').map((c) => c.message as string);
    t.ok(invalid.some((m) => named.test(m)), `${what}: an InvalidSpec condition names the field (${invalid.join(' | ').slice(0, 200)})`);
    t.same(ids(sync.json?.children ?? []), observed, `${what}: every observed child kept`);
    const finalize = await post(app, '/controlplane/finalize', withSpecValue(syncRequest(world.parent, world.children, world.related, true), path, raw));
    t.equal(finalize.status, 200, `${what}: finalize answers 200`);
    t.equal(finalize.json?.finalized, finalizeValid.json.finalized, `${what}: finalize decides as with the valid spec`);
    t.same(ids(finalize.json?.children ?? []), ids(finalizeValid.json.children), `${what}: finalize keeps and releases as with the valid spec`);
  }
});
