// The payloads in hooks/: simulated lifecycles (src/sim/) with every hook call observed; the
// first call of each new situation is kept, sanitised, with the response a server gives when the
// request is replayed at the recorded clock with the recorded seed (so the files replay exactly).
// `npm run gen` writes them; a test fails when they are stale.
import { buildServer, type HooksServer } from '../server.js';
import { Simulation } from '../sim/simulation.js';
import { PHASES, SCENARIOS, runPhase } from '../sim/scenarios.js';
import type { HookCall } from '../sim/metacontroller.js';
import type { Obj } from '../sim/cluster.js';
import { seededRandom } from '../random.js';
import { Sanitizer } from '../capture/sanitize.js';
import type { CapturedCall } from '../capture/capture.js';
import { SUB_CONDITIONS } from '../controlplane/conditions.js';

/** The placeholder key of hooks/ (public: the values it hides are simulated ones). */
export const HOOKS_KEY = 'c5c3-hooks/hooks';
export const HOOKS_SEED = 'hooks';

const CONDITION_ORDER: readonly string[] = SUB_CONDITIONS;
const kebab = (s: string) => s.replace(/([a-z0-9])([A-Z])/g, '$1-$2').replace(/([A-Z])([A-Z][a-z])/g, '$1-$2').toLowerCase();
const conditions = (status: Obj | undefined): Obj[] => status?.conditions ?? [];

/** What a reader should know about one call, as a file-name part; undefined = not worth a file. */
function situation(call: HookCall): string | undefined {
  const body = call.answer.body;
  if (call.path.endsWith('/customize')) return 'related-objects';
  if (call.path === '/controlplane/finalize') {
    if (body.finalized) return 'finalized';
    const kept = new Set((body.children as Obj[]).map((c) => `${c.kind}/${c.metadata.name}`));
    const observed = Object.values(call.request.children as Obj).flatMap((g) => Object.values(g as Obj)) as Obj[];
    const left = observed.filter((o) => !kept.has(`${o.kind}/${o.metadata.name}`)).map((o) => o.kind.toLowerCase());
    return left.length > 0 ? `deletes-${[...new Set(left)].sort().join('-')}` : 'waiting-for-deletion';
  }
  if (call.path === '/secretaggregate/sync') {
    const ready = conditions(body.status).find((c) => c.type === 'Ready');
    return ready ? kebab(ready.reason) : undefined;
  }
  if (call.path === '/credentialrotation/sync') {
    return conditions(body.status).map((c) => kebab(c.reason)).join('-');
  }
  const all = conditions(body.status);
  const ready = all.find((c) => c.type === 'Ready');
  if (ready?.status === 'True') return 'converged';
  if (ready?.reason === 'DuplicateControlPlane') return 'duplicate-parked';
  const first = CONDITION_ORDER.map((t) => all.find((c) => c.type === t)).find((c) => c?.status !== 'True');
  return first ? kebab(first.reason) : undefined;
}

interface Run {
  name: string;
  controlPlane: Obj;
  phases: string[];
  /** The hooks whose calls are kept (default: every hook). */
  hooks?: string[];
  /** The phases whose calls are kept (default: every phase). */
  keepPhases?: string[];
}

const MANAGED: Obj = {
  metadata: { name: 'keystone', namespace: 'openstack' },
  spec: {
    openStackRelease: '2025.2',
    region: 'RegionOne',
    infrastructure: { database: { clusterRef: { name: 'openstack-db' } }, cache: { clusterRef: { name: 'openstack-memcached' } } },
    services: { keystone: { replicas: 3 } },
  },
};
/** The brownfield ControlPlane of the captured lifecycles (the e2e suite derives its own from it). */
export const BROWNFIELD: Obj = {
  metadata: { name: 'keystone', namespace: 'tenant-b' },
  spec: {
    openStackRelease: '2025.2',
    region: 'RegionOne',
    infrastructure: {
      database: { host: 'db.example.com', database: 'keystone', secretRef: { name: 'keystone-db', key: 'password' } },
      cache: { servers: ['memcached-0.example.com:11211'], backend: 'dogpile.cache.pymemcache' },
    },
    services: { keystone: { replicas: 1 } },
  },
};

/** Placement, Glance with one S3 store and a managed bus beside Keystone (docs/architecture.md §2.13; the e2e suite derives its own from it). */
export const SERVICES: Obj = {
  metadata: { name: 'keystone', namespace: 'openstack-services' },
  spec: {
    ...MANAGED.spec,
    infrastructure: { ...MANAGED.spec.infrastructure, messaging: { replicas: 3 } },
    services: {
      keystone: { replicas: 3 },
      placement: { replicas: 2 },
      glance: {
        replicas: 2,
        backends: [{ name: 's3', type: 'S3', isDefault: true, s3: { bucket: 'glance-images', endpoint: 'https://s3.example.com', region: 'eu-1', credentialsSecretRef: { name: 'glance-s3-credentials' } } }],
      },
    },
  },
};

/**
 * The compute cloud (issue 39): Keystone and the five services beside it on a managed bus, Neutron
 * on the OVNCentral `openstack-ovn`, Cinder with one NFS backend (docs/architecture.md §2.13; the
 * e2e suite derives its own from it).
 */
export const CLOUD: Obj = {
  metadata: { name: 'keystone', namespace: 'openstack-cloud' },
  spec: {
    ...SERVICES.spec,
    services: {
      ...SERVICES.spec.services,
      neutron: { replicas: 2, ovn: { centralRef: { name: 'openstack-ovn' } } },
      cinder: { replicas: { api: 2 }, backends: [{ name: 'nfs-1', type: 'NFS', nfs: { server: 'nfs.example.com', path: '/exports/cinder' } }] },
      nova: { replicas: { api: 2, scheduler: 2, conductor: 2 } },
    },
  },
};

/** The managed ControlPlane with a nightly database backup to a volume (docs/architecture.md §2.15). */
export const BACKUP: Obj = {
  metadata: { name: 'keystone', namespace: 'openstack-backup' },
  spec: {
    ...MANAGED.spec,
    infrastructure: {
      ...MANAGED.spec.infrastructure,
      database: { clusterRef: { name: 'openstack-db' }, backup: { schedule: '0 3 * * *', storage: { persistentVolumeClaim: { resources: { requests: { storage: '50Gi' } } } } } },
    },
  },
};

export const RUNS: Run[] = [
  { name: 'managed', controlPlane: MANAGED, phases: ['converge', 'duplicate', 'remove-duplicate', 'rotate-password', 'remint', 'outage', 'recover', 'delete'] },
  { name: 'brownfield', controlPlane: BROWNFIELD, phases: ['converge', 'delete'] },
  { name: 'services', controlPlane: SERVICES, phases: ['converge', 'rotate-service-password', 'delete'], hooks: ['controlplane-sync', 'controlplane-finalize', 'controlplane-customize', 'credentialrotation-sync', 'credentialrotation-customize'] },
  { name: 'cloud', controlPlane: CLOUD, phases: ['converge', 'upgrade', 'delete'], hooks: ['controlplane-sync', 'controlplane-finalize', 'controlplane-customize'] },
  {
    name: 'aggregate',
    controlPlane: MANAGED,
    phases: ['converge', ...SCENARIOS.aggregate!],
    hooks: ['secretaggregate-sync', 'secretaggregate-customize'],
  },
  // A ControlPlane taken over from the reference operator (docs/hooks.md "Taking over…"): the first
  // calls Metacontroller makes after the cutover, with no bookkeeping of ours on the children.
  { name: 'takeover', controlPlane: MANAGED, phases: ['converge', ...SCENARIOS.takeover!], hooks: ['controlplane-sync'], keepPhases: ['takeover'] },
  { name: 'backup', controlPlane: BACKUP, phases: ['converge', ...SCENARIOS.backup!], hooks: ['controlplane-sync'], keepPhases: SCENARIOS.backup! },
];

/** A call's request through a fresh server at its clock and seed: the HTTP status and JSON body. */
export async function replayAnswer(call: Pick<CapturedCall, 'hook' | 'clock' | 'randomSeed' | 'request'>): Promise<{ status: number; body: unknown }> {
  const clock = new Date(call.clock);
  const app = await buildServer({ logger: false, clock: () => clock, randomSeed: call.randomSeed });
  try {
    const res = await app.inject({ method: 'POST', url: call.hook, headers: { 'content-type': 'application/json' }, payload: JSON.stringify(call.request) });
    let body: unknown;
    try {
      body = res.json();
    } catch {
      body = res.body;
    }
    return { status: res.statusCode, body };
  } finally {
    await app.close();
  }
}

async function replay(call: CapturedCall): Promise<unknown> {
  const { status, body } = await replayAnswer(call);
  if (status !== 200) throw new Error(`${call.hook} replay answered ${status}: ${JSON.stringify(body)}`);
  return body;
}

/** A hooks/ file's request replayed and sanitised: what its `response` must be. */
export async function replayCaptured(call: CapturedCall, key: string | Buffer = HOOKS_KEY): Promise<unknown> {
  const [, response] = new Sanitizer(key).sanitize(call.request, await replay(call));
  return response;
}

const reasons = (response: unknown) => JSON.stringify(conditions((response as Obj)?.status).map((c) => [c.type, c.status, c.reason]));

/** Every hooks/ file: path relative to the repository → content. */
export async function renderHookPayloads(): Promise<Map<string, string>> {
  const files = new Map<string, string>();
  const sanitizer = new Sanitizer(HOOKS_KEY);
  for (const run of RUNS) {
    let sim: Simulation | undefined;
    const app: HooksServer = await buildServer({ logger: false, clock: () => sim!.now, random: seededRandom(`hooks-${run.name}`) });
    const seen = new Set<string>();
    /** The situation of the last call per hook and parent: a file is kept only when it changes. */
    const last = new Map<string, string>();
    const picked: { file: string; call: HookCall }[] = [];
    let phase = '';
    sim = new Simulation({
      app,
      onCall: (call) => {
        const what = situation(call);
        if (what === undefined) return;
        const hook = call.path.slice(1).replace('/', '-');
        if (run.hooks && !run.hooks.includes(hook)) return;
        if (run.keepPhases && !run.keepPhases.includes(phase)) return;
        const parent = (call.request.parent ?? call.request.object)?.metadata?.name;
        const previous = last.get(`${hook}|${parent}`);
        last.set(`${hook}|${parent}`, what);
        const key = `${hook}|${phase}|${what}`;
        if (previous === what || seen.has(key)) return;
        seen.add(key);
        const n = picked.filter((p) => p.file.startsWith(`hooks/${hook}/${run.name}-`)).length + 1;
        picked.push({ file: `hooks/${hook}/${run.name}-${String(n).padStart(2, '0')}-${phase}-${what}.json`, call });
      },
    });
    const cp = sim.createControlPlane(run.controlPlane);
    for (const name of run.phases) {
      phase = name;
      const result = await runPhase(sim, cp, PHASES[name]!);
      if (result.problems.length > 0) throw new Error(`${run.name} ${name}: ${result.problems.join('; ')}`);
    }
    await app.close();
    for (const { file, call } of picked) {
      const [request, original] = sanitizer.sanitize(call.request, call.answer.body);
      const captured: CapturedCall = { hook: call.path, clock: call.at.toISOString(), randomSeed: HOOKS_SEED, request, response: undefined };
      captured.response = await replayCaptured(captured);
      if (reasons(captured.response) !== reasons(original)) {
        throw new Error(`${file}: the sanitised request replays to other conditions than the original call: ${reasons(captured.response)} vs ${reasons(original)}`);
      }
      files.set(file, `${JSON.stringify(captured, null, 2)}\n`);
    }
  }
  return files;
}
