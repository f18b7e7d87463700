// The ControlPlane's condition types and reasons are the contract: a stage can only name those
// defined in src/controlplane/conditions.ts. These checks run in the typecheck (`npm test` runs
// it first): each `@ts-expect-error` line fails the typecheck if the compiler stops refusing it,
// for instance when a reason type widens back to `string`.
import t from 'tap';
import { ASIDE_CONDITIONS, CONDITION, REASON, SUB_CONDITIONS, type Decision, type Reason, type SubConditionType } from '../src/controlplane/conditions.js';
import type { Stage } from '../src/controlplane/stage.js';
import type { ConditionDecision } from '../src/k8s/conditions.js';
import { STAGE_TABLE } from '../src/controlplane/pipeline.js';

t.test('a misspelt reason or condition type does not compile', async (t) => {
  // @ts-expect-error 'KeystoneIsReady' is not one of REASON's values
  const misspelt: Decision = { status: 'True', reason: 'KeystoneIsReady', message: '' };
  const spelt: Decision = { status: 'True', reason: REASON.KeystoneReady, message: '' };
  // @ts-expect-error 'Ready' is the aggregate, not a condition a stage owns
  const aggregate: SubConditionType = CONDITION.Ready;
  // @ts-expect-error a stage's condition type is one of the seven sub-conditions
  const stage: Pick<Stage, 'conditionType'> = { conditionType: 'KeystonReady' };
  // A plain string is not a Reason either: a reason must come from REASON.
  const text: string = 'AllReady';
  // @ts-expect-error string is wider than Reason
  const widened: Reason = text;
  // Other controllers keep their own reasons: the generic decision stays open.
  const generic: ConditionDecision = { status: 'False', reason: 'AnyReason', message: '' };
  t.same([misspelt.reason, spelt.reason, aggregate, stage.conditionType, widened, generic.reason], ['KeystoneIsReady', 'KeystoneReady', 'Ready', 'KeystonReady', 'AllReady', 'AnyReason']);
});

t.test('every stage owns a distinct sub-condition, in the seed order', async (t) => {
  t.same(STAGE_TABLE.filter((s) => !s.aside).map((s) => s.conditionType), [...SUB_CONDITIONS]);
  t.same(STAGE_TABLE.filter((s) => s.aside).map((s) => s.conditionType), [...ASIDE_CONDITIONS], 'the aside stages own the aside conditions');
});

t.test('REASON values are their own keys (a reason is spelt once)', async (t) => {
  for (const [key, value] of Object.entries(REASON)) t.equal(value, key);
});
