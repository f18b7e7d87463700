// The fleet of the benchmark: N converged ControlPlanes, one per namespace, each with its own
// name, namespace and uids, as Metacontroller would send their resyncs.
//
// One ControlPlane is taken through its lifecycle by the simulation (src/sim/: the hooks under a
// model of Metacontroller and the operators, as `npm run simulate` and the hooks/ files do) until
// its resync repeats byte for byte: the steady request of a converged ControlPlane. Its name and
// namespace are chosen to occur nowhere else (FLEET_NAME, FLEET_NAMESPACE), so member i is that
// request with them and every uid rewritten everywhere they occur: object names and keys, owner
// references, remote keys, labels, the last-applied annotations (parsed, rewritten, serialised
// again), Secret values (decoded, rewritten, encoded again: a clouds.yaml names its namespace),
// the hashes over those values (the force-sync document hash, the PushSecret source digest, ESO's
// data hash), recomputed from their rewritten preimages, and ESO's `status.syncedResourceVersion`
// (a hash over the labels and annotations it reconciled) where it was current.
// `member(i).answer(template answer)` rewrites an answer alike: bench.mjs checks that the server's
// answer to the members it samples (the first 30, every 10th after) is the template's answer so
// rewritten (and Ready): each is a valid converged request, not merely a parseable one.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { buildServer } from '../dist/server.js';
import { seededRandom } from '../dist/random.js';
import { Simulation } from '../dist/sim/simulation.js';
import { PHASES, runPhase } from '../dist/sim/scenarios.js';
import { esoDataHash, esoResourceVersion, sourceDigest } from '../dist/k8s/eso.js';

const FLEET_NAME = 'fleetcp';
const FLEET_NAMESPACE = 'fleetns';
const LAST_APPLIED = 'metacontroller.k8s.io/last-applied-configuration';
const TOKENS = /fleetcp|fleetns|uid-(\d{4})\b/g;

/**
 * The fleets the bench measures: the Keystone-only ControlPlane and the compute cloud (every
 * service beside Keystone declared, a managed bus, an OVNCentral reference), each made from its
 * example.
 */
export const FLEETS = [
  { key: 'keystone', label: 'Keystone only', example: 'examples/controlplane.yaml' },
  { key: 'cloud', label: 'every service', example: 'examples/controlplane-cloud.yaml' },
];

/** The steady sync request of a converged ControlPlane made from `example` (text). */
export async function fleetTemplate(root, example) {
  let sim;
  const app = await buildServer({ logger: false, clock: () => sim.now, random: seededRandom('fleet') });
  const inject = app.inject.bind(app);
  let last;
  app.inject = async (options) => {
    const res = await inject(options);
    if (options.url === '/controlplane/sync') last = JSON.stringify(options.payload);
    return res;
  };
  sim = new Simulation({ app, tickSeconds: 5 });
  const input = parse(readFileSync(join(root, example), 'utf8'));
  input.metadata = { name: FLEET_NAME, namespace: FLEET_NAMESPACE };
  const cp = sim.createControlPlane(input);
  const result = await runPhase(sim, cp, PHASES.converge, 200);
  if (result.problems.length > 0) throw new Error(`bench: the fleet's ControlPlane (${example}) did not converge: ${result.problems.join('; ')}`);
  // Converged: step until the resync repeats byte for byte (its own status fed back).
  for (let i = 0; ; i++) {
    const before = last;
    await sim.step();
    if (last === before) break;
    if (i >= 20) throw new Error('bench: the fleet ControlPlane\'s resync never repeated');
  }
  await app.close();
  return last;
}

const sha256Hex = (text) => createHash('sha256').update(text, 'utf8').digest('hex');
const BASE64 = /^(?:[A-Za-z0-9+/]{4})+(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
/** The decoded text of a base64 string that round-trips exactly, else undefined. */
function decoded(s) {
  if (s.length < 8 || !BASE64.test(s)) return undefined;
  const text = Buffer.from(s, 'base64').toString('utf8');
  return Buffer.from(text, 'utf8').toString('base64') === s ? text : undefined;
}

/**
 * The hashes of the template's values by hash: every string's (and every decoded base64 value's)
 * SHA-256 hex, and every object's `data` source digest; each with how to recompute it rewritten.
 */
function preimages(value, out = new Map()) {
  if (typeof value === 'string') {
    out.set(sha256Hex(value), (rewrite) => sha256Hex(rewrite.text(value)));
    const text = decoded(value);
    if (text !== undefined) out.set(sha256Hex(text), (rewrite) => sha256Hex(rewrite.text(text)));
    if (value.startsWith('{')) {
      try {
        preimages(JSON.parse(value), out);
      } catch {
        /* not JSON */
      }
    }
  } else if (Array.isArray(value)) {
    for (const v of value) preimages(v, out);
  } else if (value !== null && typeof value === 'object') {
    if (value.data !== null && typeof value.data === 'object' && !Array.isArray(value.data) && Object.values(value.data).every((v) => typeof v === 'string')) {
      out.set(sourceDigest(value), (rewrite) => sourceDigest({ data: rewrite.tree(value.data) }));
      out.set(esoDataHash(value.data), (rewrite) => esoDataHash(rewrite.tree(value.data)));
    }
    for (const v of Object.values(value)) preimages(v, out);
  }
  return out;
}

/** The fleet made from the template: `member(i)` gives member i's request text and its answer rewriter. */
export function fleetOf(templateText) {
  const template = JSON.parse(templateText);
  const hashes = preimages(template);
  const pad = (i) => String(i).padStart(4, '0');
  const rewriter = (i) => {
    const rewrite = {
      text: (s) => s.replace(TOKENS, (m, uid) => (uid ? `uid-${pad(i)}-${uid}` : m === FLEET_NAME ? `cp-${pad(i)}` : `tenant-${pad(i)}`)),
      string(s, key) {
        const hash = /^[0-9a-f]{32,128}$/.test(s) ? hashes.get(s) : undefined;
        if (hash) return hash(rewrite);
        if (key === LAST_APPLIED) return JSON.stringify(rewrite.tree(JSON.parse(s)));
        const text = decoded(s);
        if (text !== undefined) return Buffer.from(rewrite.text(text), 'utf8').toString('base64');
        return rewrite.text(s);
      },
      tree(value, key) {
        if (typeof value === 'string') return rewrite.string(value, key);
        if (Array.isArray(value)) return value.map((v) => rewrite.tree(v));
        if (value === null || typeof value !== 'object') return value;
        const out = Object.fromEntries(Object.entries(value).map(([k, v]) => [rewrite.text(k), rewrite.tree(v, k)]));
        // ESO's record of the metadata it last reconciled (a hash over the labels and annotations).
        const synced = value.status?.syncedResourceVersion;
        if (typeof synced === 'string' && synced === esoResourceVersion(value)) out.status.syncedResourceVersion = esoResourceVersion(out);
        return out;
      },
    };
    return rewrite;
  };
  return {
    member(i) {
      const rewrite = rewriter(i);
      return { body: JSON.stringify(rewrite.tree(template)), answer: (answerText) => JSON.stringify(rewrite.tree(JSON.parse(answerText))) };
    },
  };
}

/**
 * The same member after a status write: its parent's resourceVersion moved on (a body the server
 * has not seen, still converged), `round` making each change new.
 */
export function changed(body, round) {
  const request = JSON.parse(body);
  request.parent.metadata.resourceVersion = `${request.parent.metadata.resourceVersion ?? ''}${round + 1}0`;
  return JSON.stringify(request);
}

/** The ESO kinds that write `status.refreshTime` on every refresh (ExternalSecret, PushSecret). */
const REFRESHED_GROUPS = /^(ExternalSecret|PushSecret)\.external-secrets\.io\//;
const HOUR = 3600;
/** An instant as the API server writes a metav1.Time: RFC 3339, whole seconds. */
const rfc3339 = (ms) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');

/**
 * The same member as ESO keeps it over time: each ExternalSecret and PushSecret refreshes every
 * hour (refreshInterval 1h, src/controlplane/external-secret.ts) at a phase of its own, and each
 * refresh writes its `status.refreshTime` (and so moves its resourceVersion) whether or not the
 * data changed. `at(seconds)` is the member's body that many seconds after the template's instant:
 * object j's m-th refresh falls at (m × 3600 − φj) s, φj in [0, 3600) drawn from the member and
 * the object's key. Bodies are spliced from the template's text, so a call costs the load
 * generator a string join, not a parse.
 */
export function esoRefreshing(body, member) {
  const request = JSON.parse(body);
  const objects = [];
  for (const [group, byKey] of Object.entries(request.children ?? {})) {
    if (!REFRESHED_GROUPS.test(group)) continue;
    for (const [key, obj] of Object.entries(byKey)) {
      const base = Date.parse(obj.status?.refreshTime ?? '');
      if (!Number.isFinite(base)) continue;
      const phase = parseInt(sha256Hex(`${member}|${group}|${key}`).slice(0, 8), 16) % HOUR;
      const j = objects.length;
      objects.push({ base, phase, time: obj.status.refreshTime, version: obj.metadata.resourceVersion ?? '' });
      obj.status.refreshTime = `@@eso-time-${j}@@`;
      obj.metadata.resourceVersion = `@@eso-version-${j}@@`;
    }
  }
  // Odd pieces are placeholders: [kind, j] after the split's capture groups.
  const pieces = JSON.stringify(request).split(/@@eso-(time|version)-(\d+)@@/);
  return {
    objects: objects.length,
    at(seconds) {
      const refreshes = objects.map((o) => Math.floor((seconds + o.phase) / HOUR));
      let out = pieces[0];
      for (let p = 1; p < pieces.length; p += 3) {
        const o = objects[Number(pieces[p + 1])];
        const m = refreshes[Number(pieces[p + 1])];
        if (pieces[p] === 'time') out += m === 0 ? o.time : rfc3339(o.base + (m * HOUR - o.phase) * 1000);
        else out += m === 0 ? o.version : `${o.version}${1_000_000 + m}`;
        out += pieces[p + 2];
      }
      return out;
    },
  };
}
