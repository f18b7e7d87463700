// The rows every projected-credential stage (stages/projected-credential.ts) must satisfy; the
// DBCredentials and AdminPassword stage tests run them with their own names and keys.
import t from 'tap';
import type { Stage } from '../../src/controlplane/stage.js';
import { brownfieldCP, managedCP } from './sync.js';
import { allReady, applied, clusterSecretStore, readyCondition } from './world.js';
import { emitted, run } from './stage.js';

export interface ProjectedCase {
  stage: Stage;
  /** What the stage's messages call the credential. */
  what: string;
  name: string;
  remote: string;
  keys: string[];
  waiting: string;
  ready: string;
}

export function projectedCredentialTests(c: ProjectedCase): void {
  t.test(`${c.stage.name}: brownfield is the user's Secret, True with nothing emitted`, async (t) => {
    const r = run(c.stage, { parent: brownfieldCP(), children: [], related: [] });
    t.match(r.condition, { status: 'True', reason: 'BrownfieldUserSuppliedCredential' });
    t.same(r.children, []);
  });

  t.test(`${c.stage.name}: ClusterSecretStore not Ready (or absent) waits, creating nothing`, async (t) => {
    for (const related of [[clusterSecretStore(false)], []]) {
      const r = run(c.stage, { parent: managedCP(), children: [], related });
      t.match(r.condition, { status: 'False', reason: 'SecretStoreNotReady', message: /openbao-cluster-store/ });
      t.same(r.children, []);
      t.same(r.outcome, { kind: 'waiting', requeueSeconds: 10 });
    }
  });

  t.test(`${c.stage.name}: one ExternalSecret at the per-ControlPlane remote key, ${c.waiting} until it synced`, async (t) => {
    const cp = managedCP();
    const r = run(c.stage, { parent: cp, children: [], related: [clusterSecretStore()] });
    t.same(emitted(r), [`ExternalSecret/${c.name}`]);
    t.match(r.condition, { status: 'False', reason: c.waiting });
    const es = r.children[0]!;
    t.same(
      (es.spec as { data: { secretKey: string; remoteRef: { key: string; property: string } }[] }).data.map((d) => [d.secretKey, d.remoteRef.key, d.remoteRef.property]),
      c.keys.map((k) => [k, c.remote, k]),
    );
    const notSynced = applied(es, cp, { conditions: [readyCondition(false, 'SecretSyncedError')] });
    t.match(run(c.stage, { parent: cp, children: [notSynced], related: [clusterSecretStore()] }).condition, { status: 'False', reason: c.waiting });
    const synced = applied(es, cp, allReady());
    const done = run(c.stage, { parent: cp, children: [synced], related: [clusterSecretStore()] });
    t.match(done.condition, { status: 'True', reason: c.ready, message: `ExternalSecret ${c.name} synced the ${c.what}` });
    t.same(done.children, r.children, 'the same child, whatever its state');
  });
}
