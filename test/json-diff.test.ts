// jsonDiff, the difference `npm run replay` prints (test/long/cli.test.ts runs the CLI itself).
import t from 'tap';
import { jsonDiff } from '../src/capture/json-diff.js';

t.test('jsonDiff names the paths that differ', async (t) => {
  t.same(jsonDiff({ a: 1, b: [1, 2], c: { d: 'x' } }, { a: 1, b: [1, 3, 4], c: {}, e: true }), [
    '~ b[1]: recorded 2, answer 3',
    '+ b[2]: 4',
    '- c.d: "x"',
    '+ e: true',
  ]);
  t.same(jsonDiff({ a: [1] }, { a: [1] }), []);
});
