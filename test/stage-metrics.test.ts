import t from 'tap';
import { testServer } from './support/server.js';
import { sync, managedCP } from './support/sync.js';

t.test("sync records the seed's per-stage series, with no per-object labels", async (t) => {
  const { app } = await testServer();
  t.teardown(() => app.close());
  await sync(app, managedCP());
  const bad = managedCP();
  bad.spec.infrastructure.database.host = 'db';
  await sync(app, bad);
  const text = (await app.inject({ method: 'GET', url: '/metrics' })).body;
  t.match(text, /c5c3_operator_reconcile_duration_seconds_count\{sub_reconciler="Infrastructure"\} 2/);
  t.match(text, /c5c3_operator_reconcile_errors_total\{sub_reconciler="Infrastructure",condition_type="InfrastructureReady"\} 1/);
  t.match(text, /c5c3_operator_reconcile_duration_seconds_bucket\{le="30",sub_reconciler="Infrastructure"\}/, 'the seed bucket contract ends at 30 s');
  t.notMatch(text, /sub_reconciler="DBCredentials"/, 'stages not reached are not measured');
  t.notMatch(text, /controlplane-keystone|namespace=/, 'no per-object labels');
});
