// src/bounded-yaml.ts: what is refused before the yaml library composes anything (size, nesting,
// aliases), what is read as before (a real clouds.yaml, anchors shared between clouds, brackets
// inside quoted or block scalars), and that no input makes it throw or quote the document.
import t from 'tap';
import fc from 'fast-check';
import { parse } from 'yaml';
import { readBoundedYaml, yamlBeyondBounds, YAML_LIMITS } from '../src/bounded-yaml.js';
import { cloudsDocument, valuesOfSecretText } from '../src/capture/secret-values.js';
import { readApplicationCredential } from '../src/controlplane/credential/clouds-yaml.js';
import { HOSTILE_YAML } from './support/hostile-yaml.js';

const CLOUDS = `clouds:
  admin: &admin
    auth:
      auth_url: http://keystone.openstack.svc:5000/v3
      application_credential_id: "id-1"
      application_credential_secret: "[[[{{{ s3cret *not-an-alias &not-an-anchor"
    auth_type: v3applicationcredential
    region_name: RegionOne
  copy: *admin
  other:
    auth: *auth
    ca: |
      ${'['.repeat(300)}
`.replace('    auth:\n', '    auth: &auth\n');

t.test('a real clouds.yaml is read as the library reads it', async (t) => {
  t.equal(yamlBeyondBounds(CLOUDS), undefined, 'within every bound: brackets in scalars are content');
  t.same(readBoundedYaml(CLOUDS), { ok: true, value: parse(CLOUDS) });
  t.match(readApplicationCredential(CLOUDS, 'copy'), { kind: 'credential', auth: { id: 'id-1', secret: '[[[{{{ s3cret *not-an-alias &not-an-anchor' } });
  t.ok(valuesOfSecretText(CLOUDS).includes('[[[{{{ s3cret *not-an-alias &not-an-anchor'), 'its auth secret is found for the redaction');
});

t.test("the issue's documents are refused before composing, saying why and quoting nothing", async (t) => {
  for (const [name, doc] of Object.entries(HOSTILE_YAML)) {
    const read = readBoundedYaml(doc);
    t.match(read, { ok: false, why: /^it (nests deeper than 128 levels|has more than 32 aliases)$/ }, name);
    t.equal(cloudsDocument(doc), undefined, `${name}: not a clouds document for the redaction`);
    t.same(valuesOfSecretText(doc), [doc], `${name}: the value stands for itself (redacted whole)`);
    t.match(readApplicationCredential(doc, 'admin'), { kind: 'unparsable', why: /nests deeper|aliases/ }, `${name}: unparsable for the stage`);
  }
  const long = `clouds: {a: "${'x'.repeat(YAML_LIMITS.maxLength)}"}`;
  t.same(readBoundedYaml(long), { ok: false, why: `it is longer than ${YAML_LIMITS.maxLength} characters` });
  const notYaml = readBoundedYaml('clouds: {a: "s3cret-in-a-broken-document"');
  t.match(notYaml, { ok: false, why: /^it is not YAML/ });
  t.notMatch(JSON.stringify(notYaml), /s3cret/, 'the parse error does not quote the document');
});

t.test('the bounds sit where they say: at the limit read, one past it refused', async (t) => {
  const flow = (n: number) => `${'['.repeat(n)}${']'.repeat(n)}`;
  t.equal(readBoundedYaml(flow(YAML_LIMITS.maxNesting)).ok, true, `flow nesting ${YAML_LIMITS.maxNesting}`);
  t.match(readBoundedYaml(flow(YAML_LIMITS.maxNesting + 1)), { ok: false, why: /nests deeper/ });
  const block = (n: number) => `${'- '.repeat(n)}x\n`;
  t.equal(readBoundedYaml(block(YAML_LIMITS.maxNesting)).ok, true, `block nesting ${YAML_LIMITS.maxNesting}`);
  t.match(readBoundedYaml(block(YAML_LIMITS.maxNesting + 1)), { ok: false, why: /nests deeper/ });
  const indented = (n: number) => Array.from({ length: n }, (_, i) => `${' '.repeat(i)}k${i}:`).join('\n') + ' x\n';
  t.equal(readBoundedYaml(indented(64)).ok, true, 'a map nested 64 deep, one column each');
  t.match(readBoundedYaml(indented(200)), { ok: false, why: /nests deeper/ }, 'indentation counts');
  const aliases = (n: number) => `a: &a x\nb: [${Array.from({ length: n }, () => '*a').join(', ')}]\n`;
  t.equal(readBoundedYaml(aliases(YAML_LIMITS.maxAliases)).ok, true, `${YAML_LIMITS.maxAliases} aliases`);
  t.match(readBoundedYaml(aliases(YAML_LIMITS.maxAliases + 1)), { ok: false, why: /aliases/ });
  // Few aliases that expand a lot (a billion laughs): the library's maxAliasCount refuses them.
  const laughs = ['a: &a [x, x, x, x, x, x, x, x]', ...'bcdef'.split('').map((k, i) => `${k}: &${k} [${Array(6).fill(`*${'abcdef'[i]}`).join(', ')}]`)].join('\n');
  t.match(readBoundedYaml(laughs), { ok: false, why: /^it is not YAML/ });
});

t.test('no text makes it throw; what it reads, the library reads the same', async (t) => {
  const pieces = fc.constantFrom('[', ']', '{', '}', '- ', '? ', ': ', '\n', '  ', '&a ', '*a', '"', "'", '|\n', '#', 'x', ',', 'clouds', '\t');
  t.doesNotThrow(() => fc.assert(
    fc.property(fc.array(pieces, { maxLength: 400 }), (parts) => {
      const text = parts.join('');
      const read = readBoundedYaml(text);
      if (read.ok) {
        let direct: unknown;
        try {
          direct = parse(text, { maxAliasCount: YAML_LIMITS.maxAliasCount, logLevel: 'error' });
        } catch {
          return false;
        }
        return JSON.stringify(direct) === JSON.stringify(read.value);
      }
      return typeof read.why === 'string';
    }),
    { numRuns: 500, seed: 41 },
  ), 'over 500 texts of YAML syntax');
});
