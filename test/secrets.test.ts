// No admin password, application-credential secret or clouds.yaml content in any log line (at
// debug level), metric, error body or captured file, over a whole simulated lifecycle plus
// malformed requests that carry secrets.
import t from 'tap';
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { testServer, post } from './support/server.js';
import { Simulation } from '../src/sim/simulation.js';
import { PHASES, SCENARIOS, runPhase } from '../src/sim/scenarios.js';
import { managedCP } from './support/sync.js';
import { leaks, secretValues } from './support/secrets.js';

t.test('secrets stay out of logs, metrics, error bodies and captures', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'c5c3-secrets-'));
  let sim: Simulation | undefined;
  const { app, logs } = await testServer({ level: 'debug', clock: () => sim!.now, capture: { dir, key: 'k' } });
  const seen = new Set<string>();
  const errorBodies: string[] = [];
  sim = new Simulation({
    app,
    onCall: (call) => {
      for (const s of secretValues(call.request)) seen.add(s);
      for (const s of secretValues(call.answer.body)) seen.add(s);
      if (call.answer.statusCode !== 200) errorBodies.push(JSON.stringify(call.answer.body));
    },
  });
  const cp = sim.createControlPlane(managedCP());
  for (const name of ['converge', 'rotate-password', 'remint', 'outage', 'recover', ...SCENARIOS.aggregate!]) t.same((await runPhase(sim, cp, PHASES[name]!)).problems, [], name);
  const last = sim.controlPlanes.calls.at(-1)!.request;

  // Requests that fail, carrying the secrets of the last sync.
  const text = JSON.stringify(last);
  for (const body of [text.slice(0, text.length - 10), { ...last, parent: { ...last.parent, kind: 'Nope' } }, { ...last, children: [] }]) {
    const res = await post(app, '/controlplane/sync', body);
    t.equal(res.status, 400);
    errorBodies.push(res.body);
  }
  // And the SecretAggregate's last sync, carrying its sources and target, failing the same ways.
  const aggregate = sim.aggregates.calls.filter((c) => c.path === '/secretaggregate/sync').at(-1)!.request;
  const aggregateText = JSON.stringify(aggregate);
  for (const body of [aggregateText.slice(0, aggregateText.length - 10), { ...aggregate, parent: { ...aggregate.parent, kind: 'Nope' } }, { ...aggregate, related: [] }]) {
    const res = await post(app, '/secretaggregate/sync', body);
    t.equal(res.status, 400);
    errorBodies.push(res.body);
  }
  await runPhase(sim, cp, PHASES.delete!);
  const metrics = (await app.inject({ method: 'GET', url: '/metrics' })).body;
  await app.close();

  t.ok(seen.size >= 8, `${seen.size} secret values went through the hooks`);
  t.ok(logs.length > 100, `${logs.length} log lines at debug level`);
  t.same(leaks(logs.join('\n'), seen), [], 'no secret in any log line');
  t.same(leaks(metrics, seen), [], 'no secret in the metrics');
  t.same(leaks(errorBodies.join('\n'), seen), [], 'no secret in any error body');
  const captured = readdirSync(dir).map((f) => readFileSync(join(dir, f), 'utf8'));
  t.ok(captured.length > 50, `${captured.length} captured calls`);
  t.same(leaks(captured.join('\n'), seen), [], 'no secret in any captured file');
  t.notOk(logs.some((l) => l.includes('Passw0rd') || l.includes('sim-mq-password')), 'not even a fragment of the admin or messaging password');
});
