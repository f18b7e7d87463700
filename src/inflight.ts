// The in-flight body budget: the memory a hook call needs grows with its body (JSON parsed into
// objects takes up to ~15 times the text, and the answer is as large again), so the bytes of the
// bodies being handled at once are bounded. A hook call whose declared length (the body limit when
// undeclared) would take the bodies in flight over the budget is answered 429 with Retry-After
// before its body is read; Metacontroller retries it after that, nothing applied. One call is
// always admitted when nothing else is in flight, so any body within the body limit goes through.
// The worst case, measured by test/memory.test.ts: one body of the limit, of the most expanding
// shape, at a time.
import type { FastifyRequest } from 'fastify';

export interface InflightBudget {
  /** onRequest hook of the hook routes: false (the caller answers 429) when the call does not fit now. */
  onRequest(request: FastifyRequest): boolean;
  /** onResponse / onRequestAbort hook: gives the call's bytes back (once). */
  release(request: FastifyRequest): void;
  /** Bytes admitted now. */
  readonly bytes: number;
}

const HELD = Symbol('c5c3.inflightBytes');
type Held = FastifyRequest & { [HELD]?: number };

export function inflightBudget(budgetBytes: number, bodyLimit: number): InflightBudget {
  let inflight = 0;
  return {
    get bytes() {
      return inflight;
    },
    onRequest(request) {
      const declared = Number(request.headers['content-length']);
      const bytes = Number.isFinite(declared) && declared >= 0 ? Math.min(declared, bodyLimit) : bodyLimit;
      if (inflight > 0 && inflight + bytes > budgetBytes) return false;
      inflight += bytes;
      (request as Held)[HELD] = bytes;
      return true;
    },
    release(request) {
      const held = (request as Held)[HELD];
      if (held === undefined) return;
      (request as Held)[HELD] = undefined;
      inflight -= held;
    },
  };
}
