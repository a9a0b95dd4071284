/**
 * scanNesting estimates, in one pass over the text, how deep a YAML (or JSON) file nests, so
 * that hostile files are refused before the parser builds 10,000 levels of tokens. It counts
 * flow brackets that start a token (outside quotes and comments) and compact block
 * indicators at the start of a line ("- - - x"). It may overestimate slightly on odd text in
 * block scalars; the exact check runs afterwards on the syntax tree.
 */
export function scanNesting(text: string, limit: number): { depth: number; offset: number } | undefined {
  const state: ScanState = { flow: 0, plain: false, previous: '\n' };
  for (let index = 0; index < text.length; index += 1) {
    if (state.previous === '\n') {
      // A line starts: count "- - -" style block nesting, then scan the rest of the line.
      const next = skipBlockIndicators(text, index, limit);
      if (next < 0) return { depth: limit + 1, offset: -next - 1 };
      state.plain = false;
      state.previous = ' ';
      index = next - 1;
      continue;
    }
    index = scanChar(text, index, state);
    if (state.flow > limit) return { depth: state.flow, offset: index };
  }
  return undefined;
}

interface ScanState {
  flow: number;
  /** Inside a plain scalar (x[[[) brackets are text, not flow collections. */
  plain: boolean;
  previous: string;
}

const separators = new Set([' ', '\t', ',', ':', '\n']);

/** scanChar handles one character (or a whole comment or quoted scalar) and returns the last index consumed. */
function scanChar(text: string, start: number, state: ScanState): number {
  const char = text[start]!;
  const index = consume(text, start, char, state);
  state.previous = text[index] ?? char;
  return index;
}

function consume(text: string, start: number, char: string, state: ScanState): number {
  const tokenStart = !state.plain && startsToken(state.previous);
  if (char === '#' && (state.previous === ' ' || state.previous === '\t')) return endOfLine(text, start) - 1;
  if ((char === '"' || char === "'") && tokenStart) return endOfQuoted(text, start);
  if ((char === '[' || char === '{') && tokenStart) state.flow += 1;
  else if ((char === ']' || char === '}') && !state.plain && state.flow > 0) state.flow -= 1;
  else state.plain = !separators.has(char);
  return start;
}

function startsToken(previous: string): boolean {
  return previous === ' ' || previous === '\t' || previous === '\n' || previous === '[' || previous === '{' || previous === ',' || previous === ':';
}

/** skipBlockIndicators passes spaces and "- ", "? ", ": " at a line start; a negative result means too deep. */
function skipBlockIndicators(text: string, start: number, limit: number): number {
  let count = 0;
  let index = start;
  for (;;) {
    while (text[index] === ' ' || text[index] === '\t') index += 1;
    const char = text[index];
    const next = text[index + 1];
    if ((char === '-' || char === '?' || char === ':') && (next === ' ' || next === '\t')) {
      count += 1;
      if (count > limit) return -index - 1;
      index += 2;
    } else {
      return index;
    }
  }
}

function endOfLine(text: string, index: number): number {
  const end = text.indexOf('\n', index);
  return end < 0 ? text.length : end;
}

function endOfQuoted(text: string, start: number): number {
  const quote = text[start];
  for (let index = start + 1; index < text.length; index += 1) {
    const char = text[index];
    if (quote === '"' && char === '\\') index += 1;
    else if (char === quote) {
      if (quote === "'" && text[index + 1] === "'") index += 1;
      else return index;
    }
  }
  return text.length;
}
