// The captured hook payloads of hooks/ (test/hooks-replay*.test.ts).
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { CapturedCall } from '../../src/capture/capture.js';
import { REPO_ROOT } from './shared.js';

export const HOOKS_DIR = join(REPO_ROOT, 'hooks');

export function payloadFiles(): string[] {
  return readdirSync(HOOKS_DIR, { withFileTypes: true })
    .filter((d) => d.isDirectory())
    .flatMap((d) => readdirSync(join(HOOKS_DIR, d.name)).map((f) => join(HOOKS_DIR, d.name, f)))
    .sort();
}

export const read = (file: string) => JSON.parse(readFileSync(file, 'utf8')) as CapturedCall;
