// Every stage declares what it reads of the observed objects (Stage.observes: the kinds of children
// and related objects), and its kept result is keyed by exactly that (src/controlplane/stage-memo.ts).
// A stage that looks at a kind it did not declare is computed afresh (never answered from memory),
// but it would never be kept either: this test fails on it, over every captured sync request (every
// scenario of hooks/: Keystone only, brownfield, the compute cloud, rollouts, rotations, outages)
// at clocks from now to a year on. test/stage-memo-exact.test.ts proves the key complete: a warm server
// answers as a fresh one over request pairs that differ anywhere.
import t from 'tap';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { CapturedCall } from '../src/capture/capture.js';
import type { ControlPlaneHookRequest } from '../src/api/hooks.js';
import { syncControlPlane } from '../src/controlplane/sync.js';
import { STAGE_TABLE } from '../src/controlplane/pipeline.js';
import { seededRandom } from '../src/random.js';
import { REPO_ROOT } from './support/shared.js';

const SYNC_DIR = join(REPO_ROOT, 'hooks', 'controlplane-sync');
const files = readdirSync(SYNC_DIR).sort();
const OFFSETS_SECONDS = [0, 59, 16 * 60, 2 * 86400, 400 * 86400];

t.test('no stage looks at an observed kind it did not declare', async (t) => {
  t.ok(files.some((f) => f.startsWith('cloud-')), 'the compute cloud is among the captures');
  const undeclared = new Set<string>();
  const ran = new Set<string>();
  for (const file of files) {
    const call = JSON.parse(readFileSync(join(SYNC_DIR, file), 'utf8')) as CapturedCall;
    for (const offset of OFFSETS_SECONDS) {
      syncControlPlane(call.request as ControlPlaneHookRequest, {
        now: () => new Date(new Date(call.clock).getTime() + offset * 1000),
        random: seededRandom('stage-reads'),
        onStage: (trace) => ran.add(trace.name),
        onUndeclared: (stage, where, kind) => undeclared.add(`${stage.name} looks at ${where} ${kind} (${file})`),
      });
    }
  }
  t.same([...undeclared], [], 'every look at an observed kind is declared');
  // The service stages and the OVN reference stage are built per service: every one must have run.
  const names = STAGE_TABLE.map((s) => s.name);
  t.same(names.filter((n) => !ran.has(n)), [], `every stage of the table ran (${names.length})`);
});

t.test('the probe hears of an undeclared look', async (t) => {
  const call = JSON.parse(readFileSync(join(SYNC_DIR, files.find((f) => /converged/.test(f))!), 'utf8')) as CapturedCall;
  const [first] = STAGE_TABLE;
  const observes = first!.observes;
  const heard: string[] = [];
  try {
    // The first stage made to declare nothing: whatever it looks at is heard of.
    Object.assign(first!, { observes: { children: [], related: [] } });
    syncControlPlane(call.request as ControlPlaneHookRequest, { now: () => new Date(call.clock), random: seededRandom('x'), onUndeclared: (s, where, kind) => heard.push(`${s.name} ${where} ${kind}`) });
  } finally {
    Object.assign(first!, { observes });
  }
  t.ok(heard.length > 0, heard.join(', '));
});
