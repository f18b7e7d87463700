// Driving POST /controlplane/sync like Metacontroller does, pass after pass.
import type { HooksServer } from '../../src/server.js';
import { post } from './server.js';
import { allReady, applyResponse, clusterSecretStore, syncRequest } from './world.js';
import { exampleControlPlane, type Obj } from './shared.js';

export async function sync(app: HooksServer, parent: Obj, children: Obj[] = [], related: Obj[] = [clusterSecretStore()]) {
  const res = await post(app, '/controlplane/sync', syncRequest(parent, children, related));
  if (res.status !== 200) throw new Error(`sync answered ${res.status}: ${res.body}`);
  return res.json as { status: Obj; children: Obj[]; resyncAfterSeconds?: number; finalized?: boolean };
}

export interface World {
  parent: Obj;
  children: Obj[];
  related: Obj[];
  response: Awaited<ReturnType<typeof sync>>;
}

/** Sync and apply until the response stops changing (children Ready unless `statusOf` says otherwise). */
export async function converge(
  app: HooksServer,
  parent: Obj,
  related: Obj[] = [clusterSecretStore()],
  statusOf: (child: Obj) => Obj | undefined = allReady,
  maxPasses = 10,
): Promise<World> {
  let children: Obj[] = [];
  let last = '';
  for (let pass = 0; pass < maxPasses; pass++) {
    const response = await sync(app, parent, children, related);
    const text = JSON.stringify(response);
    parent = { ...parent, status: { ...response.status, observedGeneration: parent.metadata.generation } };
    if (text === last) return { parent, children, related, response };
    last = text;
    children = applyResponse(response.children, parent, statusOf, children);
  }
  throw new Error('did not converge');
}

export const managedCP = () => exampleControlPlane('controlplane-full-managed.yaml');

export const conditionOf = (status: Obj, type: string): Obj => (status.conditions as Obj[]).find((c) => c.type === type) as Obj;

export const ids = (objects: Obj[]) => objects.map((o) => `${o.kind}/${o.metadata.name}`).sort();
