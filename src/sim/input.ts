// The ControlPlane file `npm run simulate` reads (src/cli/simulate.ts), refused as `kubectl apply`
// would refuse it: a YAML syntax error names its line and column, and a field the CRD's structural
// schema does not know (`replcas`) is named by its path (src/crd/unknown-fields.ts) instead of
// being dropped silently. The spec's values are admitted later (Simulation.createControlPlane).
import { LineCounter, parseAllDocuments } from 'yaml';
import { controlPlaneCRD } from '../crd/generate.js';
import { unknownFields } from '../crd/unknown-fields.js';

type Obj = Record<string, unknown>;
export type InputReading = { ok: true; controlPlane: Obj & { metadata: Obj & { name: string } } } | { ok: false; problems: string[] };

const isObject = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The ControlPlane of `text` (the file `file`), or every reason the API server or kubectl would refuse it. */
export function readControlPlaneInput(text: string, file: string): InputReading {
  const lines = new LineCounter();
  const docs = parseAllDocuments(text, { lineCounter: lines, prettyErrors: false });
  const syntax = (Array.isArray(docs) ? docs : [docs]).flatMap((d) => d.errors).map((e) => {
    const { line, col } = lines.linePos(e.pos[0]);
    return `${file}:${line}:${col}: YAML syntax error: ${e.message.split('\n')[0]}`;
  });
  if (syntax.length > 0) return { ok: false, problems: syntax };
  const input = (Array.isArray(docs) ? docs : [docs]).map((d) => d.toJS() as unknown).find((d) => isObject(d) && d.kind === 'ControlPlane');
  const name = isObject(input) && isObject(input.metadata) ? input.metadata.name : undefined;
  if (!isObject(input) || typeof name !== 'string' || name === '') return { ok: false, problems: [`${file} holds no ControlPlane with a metadata.name`] };
  const schema = controlPlaneCRD().spec.versions[0]?.schema.openAPIV3Schema as Obj;
  const unknown = unknownFields(schema, input);
  if (unknown.length > 0) return { ok: false, problems: unknown.map((path) => `${file}: ControlPlane ${name}: unknown field "${path}"`) };
  return { ok: true, controlPlane: input as Obj & { metadata: Obj & { name: string } } };
}
