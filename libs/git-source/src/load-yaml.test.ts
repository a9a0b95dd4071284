import { describe, expect, it } from 'vitest';
import { LoadFailure, loadYamlDocuments } from './load-yaml';

const limits = { maxDepth: 64, maxDocuments: 100, maxAliases: 100 } as Parameters<typeof loadYamlDocuments>[1];

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
