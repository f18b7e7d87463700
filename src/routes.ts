// The hook routes: path, request schema, and the pure function that answers.
// Later hooks (sync, finalize) are added here as they are implemented.
import type { TSchema } from '@sinclair/typebox';
import {
  ControlPlaneParent,
  CredentialRotationParent,
  CustomizeHookRequest,
  type ControlPlaneParent as ControlPlaneParentT,
  type CredentialRotationParent as CredentialRotationParentT,
} from './api/hooks.js';
import { customizeControlPlane } from './controlplane/customize.js';
import { customizeCredentialRotation } from './credentialrotation/customize.js';

/** What a hook may read besides the request: injected so every answer is reproducible. */
export interface HookContext {
  clock: () => Date;
  random: (bytes: number) => Buffer;
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
  route<{ parent: ControlPlaneParentT }>(
    '/controlplane/customize',
    CustomizeHookRequest(ControlPlaneParent),
    (body) => customizeControlPlane(body.parent),
  ),
  route<{ parent: CredentialRotationParentT }>(
    '/credentialrotation/customize',
    CustomizeHookRequest(CredentialRotationParent),
    (body) => customizeCredentialRotation(body.parent),
  ),
];
