// A hook call's instant as a Date that says when it is read (kept-answers.ts): an answer that
// never read its call's clock is the same answer at any other instant.
//
// Every method of Date.prototype reads (or sets) the time value it holds, and so does turning it
// into a primitive (`+now`, `now < then`, a template string): each is overridden on a subclass to
// report the read first, then do what Date does. JSON.stringify reads it through toJSON, which
// calls toISOString. What reads the time value without a method (`new Date(now)`, structuredClone,
// v8.serialize) is not seen: the hooks do none of it on their clock, and test/kept-answers.test.ts
// compares, for every captured call, the answer kept at one instant with the answer computed at
// another.

/** Who is told of each read, by instant. */
const READERS = new WeakMap<Date, () => void>();

class WatchedInstant extends Date {}

const DATE_METHODS = [...Object.getOwnPropertyNames(Date.prototype), ...Object.getOwnPropertySymbols(Date.prototype)].filter((key) => key !== 'constructor');
for (const key of DATE_METHODS) {
  const original: unknown = Object.getOwnPropertyDescriptor(Date.prototype, key)?.value;
  if (typeof original !== 'function') continue;
  Object.defineProperty(WatchedInstant.prototype, key, {
    value: function (this: Date, ...args: unknown[]): unknown {
      READERS.get(this)?.();
      return Reflect.apply(original, this, args);
    },
    writable: true,
    configurable: true,
  });
}

/** `at` as a Date that calls `onRead` whenever its time value is read (a Date of its own: `at` is not watched). */
export function watchedInstant(at: Date, onRead: () => void): Date {
  const instant = new WatchedInstant(at.getTime());
  READERS.set(instant, onRead);
  return instant;
}
