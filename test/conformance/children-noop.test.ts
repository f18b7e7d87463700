// No-op updates (reference/metacontroller.md §4.1, §8.3): Metacontroller replaces every list that
// is not associative wholesale, so a child whose list items lack what the API server defaults
// would be UPDATEd on every sync. Every emitted child, stored as the API server stores it
// (its upstream CRD's defaults applied), must merge with its own desired state to itself.
import t from 'tap';
import { testServer } from '../support/server.js';
import { converge, managedCP } from '../support/sync.js';
import { admit } from '../support/children.js';
import { merge } from '../../src/sim/merge.js';
import { conformance, type Obj } from '../support/shared.js';

/** Paths where two JSON values differ (first few). */
function differences(a: unknown, b: unknown, path = '', out: string[] = []): string[] {
  if (out.length > 5) return out;
  if (Array.isArray(a) && Array.isArray(b)) {
    if (a.length !== b.length) out.push(`${path}: ${a.length} items vs ${b.length}`);
    else a.forEach((x, i) => differences(x, b[i], `${path}[${i}]`, out));
  } else if (a && b && typeof a === 'object' && typeof b === 'object' && !Array.isArray(a) && !Array.isArray(b)) {
    for (const k of new Set([...Object.keys(a), ...Object.keys(b)])) differences((a as Obj)[k], (b as Obj)[k], `${path}.${k}`, out);
  } else if (a !== b) out.push(`${path}: ${JSON.stringify(a)} vs ${JSON.stringify(b)}`);
  return out;
}

t.test('every emitted child, stored with its CRD defaults, needs no update on the next sync', conformance, async (t) => {
  const { app } = await testServer();
  t.teardown(() => app.close());
  const cp = managedCP();
  cp.spec.korc.adminCredential.applicationCredential = { ...(cp.spec.korc.adminCredential.applicationCredential ?? {}), accessRules: [{ service: 'identity', method: 'GET', path: '/v3/users' }] };
  const world = await converge(app, cp);
  const seen = new Set<string>();
  for (const desired of world.history!.flatMap((r) => r.children)) {
    if (desired.kind === 'Secret') continue; // core type: no defaults inside data
    const stored = admit(desired)?.object;
    if (!stored) {
      t.fail(`no CRD for ${desired.kind}`);
      continue;
    }
    seen.add(desired.kind);
    const merged = merge(stored, desired, desired);
    t.same(differences(merged, stored), [], `${desired.kind} ${desired.metadata.name}: Metacontroller's merge changes nothing`);
  }
  t.ok(['ExternalSecret', 'PushSecret', 'ApplicationCredential', 'Keystone'].every((k) => seen.has(k)), [...seen].join(', '));
});

t.test('the check catches an atomic list whose items lack a default', conformance, async (t) => {
  const desired = {
    apiVersion: 'external-secrets.io/v1',
    kind: 'ExternalSecret',
    metadata: { name: 'x', namespace: 'n' },
    spec: { secretStoreRef: { kind: 'ClusterSecretStore', name: 's' }, target: { name: 'x' }, data: [{ secretKey: 'a', remoteRef: { key: 'k' } }] },
  };
  const stored = admit(desired)!.object;
  t.not(differences(merge(stored, desired, desired), stored).length, 0, 'defaults inside data[] items are lost by a wholesale list replace');
});
