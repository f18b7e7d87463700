// The hook routes: path, request schema, and the pure function that answers. The schema both
// validates the request (a body that fails it is answered 400) and types the handler's body
// (the TypeBox type provider), so the two cannot drift apart.
import type { Static, TSchema } from '@sinclair/typebox';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
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
import type { HookEvent } from './events.js';
import { syncCredentialRotation } from './credentialrotation/sync.js';
import { customizeSecretAggregate } from './secretaggregate/customize.js';
import { syncSecretAggregate } from './secretaggregate/sync.js';
import { ControlPlaneStatus } from './api/controlplane.js';
import { CredentialRotationStatus } from './api/credentialrotation.js';
import { SecretAggregateStatus } from './api/secretaggregate.js';
import { redactionFor } from './redaction.js';
import { fitStatus } from './status-limits.js';

/** What a hook may read besides the request: injected so every answer is reproducible. */
export interface HookContext {
  /**
   * The call's instant, the same at every call. Calling it is reading the clock (an answer that
   * calls it is never kept: http/kept-answers.ts); it is handed on uncalled to whatever may read it.
   */
  now: () => Date;
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
export type HookRunner = (call: { path: string; body: unknown; log: FastifyInstance['log']; request: FastifyRequest }, answer: (body: unknown, context: HookContext) => unknown) => unknown;

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

/**
 * What every answer goes through before it leaves (docs/architecture.md §1.4): one redaction of the
 * request's secret values for its status, its children but Secrets and the events it logs
 * (redaction.ts), then its status cut to what the CRD admits (status-limits.ts).
 */
function finished<B>(handle: (body: B, context: HookContext) => unknown, status: TSchema | undefined): (body: B, context: HookContext) => unknown {
  return (body, context) => {
    const redaction = redactionFor(body);
    const onEvent = context.onEvent;
    const redacted: HookContext = redaction && onEvent ? { ...context, onEvent: (event) => onEvent({ ...event, message: redaction.text(event.message) }) } : context;
    let response = handle(body, redacted);
    if (redaction) response = redaction.answer(response);
    if (status && typeof response === 'object' && response !== null && 'status' in response && response.status !== undefined) {
      const fitted = fitStatus(response.status, status);
      if (fitted !== response.status) response = { ...response, status: fitted };
    }
    return response;
  };
}

function route<S extends TSchema>(path: string, body: S, handle: (body: Static<S>, context: HookContext) => unknown, status?: TSchema): HookRoute {
  const hook = path.slice(1);
  const answer = finished(handle, status);
  return {
    path,
    hook,
    body,
    register(app, run) {
      app.withTypeProvider<TypeBoxTypeProvider>().post(path, { schema: { body }, config: { hook } }, async (request) =>
        run({ path, body: request.body, log: request.log, request }, (body, context) => answer(body as Static<S>, context)),
      );
    },
  };
}

export const HOOK_ROUTES: readonly HookRoute[] = [
  route('/controlplane/sync', ControlPlaneHookRequest, (body, context) => syncControlPlane(body, { now: context.now, random: context.random, onStage: context.onStage }), ControlPlaneStatus),
  route('/controlplane/finalize', ControlPlaneHookRequest, (body, context) => finalizeControlPlane(body, { now: context.now, onEvent: context.onEvent }), ControlPlaneStatus),
  route('/controlplane/customize', ControlPlaneCustomizeRequest, (body) => customizeControlPlane(body.parent)),
  route('/credentialrotation/sync', CredentialRotationSyncRequest, (body, context) => syncCredentialRotation(body, { now: context.now, onEvent: context.onEvent }), CredentialRotationStatus),
  route('/credentialrotation/customize', CredentialRotationCustomizeRequest, (body) => customizeCredentialRotation(body.parent)),
  route('/secretaggregate/sync', SecretAggregateSyncRequest, (body, context) => syncSecretAggregate(body, { now: context.now }), SecretAggregateStatus),
  route('/secretaggregate/customize', SecretAggregateCustomizeRequest, (body) => customizeSecretAggregate(body.parent)),
];
