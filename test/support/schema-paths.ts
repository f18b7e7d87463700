// Every path of a TypeBox object schema (array items as index 0), for generators that must reach
// every field the hooks read (test/properties.test.ts, test/memo-exact.test.ts).
import type { Obj } from './shared.js';

export type SchemaPath = (string | number)[];

export function schemaPaths(schema: Obj, path: SchemaPath = [], out: SchemaPath[] = []): SchemaPath[] {
  if (schema.type === 'object' && schema.properties) {
    for (const [key, sub] of Object.entries(schema.properties as Obj)) {
      out.push([...path, key]);
      schemaPaths(sub as Obj, [...path, key], out);
    }
  } else if (schema.type === 'array' && schema.items) {
    out.push([...path, 0]);
    schemaPaths(schema.items as Obj, [...path, 0], out);
  }
  return out;
}
