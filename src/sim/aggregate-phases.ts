// Scripted events for a SecretAggregate next to a ControlPlane: it merges the ControlPlane's
// database credentials (all keys), a messaging Secret a user writes (one selected key) and the
// admin app-credential Secret (its clouds.yaml), as the README's SecretAggregate example does for a service. The
// checks are written out here, independently of the hook: the exact keys and values expected, the
// target untouched while it waits, the sources untouched when the aggregate goes.
import { childNames } from '../controlplane/names.js';
import { isManagedDatabase } from '../controlplane/spec.js';
import { b64 } from './operators.js';
import type { Obj, ObjectRef } from './cluster.js';
import { findCondition } from '../k8s/conditions.js';
import type { Phase, PhaseContext } from './phase.js';

/** The names the aggregate of a ControlPlane uses. */
export function aggregateNames(cp: ObjectRef) {
  return { aggregate: `${cp.name}-credentials`, target: `${cp.name}-all-credentials`, messaging: `${cp.name}-messaging` };
}

const secretRef = (ctx: PhaseContext, name: string): ObjectRef => ({ apiVersion: 'v1', kind: 'Secret', namespace: ctx.cp.namespace, name });
const aggregateRef = (ctx: PhaseContext): ObjectRef => ({ apiVersion: 'c5c3.io/v1alpha1', kind: 'SecretAggregate', namespace: ctx.cp.namespace, name: aggregateNames(ctx.cp).aggregate });
const target = (ctx: PhaseContext) => ctx.sim.get(secretRef(ctx, aggregateNames(ctx.cp).target));
const readyReason = (ctx: PhaseContext) => {
  const ready = findCondition(ctx.sim.get(aggregateRef(ctx)), 'Ready');
  return ready?.status === 'True' ? 'True' : ready?.reason;
};

function dbSecretName(ctx: PhaseContext): string {
  const spec = ctx.sim.get(ctx.cp)!.spec;
  return isManagedDatabase(spec) ? childNames(ctx.cp.name).dbCredentials : spec.infrastructure.database.secretRef.name;
}

function spec(ctx: PhaseContext, messagingKeys: string[] | undefined): Obj {
  const names = aggregateNames(ctx.cp);
  return {
    sources: [
      { secretRef: { name: dbSecretName(ctx) } },
      { secretRef: { name: names.messaging }, ...(messagingKeys ? { keys: messagingKeys } : {}) },
      { secretRef: { name: childNames(ctx.cp.name).adminAppCredential }, keys: ['clouds.yaml'] },
    ],
    target: { name: names.target },
  };
}

/** The data the target must hold now: every db key, transport_url, the app-credential clouds.yaml. */
function expectedData(ctx: PhaseContext): Obj | undefined {
  const db = ctx.sim.get(secretRef(ctx, dbSecretName(ctx)))?.data;
  const messaging = ctx.sim.get(secretRef(ctx, aggregateNames(ctx.cp).messaging))?.data;
  const cloud = ctx.sim.get(secretRef(ctx, childNames(ctx.cp.name).adminAppCredential))?.data?.['clouds.yaml'];
  if (!db || messaging?.transport_url === undefined || cloud === undefined) return undefined;
  return { ...db, transport_url: messaging.transport_url, 'clouds.yaml': cloud };
}

const publishedAsExpected = (ctx: PhaseContext) => {
  const want = expectedData(ctx);
  return want !== undefined && JSON.stringify(sorted(target(ctx)?.data)) === JSON.stringify(sorted(want));
};
const sorted = (o: Obj | undefined) => o && Object.fromEntries(Object.keys(o).sort().map((k) => [k, o[k]]));

/** The target's data when the phase began, to check that a waiting aggregate left it alone. */
const snapshot = (ctx: PhaseContext) => (ctx.before = JSON.stringify(target(ctx)?.data));
function unchanged(ctx: PhaseContext): string[] {
  return JSON.stringify(target(ctx)?.data) === ctx.before ? [] : ['the target Secret changed while the aggregate could not be published'];
}

function noDeletions(ctx: PhaseContext): string[] {
  const deleted = ctx.records.flatMap((r) => r.changes).filter((c) => (c.verb === 'deleting' || c.verb === 'deleted') && c.by !== 'user');
  return deleted.map((c) => `${c.object} was deleted`);
}

const messaging = (ctx: PhaseContext, values: Record<string, string>) => ctx.sim.userSecret(ctx.cp.namespace!, aggregateNames(ctx.cp).messaging, values);
const MESSAGING = { transport_url: 'rabbit://keystone:sim-mq-password-1@rabbitmq:5672/', comment: 'not selected' };

export const AGGREGATE_PHASES: Record<string, Phase> = {
  aggregate: {
    name: 'aggregate',
    title: 'SecretAggregate created over three Secrets (one with a selected key)',
    act: (ctx) => {
      messaging(ctx, MESSAGING);
      ctx.sim.applySecretAggregate({ metadata: { name: aggregateNames(ctx.cp).aggregate, namespace: ctx.cp.namespace }, spec: spec(ctx, ['transport_url']) });
    },
    done: (ctx) => readyReason(ctx) === 'True' && publishedAsExpected(ctx),
    verify: (ctx) => [...noDeletions(ctx), ...(target(ctx)?.data?.comment === undefined ? [] : ['a key that was not selected was published'])],
  },
  'remove-source-key': {
    name: 'remove-source-key',
    title: 'the selected key removed from its source',
    act: (ctx) => {
      snapshot(ctx);
      messaging(ctx, { comment: MESSAGING.comment });
    },
    done: (ctx) => readyReason(ctx) === 'WaitingForSource',
    verify: (ctx) => [...noDeletions(ctx), ...unchanged(ctx)],
  },
  'restore-source-key': {
    name: 'restore-source-key',
    title: 'the key back, with a new value',
    act: (ctx) => messaging(ctx, { ...MESSAGING, transport_url: MESSAGING.transport_url.replace('password-1', 'password-2') }),
    done: (ctx) => readyReason(ctx) === 'True' && publishedAsExpected(ctx),
    verify: (ctx) => [...noDeletions(ctx), ...(target(ctx)?.data?.transport_url === b64(MESSAGING.transport_url.replace('password-1', 'password-2')) ? [] : ['the new value was not published'])],
  },
  conflict: {
    name: 'conflict',
    title: 'every key of the messaging Secret selected; it has a password too',
    act: (ctx) => {
      snapshot(ctx);
      const current = ctx.sim.get(secretRef(ctx, aggregateNames(ctx.cp).messaging))!;
      ctx.sim.cluster.update({ ...current, data: { ...current.data, password: b64('sim-mq-password') } }, 'user');
      ctx.sim.applySecretAggregate({ metadata: { name: aggregateNames(ctx.cp).aggregate, namespace: ctx.cp.namespace }, spec: spec(ctx, undefined) });
    },
    done: (ctx) => readyReason(ctx) === 'KeyConflict',
    verify: (ctx) => [...noDeletions(ctx), ...unchanged(ctx)],
  },
  'resolve-conflict': {
    name: 'resolve-conflict',
    title: 'the selection restored',
    act: (ctx) => ctx.sim.applySecretAggregate({ metadata: { name: aggregateNames(ctx.cp).aggregate, namespace: ctx.cp.namespace }, spec: spec(ctx, ['transport_url']) }),
    done: (ctx) => readyReason(ctx) === 'True' && publishedAsExpected(ctx),
    verify: noDeletions,
  },
  'aggregate-current': {
    name: 'aggregate-current',
    title: 'the aggregate holds the current credentials',
    act: () => {},
    done: (ctx) => readyReason(ctx) === 'True' && publishedAsExpected(ctx),
    verify: noDeletions,
  },
  'delete-aggregate': {
    name: 'delete-aggregate',
    title: 'SecretAggregate deleted',
    act: (ctx) => {
      ctx.before = JSON.stringify(expectedData(ctx));
      ctx.sim.cluster.delete(aggregateRef(ctx), 'user');
    },
    done: (ctx) => !ctx.sim.get(aggregateRef(ctx)) && !target(ctx),
    verify: (ctx) => (JSON.stringify(expectedData(ctx)) === ctx.before ? [] : ['a source Secret changed or went with the aggregate']),
  },
};
