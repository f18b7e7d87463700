// The hook routes: path, request schema, and the pure function that answers.
import type { TSchema } from '@sinclair/typebox';
import {
  CompositeHookRequest,
  ControlPlaneParent,
  CredentialRotationParent,
  CustomizeHookRequest,
  DecoratorHookRequest,
  SecretAggregateParent,
  type ControlPlaneParent as ControlPlaneParentT,
  type CredentialRotationParent as CredentialRotationParentT,
  type SecretAggregateParent as SecretAggregateParentT,
} from './api/hooks.js';
import { customizeControlPlane } from './controlplane/customize.js';
import { syncControlPlane, type SyncRequest } from './controlplane/sync.js';
import type { StageTrace } from './controlplane/pipeline.js';
import { customizeCredentialRotation } from './credentialrotation/customize.js';
import { finalizeControlPlane } from './controlplane/finalize.js';
import { redactConditionMessages } from './controlplane/redact-status.js';
import type { HookEvent } from './events.js';
import { syncCredentialRotation, type RotationRequest } from './credentialrotation/sync.js';
import { customizeSecretAggregate } from './secretaggregate/customize.js';
import { syncSecretAggregate, type AggregateRequest } from './secretaggregate/sync.js';

/** What a hook may read besides the request: injected so every answer is reproducible. */
export interface HookContext {
  clock: () => Date;
  random: (bytes: number) => Buffer;
  /** Receives per-stage measurements of the sync pipeline (metrics). */
  onStage?: (trace: StageTrace) => void;
  /** Receives what the seed would record as a Kubernetes Event (logged, DESIGN §7). */
  onEvent?: (event: HookEvent) => void;
}

export interface HookRoute {
  /** URL path Metacontroller posts to. */
  path: string;
  /** Metric label of the hook. */
  hook: string;
  /** Request schema; a body that fails it is answered 400. */
  body: TSchema;
  handle: (body: never, context: HookContext) => unknown;
}

function route<B>(path: string, body: TSchema, handle: (body: B, context: HookContext) => unknown): HookRoute {
  return { path, hook: path.slice(1), body, handle: handle as HookRoute['handle'] };
}

export const HOOK_ROUTES: readonly HookRoute[] = [
  route<SyncRequest>('/controlplane/sync', CompositeHookRequest(ControlPlaneParent), (body, context) =>
    redactConditionMessages(syncControlPlane(body, { now: context.clock(), random: context.random, onStage: context.onStage }), body),
  ),
  route<SyncRequest>('/controlplane/finalize', CompositeHookRequest(ControlPlaneParent), (body, context) =>
    redactConditionMessages(finalizeControlPlane(body, { now: context.clock(), onEvent: context.onEvent }), body),
  ),
  route<{ parent: ControlPlaneParentT }>(
    '/controlplane/customize',
    CustomizeHookRequest(ControlPlaneParent),
    (body) => customizeControlPlane(body.parent),
  ),
  route<RotationRequest>('/credentialrotation/sync', DecoratorHookRequest(CredentialRotationParent), (body, context) =>
    syncCredentialRotation(body, { now: context.clock(), onEvent: context.onEvent }),
  ),
  route<{ parent: CredentialRotationParentT }>(
    '/credentialrotation/customize',
    CustomizeHookRequest(CredentialRotationParent),
    (body) => customizeCredentialRotation(body.parent),
  ),
  route<AggregateRequest>('/secretaggregate/sync', CompositeHookRequest(SecretAggregateParent), (body, context) =>
    syncSecretAggregate(body, { now: context.clock() }),
  ),
  route<{ parent: SecretAggregateParentT }>(
    '/secretaggregate/customize',
    CustomizeHookRequest(SecretAggregateParent),
    (body) => customizeSecretAggregate(body.parent),
  ),
];
