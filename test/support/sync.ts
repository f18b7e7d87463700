// Driving POST /controlplane/sync like Metacontroller does, pass after pass.
import type { HooksServer } from '../../src/server.js';
import { FIXED_NOW, post, sequence } from './server.js';
import { ObjectIndex } from '../../src/k8s/observed.js';
import { readSpec } from '../../src/controlplane/spec.js';
import type { StageInput } from '../../src/controlplane/stage.js';
import type { Condition } from '../../src/k8s/conditions.js';
import { ADMIN_PASSWORD, PLATFORM_LABEL, applyResponse, objectMap, clusterSecretStore, healthy, platformObjects, surroundings, syncRequest, type StatusOf } from './world.js';
import { fixtureControlPlane, type Obj } from './shared.js';

export type SyncResponse = { status: Obj; children: Obj[]; resyncAfterSeconds?: number; finalized?: boolean };

export async function sync(app: HooksServer, parent: Obj, children: Obj[] = [], related: Obj[] = [clusterSecretStore()]): Promise<SyncResponse> {
  const res = await post(app, '/controlplane/sync', syncRequest(parent, children, related));
  if (res.status !== 200) throw new Error(`sync answered ${res.status}: ${res.body}`);
  return res.json as SyncResponse;
}

export interface World {
  parent: Obj;
  children: Obj[];
  /** The related objects of the last pass (base + admin password + materialised clouds.yaml). */
  related: Obj[];
  response: SyncResponse;
  /** Every response of the passes that led here (converge only). */
  history?: SyncResponse[];
}

/**
 * Sync and apply until the response stops changing (children healthy unless `statusOf` says
 * otherwise). The related objects are `base` plus the world's: the admin password (unless
 * `password` is null) and the clouds.yaml ESO materialises once the round trip is Ready.
 */
export async function converge(
  app: HooksServer,
  parent: Obj,
  base: Obj[] = [clusterSecretStore(), ...platformObjects(parent)],
  statusOf: StatusOf = healthy,
  password: string | null = ADMIN_PASSWORD,
  start: Obj[] = [],
  maxPasses = 20,
): Promise<World> {
  let children = start;
  let last = '';
  const history: SyncResponse[] = [];
  for (let pass = 0; pass < maxPasses; pass++) {
    const related = surroundings(parent, children, base, password);
    const response = await sync(app, parent, children, related);
    history.push(response);
    const text = JSON.stringify([response, related]);
    parent = { ...parent, status: { ...response.status, observedGeneration: parent.metadata.generation } };
    if (text === last) return { parent, children, related, response, history };
    last = text;
    children = applyResponse(response.children, parent, statusOf, children);
  }
  throw new Error('did not converge');
}

/** One more pass on a world, with changes: the response and the world after applying it. */
export async function step(app: HooksServer, world: World, statusOf: StatusOf = healthy, base?: Obj[], password: string | null = ADMIN_PASSWORD): Promise<World> {
  // The admin password and the materialised clouds.yaml are made again; what the platform provides stays.
  const baseRelated = base ?? world.related.filter((r) => r.kind !== 'Secret' || r.metadata?.labels?.[PLATFORM_LABEL] === 'true');
  const related = surroundings(world.parent, world.children, baseRelated, password);
  const response = await sync(app, world.parent, world.children, related);
  const parent = { ...world.parent, status: { ...response.status, observedGeneration: world.parent.metadata.generation } };
  return { parent, children: applyResponse(response.children, parent, statusOf, world.children), related, response };
}

export const managedCP = () => fixtureControlPlane('controlplane.yaml');

/** The managed example with a user-supplied (brownfield) database and cache. */
export function brownfieldCP(): Obj {
  const cp = managedCP();
  cp.spec.infrastructure = {
    database: { host: 'db.example.com', database: 'keystone', secretRef: { name: 'keystone-db', key: 'password' } },
    cache: { servers: ['mc:11211'], backend: 'dogpile.cache.pymemcache' },
  };
  return cp;
}

export const conditionOf = (status: Obj, type: string): Obj => (status.conditions as Obj[]).find((c) => c.type === type) as Obj;

export const ids = (objects: Obj[]) => objects.map((o) => `${o.kind}/${o.metadata.name}`).sort();

const specOf = (cp: Obj) => {
  const { spec, resolved } = readSpec(cp.spec, cp.metadata.name);
  return { spec, resolved };
};

/** The input of one stage, for calling a stage directly (rows a full pass cannot reach). */
export function stageInput(cp: Obj, children: Obj[], related: Obj[], decided: Map<string, Condition> = new Map(), now = FIXED_NOW): StageInput {
  return {
    cp: { name: cp.metadata.name, namespace: cp.metadata.namespace, uid: cp.metadata.uid, generation: cp.metadata.generation ?? 1 },
    ...specOf(cp),
    specErrors: [],
    children: new ObjectIndex(objectMap(children)),
    related: new ObjectIndex(objectMap(related)),
    decided,
    previous: new Map(),
    credential: undefined,
    now: () => now,
    random: sequence(),
  };
}
