// `npm run replay -- <file>`: one hook call through the hooks, in process, printed with a diff
// against what was recorded. Secret values are shown only as placeholders (capture/sanitize.ts).
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { HOOK_ROUTES } from '../routes.js';
import { HOOKS_KEY, replayAnswer } from './hook-payloads.js';
import { Sanitizer } from '../capture/sanitize.js';
import type { CapturedCall } from '../capture/capture.js';
import { jsonDiff } from '../capture/json-diff.js';

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

const HOOK_PATHS = HOOK_ROUTES.map((r) => r.path);

const USAGE = `usage: npm run replay -- <file.json> [--hook PATH] [--clock INSTANT] [--seed TEXT] [--key KEY]

Runs one hook request through the hooks in process (no server, no cluster) and prints the answer.

<file.json> is either
  - a captured call, as in hooks/ or written by CAPTURE_DIR:
    {"hook", "clock", "randomSeed"?, "request", "response"}. The request is replayed at its
    recorded clock and seed; the answer is printed, then a diff against the recorded "response";
  - a bare request body, what Metacontroller posts (e.g. {"controller", "parent", "children",
    "related", "finalizing"} for a sync, {"object", …} for the CredentialRotation decorator):
    give --hook; the answer is printed.

  --hook PATH      the hook of a bare body: ${HOOK_PATHS.join(', ')}
  --clock INSTANT  the instant the hooks read (default: the captured clock, else now)
  --seed TEXT      seed of the random source (default: the captured randomSeed, else random)
  --key KEY        placeholder key (default: CAPTURE_KEY, else the key of hooks/); must be the
                   capturing server's CAPTURE_KEY for a file it wrote
  -h, --help       this text; nothing is run

Secret values in the printed answer are placeholders (redacted-…), as in hooks/.
Exit codes: 0 the answer equals the recorded response (a bare body: answered 200),
1 it differs (a bare body: answered with an error status), 2 usage error or unreadable file.`;

function fail(message: string): never {
  process.stderr.write(`replay: ${message}\n${USAGE}\n`);
  process.exit(2);
}

async function main(): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      allowPositionals: true,
      options: { hook: { type: 'string' }, clock: { type: 'string' }, seed: { type: 'string' }, key: { type: 'string' }, help: { type: 'boolean', short: 'h' } },
    });
  } catch (err) {
    fail((err as Error).message);
  }
  if (parsed.values.help) {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  if (parsed.positionals.length !== 1) fail('exactly one file is needed');
  const file = parsed.positionals[0]!;
  let content: unknown;
  try {
    content = JSON.parse(readFileSync(file, 'utf8'));
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    fail(code ? `cannot read ${file}: ${code}` : `${file} is not JSON: ${(err as Error).message}`);
  }
  if (!isObject(content)) fail(`${file} holds no JSON object`);
  const captured = 'request' in content && 'hook' in content;
  const hook = parsed.values.hook ?? (captured ? String(content.hook) : undefined);
  if (!hook) fail(`${file} is a bare request body: give --hook (${HOOK_PATHS.join(', ')})`);
  if (!HOOK_PATHS.includes(hook)) fail(`unknown hook "${hook}": one of ${HOOK_PATHS.join(', ')}`);
  const clockText = parsed.values.clock ?? (captured ? String(content.clock) : new Date().toISOString());
  const clock = new Date(clockText);
  if (!/^\d{4}-\d{2}-\d{2}T/.test(clockText) || Number.isNaN(clock.getTime())) fail(`the clock must be an RFC 3339 instant, got "${clockText}"`);
  const seed = parsed.values.seed ?? (captured && typeof content.randomSeed === 'string' ? content.randomSeed : undefined);
  const key = parsed.values.key ?? process.env.CAPTURE_KEY ?? HOOKS_KEY;

  const request = captured ? content.request : content;
  const call: CapturedCall = { hook, clock: clock.toISOString(), request, response: undefined };
  if (seed !== undefined) call.randomSeed = seed;
  const answer = await replayAnswer(call);
  const [, shown] = new Sanitizer(key).sanitize(request, answer.body);
  console.log(`${hook} at ${call.clock}${seed === undefined ? ' (random source not seeded)' : `, seed "${seed}"`}: HTTP ${answer.status}`);
  console.log(JSON.stringify(shown, null, 2));
  if (!captured) return answer.status === 200 ? 0 : 1;

  const diff = jsonDiff(content.response, shown);
  if (diff.length === 0) {
    console.log(`\nsame answer as recorded in ${file}`);
    return 0;
  }
  console.log(`\n${diff.length} difference(s) from the recorded response (- recorded only, + answer only, ~ changed):`);
  for (const line of diff) console.log(`  ${line}`);
  return 1;
}

main().then(
  (code) => process.exit(code),
  (err) => {
    process.stderr.write(`replay: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exit(1);
  },
);
