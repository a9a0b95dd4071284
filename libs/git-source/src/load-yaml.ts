import { Composer, isCollection, LineCounter, Parser, visit, type CST, type Document } from 'yaml';
import type { LoadLimits } from './load-limits';
import { countNodes } from './count-nodes';
import { scanNesting } from './scan-nesting';

/** LoadedValue is one YAML document's plain value and the line where its content starts. */
export interface LoadedValue {
  value: unknown;
  line: number;
}

/** LoadWarning is something the parser accepted but a person should see: the line and what it did. */
export interface LoadWarning {
  line: number;
  message: string;
}

/** LoadedYaml is a file's documents and the parser's warnings about them. */
export interface LoadedYaml {
  values: LoadedValue[];
  warnings: LoadWarning[];
}

/** How many warnings one file keeps; a file of a thousand odd keys says so once per document at most. */
export const maxWarningsPerFile = 20;

/** LoadFailure says why a file could not be read, and where. */
export class LoadFailure extends Error {
  constructor(readonly reason: 'ParseFailed' | 'LimitExceeded', message: string, readonly line?: number) {
    super(message);
    this.name = 'LoadFailure';
  }
}

/**
 * loadYamlDocuments reads multi-document YAML (and so JSON) safely. The limits on document
 * count, nesting depth and aliases are checked on the concrete syntax tree, which the parser
 * builds without recursion, before any node is composed or any alias expanded: so a
 * billion-laughs file or a 10,000-level nesting is refused in linear time and memory. The nodes
 * are counted by the lexer even before that, so a file of a million list items builds no tree.
 * The library's warnings never reach the process (`logLevel: 'error'` stops its `process.emitWarning`):
 * they are returned with their line, to be shown as the source's warnings.
 */
export function loadYamlDocuments(text: string, limits: LoadLimits): LoadedYaml {
  const estimate = scanNesting(text, limits.maxDepth);
  if (estimate) throw new LoadFailure('LimitExceeded', `nesting deeper than ${limits.maxDepth} levels`, lineAt(text, estimate.offset));
  // Every counted node takes at least one character, so a shorter file cannot pass the limit.
  const crowded = text.length > limits.maxNodes ? countNodes(text, limits.maxNodes) : undefined;
  if (crowded) throw new LoadFailure('LimitExceeded', `more than ${limits.maxNodes} YAML nodes (keys, values, list items) in one file`, lineAt(text, crowded.offset));
  const lines = new LineCounter();
  const tokens = [...new Parser(lines.addNewLine).parse(text)];
  const lineOf = (offset: number) => lines.linePos(offset).line;
  checkLimits(tokens, limits, lineOf);
  const composer = new Composer({ version: '1.2', merge: true, uniqueKeys: true, prettyErrors: false, strict: true, logLevel: 'error' });
  const values: LoadedValue[] = [];
  const warnings: LoadWarning[] = [];
  for (const document of composer.compose(tokens)) {
    const error = document.errors[0];
    if (error) throw new LoadFailure('ParseFailed', firstLine(error.message), lineOf(errorOffset(text, error)));
    for (const warning of documentWarnings(document, text, lineOf)) if (warnings.length < maxWarningsPerFile) warnings.push(warning);
    const contents = document.contents;
    if (contents === null) continue;
    const line = lineOf(contents.range[0]);
    try {
      values.push({ value: document.toJS({ maxAliasCount: limits.maxAliases }), line });
    } catch (cause) {
      throw new LoadFailure('LimitExceeded', `aliases expand too far (${firstLine(String(cause))})`, line);
    }
  }
  return { values, warnings };
}

/**
 * documentWarnings lists the composer's warnings (unknown directives, unresolved tags) and the one
 * `toJS` would only print: a key that is a collection, which becomes its own YAML text as a string.
 */
function documentWarnings(document: Document.Parsed, text: string, lineOf: (offset: number) => number): LoadWarning[] {
  const warnings = document.warnings.map((warning) => ({ line: lineOf(warning.pos[0]), message: firstLine(warning.message) }));
  visit(document, {
    Pair(_, pair) {
      const key = pair.key;
      if (!isCollection(key) || !key.range) return;
      const written = clip(text.slice(key.range[0], key.range[1]), 40);
      warnings.push({ line: lineOf(key.range[0]), message: `a mapping key is a collection (${written}); it is read as a string of its YAML text, which is rarely what was meant` });
    },
  });
  return warnings;
}

function clip(text: string, length: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > length ? `${flat.slice(0, length - 1)}…` : flat;
}

function checkLimits(tokens: readonly CST.Token[], limits: LoadLimits, lineOf: (offset: number) => number): void {
  let documents = 0;
  let aliases = 0;
  const pending: Array<[CST.Token | null | undefined, number]> = tokens.map((token) => [token, 0]);
  // Explicit stack, not recursion: a hostile depth must not be able to overflow ours.
  for (let entry = pending.pop(); entry; entry = pending.pop()) {
    const [token, depth] = entry;
    if (!token) continue;
    if (token.type === 'document') {
      documents += 1;
      if (documents > limits.maxDocuments) {
        throw new LoadFailure('LimitExceeded', `more than ${limits.maxDocuments} documents in one file`, lineOf(token.offset));
      }
      pending.push([token.value, depth]);
    } else if (token.type === 'alias') {
      aliases += 1;
      if (aliases > limits.maxAliases) throw new LoadFailure('LimitExceeded', `more than ${limits.maxAliases} aliases`, lineOf(token.offset));
    } else if (token.type === 'block-map' || token.type === 'block-seq' || token.type === 'flow-collection') {
      if (depth + 1 > limits.maxDepth) throw new LoadFailure('LimitExceeded', `nesting deeper than ${limits.maxDepth} levels`, lineOf(token.offset));
      for (const item of token.items) pending.push([item.key, depth + 1], [item.value, depth + 1]);
    } else if (token.type === 'block-scalar') {
      for (const prop of token.props) pending.push([prop, depth]);
    }
  }
}

function lineAt(text: string, offset: number): number {
  let line = 1;
  for (let index = text.indexOf('\n'); index >= 0 && index < offset; index = text.indexOf('\n', index + 1)) line += 1;
  return line;
}

function firstLine(message: string): string {
  return message.split('\n', 1)[0] ?? message;
}

/**
 * errorOffset is where a person should look. The parser reports a missing closing quote where
 * it gave up (the end of the document); the line to fix is the one that opens the quote.
 */
function errorOffset(text: string, error: { message: string; pos: [number, number] }): number {
  const quote = /Missing closing ("|')quote/.exec(error.message)?.[1];
  if (!quote) return error.pos[0];
  const opening = text.lastIndexOf(quote, Math.max(0, error.pos[0] - 1));
  return opening >= 0 ? opening : error.pos[0];
}
