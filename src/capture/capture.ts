// CAPTURE_DIR: every hook call written as one JSON file, sanitised (sanitize.ts), in the format
// of hooks/: { hook, clock, randomSeed?, request, response }. Replaying `request` against a
// server started with CLOCK=<clock> (and RANDOM_SEED=<randomSeed> when given) gives `response`
// back, placeholders included, except values the hook generates afresh (a new application-
// credential secret) when RANDOM_SEED was not set.
import { mkdirSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Sanitizer } from './sanitize.js';
import { systemNow } from '../k8s/time.js';

export interface CapturedCall {
  hook: string;
  clock: string;
  randomSeed?: string;
  request: unknown;
  response: unknown;
}

export class CaptureWriter {
  private readonly sanitizer: Sanitizer;
  private readonly prefix: string;
  private sequence = 0;
  private readonly pending = new Set<Promise<void>>();

  constructor(
    private readonly dir: string,
    key: string | Buffer,
    private readonly onError: (err: unknown) => void,
  ) {
    mkdirSync(dir, { recursive: true });
    this.sanitizer = new Sanitizer(key);
    this.prefix = systemNow().toISOString().replace(/[-:]/g, '').replace(/\.\d+Z$/, 'Z');
  }

  /** Sanitised call record (also what the file holds). */
  record(hook: string, clock: Date, request: unknown, response: unknown, randomSeed?: string): CapturedCall {
    const [req, res] = this.sanitizer.sanitize(request, response);
    const call: CapturedCall = { hook, clock: clock.toISOString(), request: req, response: res };
    if (randomSeed !== undefined) call.randomSeed = randomSeed;
    return call;
  }

  write(hook: string, clock: Date, request: unknown, response: unknown, randomSeed?: string): void {
    // Capturing is a side line: whatever it cannot record is logged, never the hook's answer.
    let call: CapturedCall;
    try {
      call = this.record(hook, clock, request, response, randomSeed);
    } catch (err) {
      this.onError(err);
      return;
    }
    const name = `${this.prefix}-${String(++this.sequence).padStart(6, '0')}${hook.replace(/\//g, '-')}.json`;
    const done = writeFile(join(this.dir, name), `${JSON.stringify(call, null, 2)}\n`, { mode: 0o600 })
      .catch(this.onError)
      .finally(() => this.pending.delete(done));
    this.pending.add(done);
  }

  /** Resolves once every file started so far is written. */
  async flush(): Promise<void> {
    await Promise.all([...this.pending]);
  }
}
