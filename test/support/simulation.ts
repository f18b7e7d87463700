// A simulation (src/sim/) driving a fresh in-process server, closed with the test.
import type { Test } from 'tap';
import { buildServer } from '../../src/server.js';
import { seededRandom } from '../../src/random.js';
import { Simulation } from '../../src/sim/simulation.js';
import type { ObjectRef } from '../../src/sim/cluster.js';
import type { Obj } from './shared.js';

export async function simulation(t: Test, cpInput: Obj, seed: string): Promise<{ sim: Simulation; cp: ObjectRef }> {
  let sim: Simulation | undefined;
  const app = await buildServer({ logger: false, clock: () => sim!.now, random: seededRandom(seed) });
  t.teardown(() => app.close());
  sim = new Simulation({ app });
  return { sim, cp: sim.createControlPlane(cpInput) };
}
