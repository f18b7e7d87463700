// Access to ../shared (seeds, upstream CRDs, examples), read in place, never copied.
// The location is configurable with C5C3_SHARED_DIR; the default is the sibling checkout.
import { readFileSync, readdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseAllDocuments } from 'yaml';

export const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const SHARED_DIR = resolve(process.env.C5C3_SHARED_DIR ?? join(REPO_ROOT, '..', 'shared'));

export type Obj = Record<string, any>;

/** Every YAML document of a file (comments and `---` separators handled). */
export function readYamlDocs(path: string): Obj[] {
  return parseAllDocuments(readFileSync(path, 'utf8'))
    .map((d) => d.toJS() as Obj)
    .filter((d) => d !== null && d !== undefined);
}

export function sharedPath(...parts: string[]): string {
  return join(SHARED_DIR, ...parts);
}

/** All example files of ../shared/examples with their documents. */
export function examples(): { file: string; docs: Obj[] }[] {
  const dir = sharedPath('examples');
  return readdirSync(dir)
    .filter((f) => f.endsWith('.yaml'))
    .sort()
    .map((file) => ({ file, docs: readYamlDocs(join(dir, file)) }));
}

/** The ControlPlane document of an example, with the metadata the API server would add. */
export function exampleControlPlane(file: string): Obj {
  const doc = readYamlDocs(sharedPath('examples', file)).find((d) => d.kind === 'ControlPlane');
  if (!doc) throw new Error(`${file} holds no ControlPlane`);
  doc.metadata = { uid: `uid-${doc.metadata.name}`, generation: 1, creationTimestamp: '2026-01-01T00:00:00Z', ...doc.metadata };
  return doc;
}

/** The openAPIV3Schema of an upstream CRD in ../shared/crds (group/plural.yaml). */
export function upstreamSchema(relPath: string, version?: string): Obj {
  const [crd] = readYamlDocs(sharedPath('crds', relPath));
  const versions = crd!.spec.versions as Obj[];
  const v = version ? versions.find((x) => x.name === version) : versions.find((x) => x.storage);
  return v!.schema.openAPIV3Schema;
}
