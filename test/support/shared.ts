// Test material. Two sources:
// - examples/ of this repository: ControlPlanes written for this project (any test may use them);
// - the upstream material (upstream CRDs, the reference examples) in C5C3_SHARED_DIR, default
//   ../shared, read in place and never copied. Only conformance checks read it: they take the
//   `conformance` test options, which skip them (counted and reported by scripts/test.mjs) when
//   the folder is absent, except under CI=true, where they run and fail.
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { packageRoot } from '../../src/package-root.js';

export const REPO_ROOT = packageRoot(import.meta.url);
export const SHARED_DIR = resolve(process.env.C5C3_SHARED_DIR ?? join(REPO_ROOT, '..', 'shared'));
/** The upstream material is there (its crds/ and examples/ folders). */
export const SHARED_PRESENT = existsSync(join(SHARED_DIR, 'crds')) && existsSync(join(SHARED_DIR, 'examples'));
const CI = /^(1|true|yes)$/i.test(process.env.CI ?? '');

/** The skip reason of a conformance check; scripts/test.mjs counts the checks skipped with it. */
export const CONFORMANCE_SKIP_REASON = 'conformance: needs the upstream material (C5C3_SHARED_DIR)';

/** Options of a test that needs the upstream material: skipped when it is absent (not in CI). */
export const conformance: { skip: string | false } = { skip: SHARED_PRESENT || CI ? false : CONFORMANCE_SKIP_REASON };

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

/** The metadata the API server would add to a created object. */
function created(doc: Obj): Obj {
  doc.metadata = { uid: `uid-${doc.metadata.name}`, generation: 1, creationTimestamp: '2026-01-01T00:00:00Z', ...doc.metadata };
  return doc;
}

function controlPlaneIn(path: string): Obj {
  const doc = readYamlDocs(path).find((d) => d.kind === 'ControlPlane');
  if (!doc) throw new Error(`${path} holds no ControlPlane`);
  return created(doc);
}

/** A ControlPlane of this repository's examples/ (e.g. `controlplane.yaml`), as created. */
export function fixtureControlPlane(file: string): Obj {
  return controlPlaneIn(join(REPO_ROOT, 'examples', file));
}

/** Conformance only: all example files of the upstream material with their documents. */
export function examples(): { file: string; docs: Obj[] }[] {
  const dir = sharedPath('examples');
  return readdirSync(dir)
    .filter((f) => f.endsWith('.yaml'))
    .sort()
    .map((file) => ({ file, docs: readYamlDocs(join(dir, file)) }));
}

/** Conformance only: the ControlPlane of an upstream example, as created. */
export function exampleControlPlane(file: string): Obj {
  return controlPlaneIn(sharedPath('examples', file));
}

/** Conformance only: the openAPIV3Schema of an upstream CRD (group/plural.yaml). */
export function upstreamSchema(relPath: string, version?: string): Obj {
  const [crd] = readYamlDocs(sharedPath('crds', relPath));
  const versions = crd!.spec.versions as Obj[];
  const v = version ? versions.find((x) => x.name === version) : versions.find((x) => x.storage);
  return v!.schema.openAPIV3Schema;
}

/** Conformance only: a whole upstream CRD document. */
export function upstreamCRD(relPath: string): Obj {
  return readYamlDocs(sharedPath('crds', relPath))[0]!;
}
