// The in-flight body budget: the memory a hook call needs grows with its body (JSON parsed into
// objects takes up to ~15 times the text, and the answer is as large again), so the bytes of the
// bodies being handled at once are bounded. A hook call whose declared length (the body limit when
// undeclared) would take the bodies in flight over the budget is answered 429 with Retry-After
// before its body is read; Metacontroller retries it after that, nothing applied. One call is
// always admitted when nothing else is in flight, so any body within the body limit goes through.
// The worst case, measured by test/long/memory.test.ts: one body of the limit, of the most expanding
// shape, at a time.
//
// Every byte taken is given back exactly once, whichever way the call ends: its response closes
// (answered, or its connection died), its connection closes (also when the response was never
// attached to it: pipelined calls, or bytes after the body the HTTP parser rejected), or fastify
// reports the response sent or the request aborted. Whatever comes first releases; the others find
// nothing held (test/inflight-leak.test.ts drives each path over raw sockets).
import type { FastifyReply, FastifyRequest } from 'fastify';

export interface InflightBudget {
  /**
   * onRequest hook of the hook routes: false (the caller answers 429) when the call does not fit
   * now; otherwise its bytes are taken and released when the call ends, on whichever path.
   */
  admit(request: FastifyRequest, reply: FastifyReply): boolean;
  /** Gives the call's bytes back (once; later calls do nothing). */
  release(request: FastifyRequest): void;
  /** Bytes admitted now. */
  readonly bytes: number;
  /** Since when (ms, the budget's clock) calls have been refused with nothing given back; undefined when not. */
  readonly exhaustedSince: number | undefined;
}

const RELEASE = Symbol('c5c3.inflightRelease');
type Held = FastifyRequest & { [RELEASE]?: () => void };

/**
 * `onPressure` is told when the bytes in flight go over half the budget (true) and when they come
 * back to half or less (false): the memos give back their memory then (memo.ts memoryPressure).
 */
export function inflightBudget(budgetBytes: number, bodyLimit: number, now: () => number = Date.now, onPressure?: (pressed: boolean) => void): InflightBudget {
  let inflight = 0;
  let exhaustedSince: number | undefined;
  let pressed = false;
  const moved = () => {
    if (pressed === inflight > budgetBytes / 2) return;
    pressed = !pressed;
    onPressure?.(pressed);
  };
  return {
    get bytes() {
      return inflight;
    },
    get exhaustedSince() {
      return exhaustedSince;
    },
    admit(request, reply) {
      const declared = Number(request.headers['content-length']);
      const bytes = Number.isFinite(declared) && declared >= 0 ? Math.min(declared, bodyLimit) : bodyLimit;
      if (inflight > 0 && inflight + bytes > budgetBytes) {
        exhaustedSince ??= now();
        return false;
      }
      inflight += bytes;
      moved();
      const res = reply.raw;
      const socket = request.raw.socket as NodeJS.EventEmitter | null;
      const release = () => {
        if ((request as Held)[RELEASE] !== release) return;
        (request as Held)[RELEASE] = undefined;
        res.removeListener('close', release);
        socket?.removeListener('close', release);
        inflight -= bytes;
        exhaustedSince = undefined;
        moved();
      };
      (request as Held)[RELEASE] = release;
      res.once('close', release);
      socket?.once('close', release);
      // Already closed (the connection died before this hook ran): nothing will emit again.
      if (res.destroyed || (socket as { destroyed?: boolean } | null)?.destroyed) release();
      return true;
    },
    release(request) {
      (request as Held)[RELEASE]?.();
    },
  };
}
