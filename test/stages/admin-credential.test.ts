// Stage 6, AdminCredential → AdminCredentialReady, called directly on a converged world: the
// round trip of the clouds.yaml to OpenBao and back, checked step by step.
import t from 'tap';
import { adminCredentialStage } from '../../src/controlplane/stages/admin-credential.js';
import { CONDITION } from '../../src/controlplane/conditions.js';
import { managedCP } from '../support/sync.js';
import { clusterSecretStore, readyCondition, secret } from '../support/world.js';
import { names } from '../support/korc.js';
import { convergedWorld, decidedTrue, run, type StageWorld } from '../support/stage.js';
import type { Obj } from '../support/shared.js';

const n = names();
const converged = convergedWorld(managedCP());
const ns = converged.parent.metadata.namespace;
const notReady = (o: Obj): Obj => ({ ...o, status: { conditions: [readyCondition(false)] } });
const changeChild = (w: StageWorld, kind: string, name: string, change: (o: Obj) => Obj | undefined): StageWorld => ({
  ...w,
  children: w.children.flatMap((c) => (c.kind === kind && c.metadata.name === name ? [change(structuredClone(c))].filter((x): x is Obj => x !== undefined) : [c])),
});
const withMaterialised = (w: StageWorld, cloudsYaml: string | undefined): StageWorld => ({
  ...w,
  related: [...w.related.filter((r) => !(r.kind === 'Secret' && r.metadata.name === 'k-orc-clouds-yaml')), ...(cloudsYaml === undefined ? [] : [secret(ns, 'k-orc-clouds-yaml', { 'clouds.yaml': cloudsYaml })])],
});

t.test('converged: Ready, and the stage emits no child of its own', async (t) => {
  const r = run(adminCredentialStage, converged);
  t.match(r.condition, { status: 'True', reason: 'AdminCredentialReady', message: /^Credential id-\S+ committed to OpenBao and materialised in Secret k-orc-clouds-yaml$/ });
  t.same(r.children, []);
});

t.test('each missing link waits with its own reason', async (t) => {
  const rows: [string, StageWorld, string][] = [
    ['KORC not True', converged, 'WaitingForKORC'],
    ['store not Ready', { ...converged, related: [...converged.related.filter((r) => r.kind !== 'ClusterSecretStore'), clusterSecretStore(false)] }, 'SecretStoreNotReady'],
    ['no credential id', changeChild(converged, 'ApplicationCredential', n.ac, (o) => ({ ...o, status: { ...o.status, id: undefined } })), 'WaitingForCredentialID'],
    ['no value', changeChild(converged, 'Secret', n.ac, (o) => ({ ...o, data: { ...o.data, value: undefined } })), 'WaitingForAppCredentialSecret'],
    ['PushSecret not Ready', changeChild(converged, 'PushSecret', n.push, notReady), 'WaitingForPushSecret'],
    ['ExternalSecret not Ready', changeChild(converged, 'ExternalSecret', 'k-orc-clouds-yaml', notReady), 'WaitingForCloudsYaml'],
    ['nothing materialised', withMaterialised(converged, undefined), 'WaitingForCloudsYamlSync'],
    ['garbage materialised', withMaterialised(converged, ': not yaml ['), 'WaitingForCloudsYamlSync'],
  ];
  for (const [what, world, reason] of rows) {
    const decided = what === 'KORC not True' ? decidedTrue() : undefined;
    const r = run(adminCredentialStage, world, decided ? { decided } : {});
    t.match(r.condition, { status: 'False', reason }, what);
    t.same(r.children, [], `${what}: nothing emitted`);
    t.same(r.outcome, { kind: 'waiting', requeueSeconds: 10 }, what);
  }
});

t.test('the materialised clouds.yaml of another credential: WaitingForCloudsYamlSync, CloudsYamlSyncStuck after 15 minutes', async (t) => {
  const stale = withMaterialised(converged, 'clouds:\n  admin:\n    auth_type: v3applicationcredential\n    auth:\n      auth_url: http://x/v3\n      application_credential_id: other\n      application_credential_secret: other\n');
  const rotated = { lastRotation: '2026-11-21T11:50:00Z' };
  const soon = run(adminCredentialStage, stale, { input: { credential: rotated } });
  t.match(soon.condition, { reason: 'WaitingForCloudsYamlSync', message: /does not authenticate with credential id-/ });
  const late = run(adminCredentialStage, stale, { input: { credential: rotated }, now: new Date('2026-11-21T12:06:00Z') });
  t.match(late.condition, { reason: 'CloudsYamlSyncStuck', message: /16 minutes after the credential changed/ });
  t.notMatch(JSON.stringify(late.condition), /other/, 'no secret value in the message');
});

t.test('gated on KORC only: the earlier conditions are not re-checked here', async (t) => {
  const r = run(adminCredentialStage, converged, { decided: decidedTrue(CONDITION.KORC) });
  t.match(r.condition, { status: 'True', reason: 'AdminCredentialReady' });
});
