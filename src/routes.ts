// The hook routes: path, request schema, and the pure function that answers. The schema both
// validates the request (a body that fails it is answered 400) and types the handler's body
// (the TypeBox type provider), so the two cannot drift apart.
import type { Static, TSchema } from '@sinclair/typebox';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import {
  ControlPlaneCustomizeRequest,
  ControlPlaneHookRequest,
  CredentialRotationCustomizeRequest,
  CredentialRotationSyncRequest,
  SecretAggregateCustomizeRequest,
  SecretAggregateSyncRequest,
} from './api/hooks.js';
import { customizeControlPlane } from './controlplane/customize.js';
import { syncControlPlane } from './controlplane/sync.js';
import type { StageTrace } from './controlplane/pipeline.js';
import { customizeCredentialRotation } from './credentialrotation/customize.js';
import { finalizeControlPlane } from './controlplane/finalize.js';
import { redactConditionMessages } from './controlplane/redact-status.js';
import type { HookEvent } from './events.js';
import { syncCredentialRotation } from './credentialrotation/sync.js';
import { customizeSecretAggregate } from './secretaggregate/customize.js';
import { syncSecretAggregate } from './secretaggregate/sync.js';

/** What a hook may read besides the request: injected so every answer is reproducible. */
export interface HookContext {
  clock: () => Date;
  random: (bytes: number) => Buffer;
  /** Receives per-stage measurements of the sync pipeline (metrics). */
  onStage?: (trace: StageTrace) => void;
  /** Receives what the upstream operator records as a Kubernetes Event (logged). */
  onEvent?: (event: HookEvent) => void;
}

/**
 * How the server answers one hook call: it builds the context (one clock instant, the random
 * source, events into the request log), calls `answer`, and captures the call.
 */
export type HookRunner = (call: { path: string; body: unknown; log: FastifyInstance['log'] }, answer: (body: unknown, context: HookContext) => unknown) => unknown;

export interface HookRoute {
  /** URL path Metacontroller posts to. */
  path: string;
  /** Metric label of the hook. */
  hook: string;
  /** Request schema: validates the body and types the handler. */
  body: TSchema;
  /** Registers the route on `app`, answering through `run`. */
  register(app: FastifyInstance, run: HookRunner): void;
}

function route<S extends TSchema>(path: string, body: S, handle: (body: Static<S>, context: HookContext) => unknown): HookRoute {
  const hook = path.slice(1);
  return {
    path,
    hook,
    body,
    register(app, run) {
      app.withTypeProvider<TypeBoxTypeProvider>().post(path, { schema: { body }, config: { hook } }, async (request) =>
        run({ path, body: request.body, log: request.log }, (body, context) => handle(body as Static<S>, context)),
      );
    },
  };
}

export const HOOK_ROUTES: readonly HookRoute[] = [
  route('/controlplane/sync', ControlPlaneHookRequest, (body, context) =>
    redactConditionMessages(syncControlPlane(body, { now: context.clock(), random: context.random, onStage: context.onStage }), body),
  ),
  route('/controlplane/finalize', ControlPlaneHookRequest, (body, context) =>
    redactConditionMessages(finalizeControlPlane(body, { now: context.clock(), onEvent: context.onEvent }), body),
  ),
  route('/controlplane/customize', ControlPlaneCustomizeRequest, (body) => customizeControlPlane(body.parent)),
  route('/credentialrotation/sync', CredentialRotationSyncRequest, (body, context) =>
    syncCredentialRotation(body, { now: context.clock(), onEvent: context.onEvent }),
  ),
  route('/credentialrotation/customize', CredentialRotationCustomizeRequest, (body) => customizeCredentialRotation(body.parent)),
  route('/secretaggregate/sync', SecretAggregateSyncRequest, (body, context) => syncSecretAggregate(body, { now: context.clock() })),
  route('/secretaggregate/customize', SecretAggregateCustomizeRequest, (body) => customizeSecretAggregate(body.parent)),
];
