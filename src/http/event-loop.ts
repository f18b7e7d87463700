// The event-loop delay the overload guard reads (overload.ts): the mean delay the histogram
// (perf_hooks.monitorEventLoopDelay) recorded during each sampling interval, less its resolution.
// - An interval in which the histogram recorded nothing (the process was not scheduled, or the
//   interval was as short as the resolution) says nothing about the loop: the last reading stands.
//   (@fastify/under-pressure read it as Infinity and answered every hook call 429 until the next
//   sample: 39 calls of 40 on an idle server sampling every 10 ms.)
// - The histogram is never reset: a reset also restarts its clock, so a reset between the end of a
//   block and the histogram's next tick lost the block. The interval's mean comes from the
//   cumulative count and mean instead.
import { monitorEventLoopDelay } from 'node:perf_hooks';

/** What the guard reads of a delay histogram (cumulative; perf_hooks' IntervalHistogram: nanoseconds). */
export interface DelaySource {
  readonly count: number;
  readonly mean: number;
}

export class EventLoopGuard {
  /** The event-loop delay of the last interval that had a sample, in ms. */
  delayMs = 0;
  private count = 0;
  private total = 0;

  constructor(
    private readonly source: DelaySource,
    private readonly resolutionMs: number,
  ) {}

  /** Reads the interval since the last call. */
  sample(): void {
    const count = this.source.count;
    const total = count > 0 && Number.isFinite(this.source.mean) ? this.source.mean * count : this.total;
    if (count > this.count && total >= this.total) this.delayMs = Math.max(0, (total - this.total) / (count - this.count) / 1e6 - this.resolutionMs);
    this.count = count;
    this.total = total;
  }
}

/** A guard sampling this process's event loop every `intervalMs` (stop() ends it). */
export function startEventLoopGuard(intervalMs: number, resolutionMs = 10): { guard: EventLoopGuard; stop: () => void } {
  const histogram = monitorEventLoopDelay({ resolution: resolutionMs });
  histogram.enable();
  const guard = new EventLoopGuard(histogram, resolutionMs);
  const timer = setInterval(() => guard.sample(), Math.max(resolutionMs, intervalMs));
  timer.unref();
  return {
    guard,
    stop: () => {
      clearInterval(timer);
      histogram.disable();
    },
  };
}
