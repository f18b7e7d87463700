// hooks/: the files are what `npm run gen` writes today, the situations are there, and none holds
// a simulated secret; every payload replays to its recorded response in test/hooks-replay-{1,2,3}.test.ts
// (a third of the files each: each file stays well inside the per-file timeout on a busy machine).
import t from 'tap';
import { readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { renderHookPayloads } from '../src/cli/hook-payloads.js';
import { REPO_ROOT } from './support/shared.js';
import { secretObjects } from './support/secrets.js';
import { HOOKS_DIR, payloadFiles, read } from './support/hooks.js';
import { IDENTIFIER_KEYS } from '../src/capture/secret-values.js';



t.test('the situations the issue names are there', async (t) => {
  const names = payloadFiles().map((f) => relative(HOOKS_DIR, f));
  for (const pattern of [
    /^controlplane-sync\/managed-01-.*waiting-for-database/,
    /^controlplane-sync\/brownfield-01-/,
    /^controlplane-sync\/managed-.*-converged/,
    /^controlplane-sync\/managed-.*-rotate-password-re-minting/,
    /^controlplane-sync\/managed-.*-duplicate-parked/,
    /^credentialrotation-sync\/managed-.*-rotation-triggered/,
    /^credentialrotation-sync\/managed-.*-no-rotation-needed-rotation-completed/,
    /^controlplane-finalize\/managed-.*-deletes-endpoint-service/,
    /^controlplane-finalize\/managed-.*-deletes-applicationcredential/,
    /^controlplane-finalize\/managed-.*-finalized/,
    /^controlplane-customize\//,
    /^credentialrotation-customize\//,
  ]) {
    t.ok(names.some((n) => pattern.test(n)), String(pattern));
  }
});

t.test('requests captured from the real Metacontroller 4.17.2 (npm run e2e) are kept beside them', async (t) => {
  const captured = payloadFiles().map((f) => relative(HOOKS_DIR, f)).filter((n) => n.includes('/metacontroller-4.17.2-'));
  for (const pattern of [/^controlplane-sync\/.*-ready-all-ready/, /^controlplane-finalize\/.*-finalized/, /^controlplane-customize\//, /^credentialrotation-sync\//, /^secretaggregate-sync\//]) {
    t.ok(captured.some((n) => pattern.test(n)), String(pattern));
  }
  for (const file of captured) t.match(read(join(HOOKS_DIR, file)).request, { controller: { apiVersion: 'metacontroller.k8s.io/v1alpha1' } }, `${file}: Metacontroller's own request`);
});

t.test('hooks/ is what `npm run gen` writes (regenerate when this fails)', async (t) => {
  const rendered = await renderHookPayloads();
  // Generated files only: the ones captured from the real Metacontroller are kept by hand.
  const onDisk = payloadFiles().map((f) => relative(REPO_ROOT, f)).filter((f) => !f.includes('/metacontroller-'));
  t.same(onDisk, [...rendered.keys()].sort(), 'the same files');
  for (const [path, content] of rendered) t.equal(readFileSync(join(REPO_ROOT, path), 'utf8'), content, path);
});

t.test('no simulated secret in any file; every Secret value is a placeholder', async (t) => {
  const b64 = (s: string) => Buffer.from(s).toString('base64');
  const forbidden = ['sim-Admin-Passw0rd', 'sim-db-password'];
  for (const file of payloadFiles()) {
    const text = readFileSync(file, 'utf8');
    for (const secret of forbidden) {
      t.notOk(text.includes(secret) || text.includes(b64(secret).slice(0, 16)), `${relative(HOOKS_DIR, file)} holds no ${secret}`);
    }
    const secrets = secretObjects(read(file));
    for (const s of secrets) {
      for (const [key, value] of Object.entries((s.data ?? {}) as Record<string, string>)) {
        const text = Buffer.from(value, 'base64').toString('utf8');
        // An identifier (a user or host name, a port) stays as it is; every secret is a placeholder.
        if (IDENTIFIER_KEYS.has(key)) continue;
        const ok = key === 'clouds.yaml' ? /(password|application_credential_secret): redacted-[0-9a-f]{16}\n/.test(text) : /^redacted-[0-9a-f]{16}$/.test(text);
        if (!ok) t.fail(`${relative(HOOKS_DIR, file)}: Secret ${s.metadata.name} key ${key} is not a placeholder`);
      }
    }
  }
});
