// The tests run compiled: `npm run build:test` writes each test/….ts to .build/test/….js (with its
// source map, so failures point at the TypeScript). A test file named as `test/….test.ts` on the
// command line of scripts/test.mjs or scripts/test-long.mjs is run from there.

/** `test/x.test.ts` → `.build/test/x.test.js`; anything else as given. */
export function compiled(arg) {
  const m = /^(?:\.\/)?(test\/.*)\.ts$/.exec(arg.replaceAll('\\', '/'));
  return m ? `.build/${m[1]}.js` : arg;
}
