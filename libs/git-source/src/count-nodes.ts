import { CST, Lexer } from 'yaml';

/** The lexer's tokens that each start a node of the syntax tree: a scalar, a collection, a key, a list item, a flow entry, an alias. */
const nodeTokens = new Set(['scalar', 'alias', 'seq-item-ind', 'map-value-ind', 'explicit-key-ind', 'flow-map-start', 'flow-seq-start', 'comma']);
/** The lexer's markers, which are not text of the file. */
const markers = new Set([CST.DOCUMENT, CST.FLOW_END, CST.SCALAR]);

/**
 * countNodes counts, with the lexer alone (a stream of strings, no tree), the nodes the parser would
 * build for a file, and says where the count passes `limit`. The parser's syntax tree and the
 * composed document cost several hundred bytes per node, so `[1,1,1,…]` of 2 MiB would hold over a
 * GiB before any other limit is checked on the tree. undefined: within the limit.
 */
export function countNodes(text: string, limit: number): { offset: number } | undefined {
  let nodes = 0;
  let offset = 0;
  for (const token of new Lexer().lex(text)) {
    if (nodeTokens.has(CST.tokenType(token) ?? '')) {
      nodes += 1;
      if (nodes > limit) return { offset };
    }
    if (!markers.has(token)) offset += token.length;
  }
  return undefined;
}
