// Defensive readers for values of unknown shape (a spec that bypassed admission, a child some
// other writer changed). They never throw: a wrong type reads as absent.

export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The value at `path` inside `value`, or undefined when any step is missing or not an object. */
export function at(value: unknown, ...path: string[]): unknown {
  let current = value;
  for (const key of path) {
    if (!isObject(current) || !Object.prototype.hasOwnProperty.call(current, key)) return undefined;
    current = current[key];
  }
  return current;
}

/** A non-empty string at `path`, else undefined. */
export function stringAt(value: unknown, ...path: string[]): string | undefined {
  const found = at(value, ...path);
  return typeof found === 'string' && found.length > 0 ? found : undefined;
}

/** Whether `name` is a valid Kubernetes object name (DNS-1123 subdomain). */
export function isObjectName(name: unknown): name is string {
  return (
    typeof name === 'string' &&
    name.length <= 253 &&
    /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/.test(name)
  );
}

/** The annotation `key` of any object, if it is a string (an empty one included). */
export function annotationOf(obj: unknown, key: string): string | undefined {
  const value = at(obj, 'metadata', 'annotations', key);
  return typeof value === 'string' ? value : undefined;
}
