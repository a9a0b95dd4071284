import { describe, expect, it } from 'vitest';
import { LoadFailure, loadYamlDocuments, maxWarningsPerFile } from './load-yaml';

const limits = { maxDepth: 64, maxDocuments: 100, maxAliases: 100, maxNodes: 500_000 } as Parameters<typeof loadYamlDocuments>[1];

function failureOf(text: string): LoadFailure {
  try {
    loadYamlDocuments(text, limits);
  } catch (error) {
    if (error instanceof LoadFailure) return error;
    throw error;
  }
  throw new Error('the text loaded');
}

describe('loadYamlDocuments line numbers', () => {
  it('points an unclosed double quote at the line that opens it, not the end of the file', () => {
    const failure = failureOf('apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\ndata:\n  a: "unclosed\n  b: c\n  d: e\n');
    expect(failure.message).toMatch(/Missing closing "quote/);
    expect(failure.line).toBe(6);
  });

  it('does the same for a single quote in a later document', () => {
    expect(failureOf("kind: A\n---\nkind: B\nmetadata:\n  name: 'open\n  x: y\n").line).toBe(5);
  });
});

describe('loadYamlDocuments warnings', () => {
  /** processWarnings collects what reaches process.emitWarning while `run` runs, and one tick after. */
  async function processWarnings(run: () => void): Promise<string[]> {
    const seen: string[] = [];
    const listener = (warning: Error) => seen.push(warning.message);
    process.on('warning', listener);
    try {
      run();
      // emitWarning delivers on the next tick: let it.
      await new Promise((resolve) => setImmediate(resolve));
    } finally {
      process.off('warning', listener);
    }
    return seen;
  }

  it('returns a key that is a collection as a warning with its line, and emits nothing on the process', async () => {
    const text = 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\ndata:\n  ? [a, b]\n  : c\n';
    let loaded: ReturnType<typeof loadYamlDocuments> | undefined;
    const emitted = await processWarnings(() => {
      loaded = loadYamlDocuments(text, limits);
    });
    expect(emitted).toEqual([]);
    expect(loaded?.warnings).toEqual([{ line: 6, message: expect.stringContaining('a mapping key is a collection ([a, b])') }]);
    expect(loaded?.values[0]?.value).toMatchObject({ data: { '[ a, b ]': 'c' } });
  });

  it('returns the composer\'s own warnings (an unknown directive) with their line, a bounded number per file', () => {
    expect(loadYamlDocuments('%FOO bar\n---\nkind: A\n', limits).warnings).toEqual([{ line: 1, message: 'Unknown directive %FOO' }]);
    const many = Array.from({ length: 50 }, (_, index) => `kind: A\nmetadata:\n  ? [${index}]\n  : x\n`).join('---\n');
    expect(loadYamlDocuments(many, limits).warnings).toHaveLength(maxWarningsPerFile);
  });
});
