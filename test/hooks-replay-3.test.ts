// hooks/: a third of the captured payloads (every third file, from the third) replay to their
// recorded responses, and alike when their body is remembered (test/support/hooks.ts replayShard).
import t from 'tap';
import { replayShard } from './support/hooks.js';

t.test('a third of hooks/ replays to its recorded responses, also from a remembered body', (t) => replayShard(t, 2, 3));
