// YAML read from a request, bounded (docs/architecture.md §1.4): every YAML document the service
// parses comes from a Secret someone else writes (a clouds.yaml, through OpenBao and ESO, or any
// Secret value the redaction reads), so its size, nesting and aliases are bounded before the yaml
// library composes it.
//
// Why a pre-check, and not the library's own limits alone (yaml 2.9.1, node_modules/yaml/dist):
// - nesting: compose/compose-node.js and resolve-flow-collection.js recurse once per level, with no
//   limit; `clouds: ` + 5,000 `[` overflows the stack (the library turns the RangeError into a
//   RESOURCE_EXHAUSTION error when it can, but a stack overflow that lands inside V8's RegExp
//   compiler, resolve-flow-scalar.js, aborts the process instead);
// - aliases: `maxAliasCount` (ToJSOptions, default 100; nodes/Alias.js) is checked only when the
//   composed document is turned into JS, after composing: 8,000 aliases cost seconds of blocked
//   event loop before the check refuses them.
// The pre-check runs the library's Lexer (parse/lexer.ts: a state machine, iterative, linear in the
// text; it builds no tree), so it reads quoting and block scalars as YAML does, and refuses before
// anything recursive runs. What passes is parsed with maxAliasCount set, prettyErrors off (a pretty
// error quotes the document, and a clouds.yaml holds secrets) and logLevel `error` (no process
// warning about a request's content).
import { CST, Lexer, parse } from 'yaml';

export const YAML_LIMITS = Object.freeze({
  /** Characters of a document: a clouds.yaml is a few hundred; a few clouds with a CA bundle inline fit. */
  maxLength: 64 * 1024,
  /**
   * An upper bound of the nesting, at every point of the document: the open flow collections (`[`,
   * `{`), plus the line's indentation in columns, plus the block indicators (`-`, `?`, `:`) before
   * the point on its line. Each level of nesting costs at least one of these, so a document within
   * the bound nests at most this deep; the library's recursion overflows the stack at several
   * hundred levels. A clouds.yaml reaches about 12.
   */
  maxNesting: 128,
  /** Alias nodes (`*name`) in a document: sharing auth between clouds takes a few. */
  maxAliases: 32,
  /** The library's own bound on what aliases expand to (its default, stated). */
  maxAliasCount: 100,
});

export type BoundedYaml = { ok: true; value: unknown } | { ok: false; why: string };

/** Why `text` is refused before parsing (within no bound), or undefined when it is within all. */
export function yamlBeyondBounds(text: string): string | undefined {
  if (text.length > YAML_LIMITS.maxLength) return `it is longer than ${YAML_LIMITS.maxLength} characters`;
  let flow = 0;
  let indent = 0;
  let indicators = 0;
  let aliases = 0;
  let lineStart = true;
  let scalarNext = false;
  for (const token of new Lexer().lex(text)) {
    if (scalarNext) {
      // The source of a scalar (plain or block): its characters are content, never structure.
      scalarNext = false;
      lineStart = false;
      continue;
    }
    if (token === CST.SCALAR) {
      scalarNext = true;
      continue;
    }
    switch (CST.tokenType(token)) {
      case 'doc-mode':
      case 'byte-order-mark':
        continue;
      case 'newline':
        lineStart = true;
        indent = 0;
        indicators = 0;
        continue;
      case 'space':
        if (lineStart) indent = token.length;
        break;
      case 'seq-item-ind':
      case 'explicit-key-ind':
      case 'map-value-ind':
        indicators++;
        break;
      case 'flow-map-start':
      case 'flow-seq-start':
        flow++;
        break;
      case 'flow-map-end':
      case 'flow-seq-end':
        if (flow > 0) flow--;
        break;
      case 'alias':
        if (++aliases > YAML_LIMITS.maxAliases) return `it has more than ${YAML_LIMITS.maxAliases} aliases`;
        break;
    }
    lineStart = false;
    if (flow + indent + indicators > YAML_LIMITS.maxNesting) return `it nests deeper than ${YAML_LIMITS.maxNesting} levels`;
  }
  return undefined;
}

/**
 * `text` parsed as one YAML document, when it is within YAML_LIMITS and is YAML; else why not. The
 * reason never quotes the document.
 */
export function readBoundedYaml(text: string): BoundedYaml {
  const beyond = yamlBeyondBounds(text);
  if (beyond !== undefined) return { ok: false, why: beyond };
  try {
    return { ok: true, value: parse(text, { maxAliasCount: YAML_LIMITS.maxAliasCount, prettyErrors: false, logLevel: 'error' }) };
  } catch (err) {
    // The library's errors name a code (YAMLParseError) or are a ReferenceError for aliases; their
    // messages may quote the document, so only the kind is kept.
    const code = (err as { code?: unknown }).code;
    return { ok: false, why: typeof code === 'string' ? `it is not YAML (${code})` : 'it is not YAML' };
  }
}
