// `npm run simulate -- <controlplane.yaml> [--scenario NAME]...`: the hooks in process under the
// Metacontroller model with simulated operators (src/sim/), printed as a timeline. Exits 1 when
// a phase does not reach its goal or misbehaves on the way, 2 on a usage or admission error.
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { buildServer } from '../server.js';
import { seededRandom } from '../random.js';
import { AdmissionError, Simulation } from '../sim/simulation.js';
import { ALL_SCENARIOS, PHASES, SCENARIOS, runPhase, conditionOf } from '../sim/scenarios.js';
import { SCENARIO_STARTS_ONE_RELEASE_EARLIER } from '../sim/upgrade-phases.js';
import { previousRelease } from '../controlplane/rollout/release-path.js';
import { formatRound } from '../sim/timeline.js';
import { readControlPlaneInput } from '../sim/input.js';

const USAGE = `usage: npm run simulate -- <controlplane.yaml> [--scenario NAME]... [--tick SECONDS] [--max-rounds N] [--seed TEXT]

Runs the hooks in process under a model of Metacontroller with simulated operators: the
ControlPlane of the file converges, then each scenario runs; prints a timeline and a summary.
Try: npm run simulate -- examples/controlplane.yaml --scenario all

  -s, --scenario NAME  run after convergence, in the order given (repeat or comma-separate):
                       ${Object.keys(SCENARIOS).join(', ')},
                       all (= ${ALL_SCENARIOS.join(', ')}); default: none
  --tick SECONDS       simulated time per round, 1 to 600 (default: 5)
  --max-rounds N       rounds a phase may take to reach its goal (default: 200)
  --seed TEXT          seed of the hooks' random source (default: simulate)
  -h, --help           this text; nothing is run

Exit codes: 0 every phase reached its goal, 1 a phase did not or misbehaved on the way,
2 usage error, unreadable file (a YAML syntax error, by its line), or a ControlPlane the API
server would refuse (an unknown field, by its path, or a value its schema refuses).`;

function fail(message: string): never {
  process.stderr.write(`simulate: ${message}\n${USAGE}\n`);
  process.exit(2);
}

async function main(): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      allowPositionals: true,
      options: { scenario: { type: 'string', multiple: true, short: 's' }, tick: { type: 'string' }, 'max-rounds': { type: 'string' }, seed: { type: 'string' }, help: { type: 'boolean', short: 'h' } },
    });
  } catch (err) {
    fail((err as Error).message);
  }
  if (parsed.values.help) {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  if (parsed.positionals.length !== 1) fail('exactly one ControlPlane file is needed');
  const requested = (parsed.values.scenario ?? []).flatMap((s) => s.split(',')).flatMap((s) => (s === 'all' ? ALL_SCENARIOS : [s]));
  for (const s of requested) if (!SCENARIOS[s]) fail(`unknown scenario "${s}"`);
  if (requested.includes('delete') && requested.indexOf('delete') !== requested.length - 1) fail('delete ends a run: give it last');
  const tick = parsed.values.tick === undefined ? 5 : Number(parsed.values.tick);
  if (!Number.isInteger(tick) || tick < 1 || tick > 600) fail('--tick must be a whole number of seconds from 1 to 600');

  const maxRounds = parsed.values['max-rounds'] === undefined ? 200 : Number(parsed.values['max-rounds']);
  if (!Number.isInteger(maxRounds) || maxRounds < 1) fail('--max-rounds must be a positive whole number');

  let text: string;
  try {
    text = readFileSync(parsed.positionals[0]!, 'utf8');
  } catch (err) {
    fail(`cannot read ${parsed.positionals[0]}: ${(err as NodeJS.ErrnoException).code ?? 'error'}`);
  }
  // Refused as kubectl apply refuses it: a syntax error by its line, an unknown field by its path.
  const reading = readControlPlaneInput(text, parsed.positionals[0]!);
  if (!reading.ok) fail(reading.problems.join('\n'));
  const input = reading.controlPlane as Record<string, any>;

  let sim: Simulation | undefined;
  const app = await buildServer({ logger: false, clock: () => sim!.now, random: seededRandom(parsed.values.seed ?? 'simulate') });
  sim = new Simulation({ app, tickSeconds: tick });
  // An upgrade scenario first installs the release before the file's, then upgrades to it.
  const earlier = requested.some((s) => SCENARIO_STARTS_ONE_RELEASE_EARLIER.has(s)) ? previousRelease(String(input.spec?.openStackRelease)) : undefined;
  if (earlier) input.spec.openStackRelease = earlier;
  let cp;
  try {
    cp = sim.createControlPlane(input);
  } catch (err) {
    if (err instanceof AdmissionError) fail(err.message);
    throw err;
  }
  const managed = !!sim.get(cp)!.spec.infrastructure.database.clusterRef;
  console.log(`Simulating ControlPlane ${cp.name} in namespace ${cp.namespace} (${managed ? 'managed database and cache' : 'brownfield database and cache'}), ${tick} s per round`);

  const phases = ['converge', ...requested.flatMap((s) => SCENARIOS[s]!)];
  const summary: string[] = [];
  let failed = false;
  for (const name of phases) {
    const phase = PHASES[name]!;
    console.log(`\n== ${phase.name}: ${phase.title}`);
    const result = await runPhase(sim, cp, phase, maxRounds);
    for (const record of result.records) for (const line of formatRound(record, sim.rounds[0]!.at)) console.log(line);
    const ready = conditionOf(sim.get(cp), 'Ready');
    const id = sim.get(cp)?.status?.adminApplicationCredential?.id;
    const aggregates = sim.cluster
      .list((o) => o.kind === 'SecretAggregate' && o.metadata.namespace === cp.namespace)
      .map((a) => `, SecretAggregate ${a.metadata.name} Ready=${conditionOf(a, 'Ready')?.status ?? 'unknown'} ${conditionOf(a, 'Ready')?.reason ?? ''}`.trimEnd());
    const state = sim.get(cp) ? `Ready=${ready?.status ?? 'unknown'} ${ready?.reason ?? ''}${id ? `, admin application credential ${id}` : ''}${aggregates.join('')}` : 'ControlPlane gone, children gone';
    const outcome = result.problems.length === 0 ? `OK after ${result.rounds} round(s): ${state}` : `FAILED: ${result.problems.join('; ')} (${state})`;
    console.log(`-> ${outcome}`);
    summary.push(`${phase.name}: ${outcome}`);
    if (result.problems.length > 0) {
      failed = true;
      break;
    }
  }
  console.log(`\nSummary\n${summary.map((s) => `  ${s}`).join('\n')}`);
  await app.close();
  return failed ? 1 : 0;
}

main().then(
  (code) => process.exit(code),
  (err) => {
    process.stderr.write(`simulate: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exit(1);
  },
);
