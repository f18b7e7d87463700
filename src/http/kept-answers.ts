// Answers kept by the bytes they answered (issue 43). A converged ControlPlane is resynced with the
// same bytes call after call (Metacontroller serialises the same parent and children the same
// way), and so is each one of a fleet, in turn. An answer whose
// computing called neither the call's clock (`now`) nor its random source, logged no
// event and failed no stage is a function of the request's bytes alone: the same bytes get the same
// answer, whenever they come. Such an answer is kept, deflated, by the call's path and the SHA-256
// of its body, and the next call with those bytes is answered with it before its body is parsed.
//
// - Exact: the kept answer is the bytes sent the first time; a body that differs anywhere (a
//   resourceVersion, an ESO refresh time) has another digest and is computed.
//   test/kept-answers.test.ts answers every captured call at one instant and once more at another,
//   and compares the answers kept with those computed afresh.
// - What a call counts still counts: the ControlPlane conditions of a kept answer are counted
//   again (condition-metrics.ts: the stuck-state alerts read them); an answer in which a stage
//   failed is never kept, so the failing-stage alert counts every call. A kept answer runs no
//   stage, so it adds nothing to the stage durations.
// - Captured as computed: with capture on, a call answered from a kept answer is recorded with its
//   body and that answer, parsed back (the answer is the one computed at any instant).
// - Bounded: ANSWER_MEMO.entries answers and ANSWER_MEMO.bytes of deflated text (a compute cloud's
//   43 KiB answer deflates to about 6 KiB), least recently used first out; kept only when its body
//   comes a second time while the last ANSWER_MEMO.entries bodies are remembered by digest (a body
//   that never comes again costs no deflating); emptied under memory pressure (memo.ts).
// - The body never parsed is a placeholder no handler sees: the answer is sent from preValidation.
//   Should it ever reach validation, it fails it (a 400 Metacontroller retries), never a wrong answer.
import { hash } from 'node:crypto';
import { inflateRawSync } from 'node:zlib';
import fp from 'fastify-plugin';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { parseJsonBody } from '../json-body.js';
import { BoundedMemo, countLookup, deflateOwn, MEMO, memoOn, Sightings } from '../memo.js';
import type { Metrics } from '../metrics.js';
import type { CaptureWriter } from '../capture/capture.js';
import type { HookContext } from '../routes.js';
import { countConditions, type ConditionLabels } from './condition-metrics.js';
import { hookOf } from './hook-of.js';
import { noteParent } from './parent-of.js';

/**
 * The answers kept: a fleet of 3,072 ControlPlanes, at most
 * 32 MiB of deflated text (3,072 compute clouds take about 18 MiB).
 */
export const ANSWER_MEMO = { entries: 3072, bytes: 32 * 1024 * 1024 } as const;

interface KeptAnswer {
  /** The answer's bytes, deflated. */
  text: Buffer;
  /** The ControlPlane conditions it carries, counted on every call it answers. */
  conditions: readonly ConditionLabels[];
  /** The parent it answered (parent-of.ts), for the log line of every call it answers unparsed. */
  parent: string | undefined;
}

/** How a computed answer may be kept (hooks.ts tells it, once the answer is computed). */
export interface Repeatable {
  /** Whether the answer read neither clock nor random, logged no event and failed no stage (asked once it is serialized). */
  repeatable: () => boolean;
  conditions: readonly ConditionLabels[];
  parent: string | undefined;
}

interface Call {
  /** The answer this call is answered with, when kept. */
  kept?: KeptAnswer;
  /** Its body's text, when kept and captured. */
  text?: string;
  /** The call's key (path and body digest), when computed. */
  key?: string;
  /** Whether its body came before, within the sightings' reach (only then is its answer kept). */
  cameBefore?: boolean;
  answer?: Repeatable;
}

const KEPT = new BoundedMemo<KeptAnswer>(ANSWER_MEMO.entries, { maxKeyBytes: ANSWER_MEMO.bytes, weigh: (a) => a.text.length, shed: MEMO.answer });
const SIGHTINGS = new Sightings(ANSWER_MEMO.entries);
const CALLS = new WeakMap<FastifyRequest, Call>();

/** The body of a call answered from a kept answer: no handler sees it (preValidation answers first). */
const UNPARSED = Object.freeze({});

/**
 * What a call's answer depends on beyond its request's bytes, watched as it is computed (the hook
 * runner, hooks.ts): a read of the clock or the random source, an event logged, a stage failed, or
 * anything the runner says (`taint`). Only an answer with none of these may be kept.
 */
export class CallWatch {
  private tainted = false;

  /** The answer depends on more than the request's bytes. */
  readonly taint = (): void => {
    this.tainted = true;
  };

  get repeatable(): boolean {
    return !this.tainted;
  }

  /** `context` as the hook sees it: each call of its clock and random source, each event and each failed stage taints. */
  watch(context: HookContext): HookContext {
    const { now, random, onStage, onEvent } = context;
    return {
      now: () => {
        this.taint();
        return now();
      },
      random: (bytes) => {
        this.taint();
        return random(bytes);
      },
      onStage: (trace) => {
        if (trace.outcome === 'failed') this.taint();
        onStage?.(trace);
      },
      onEvent: (event) => {
        this.taint();
        onEvent?.(event);
      },
    };
  }
}

/** Told by the hook runner (hooks.ts) of each answer it computed. */
export function answerComputed(request: FastifyRequest, answer: Repeatable): void {
  const call = CALLS.get(request);
  if (call !== undefined) call.answer = answer;
}

/** What a server that captures its calls needs to capture those answered from kept answers (hooks.ts captures the others). */
export interface KeptAnswerCapture {
  writer: CaptureWriter;
  clock: () => Date;
  randomSeed: string | undefined;
}

/** The application/json parser of a server that keeps answers: a hook call's kept answer found first, else json-body.ts. */
function parseOrFind(request: FastifyRequest, body: string | Buffer, done: (err: Error | null, body?: unknown) => void, captured: boolean): void {
  const hook = hookOf(request);
  if (hook === undefined || !memoOn(MEMO.answer)) return parseJsonBody(request, body, done);
  const text = typeof body === 'string' ? body : body.toString('utf8');
  const digest = hash('sha256', text, 'base64');
  const key = `${hook}\u0000${digest}`;
  const kept = KEPT.peek(key);
  countLookup(MEMO.answer, kept !== undefined);
  if (kept !== undefined) {
    CALLS.set(request, captured ? { kept, text } : { kept });
    return done(null, UNPARSED);
  }
  CALLS.set(request, { key, cameBefore: SIGHTINGS.seen(key) });
  parseJsonBody(request, text, done);
}

export const keptAnswersPlugin = fp(
  async (app: FastifyInstance, options: { metrics: Metrics; capture: KeptAnswerCapture | undefined }) => {
    const { metrics, capture } = options;
    app.removeContentTypeParser('application/json');
    app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => parseOrFind(request, body, done, capture !== undefined));
    app.addHook('preValidation', async (request, reply) => {
      const { kept, text } = CALLS.get(request) ?? {};
      if (kept === undefined) return;
      noteParent(request, kept.parent);
      countConditions(metrics, kept.conditions);
      const answer = inflateRawSync(kept.text);
      if (capture !== undefined && text !== undefined) {
        capture.writer.write(request.routeOptions.url ?? request.url, capture.clock(), JSON.parse(text), JSON.parse(answer.toString('utf8')), capture.randomSeed);
      }
      return reply.type('application/json; charset=utf-8').send(answer);
    });
    app.addHook('onSend', async (request, reply, payload) => {
      const call = CALLS.get(request);
      const { key, answer } = call ?? {};
      if (key !== undefined && answer !== undefined && call?.cameBefore && reply.statusCode === 200 && typeof payload === 'string' && answer.repeatable()) {
        KEPT.set(key, { text: deflateOwn(payload), conditions: answer.conditions, parent: answer.parent });
      }
      return payload;
    });
  },
  { name: 'c5c3-kept-answers' },
);
