import { describe, expect, it } from 'vitest';
import { defaultLoadLimits } from './load-limits';
import { loadManifestFile } from './load-manifest-file';
import { loadRenderedOutput, renderedOutputLimits } from './load-rendered-output';
import { defaultGitSizeLimits } from './pack-size-guard';

const encode = (text: string) => new TextEncoder().encode(text);
const configMap = (name: string, value = 'x') => `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\ndata:\n  v: |\n    ${value}\n    --- not a marker: indented\n`;
const outputLimits = renderedOutputLimits(defaultLoadLimits, defaultGitSizeLimits.maxRevisionBytes);

describe('loadRenderedOutput', () => {
  it('has the budget of Git content: the revision budget for the stream, a file\'s node limit per piece', () => {
    expect(outputLimits).toMatchObject({ maxFileBytes: 16 * 1024 * 1024, maxNodes: defaultLoadLimits.maxNodes });
  });

  it('reads a stream in pieces of whole documents, as one parse would', () => {
    const stream = Array.from({ length: 200 }, (_, index) => configMap(`cm-${index}`)).join('---\n');
    const whole = loadManifestFile(encode(stream), outputLimits);
    const inPieces = loadRenderedOutput(encode(stream), outputLimits, 1_000);
    expect(inPieces.failed).toBe(false);
    expect(inPieces.entries.map((entry) => entry.objectKey)).toEqual(whole.entries.map((entry) => entry.objectKey));
    expect(inPieces.entries).toHaveLength(200);
  });

  it('reads an output whose nodes pass one file\'s limit when each piece stays under it', () => {
    // With a file limit of 5,000 nodes: 20 ConfigMaps of 1,000 list items each, 20,000 nodes in all.
    const limits = { ...outputLimits, maxNodes: 5_000 };
    const list = Array.from({ length: 1_000 }, () => '1').join(',');
    const stream = Array.from({ length: 20 }, (_, index) => `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: list-${index}\ndata:\n  v: [${list}]\n`).join('---\n');
    expect(loadManifestFile(encode(stream), limits).failed).toBe(true);
    const file = loadRenderedOutput(encode(stream), limits);
    expect(file.failed).toBe(false);
    expect(file.entries).toHaveLength(20);
  });

  it('refuses a document of more nodes than a Git file may hold (the output limit was 8,000,000)', () => {
    const list = Array.from({ length: 600_000 }, () => '1').join(',');
    const file = loadRenderedOutput(encode(`${configMap('a')}---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: b\ndata:\n  v: [${list}]\n`), outputLimits);
    expect(file).toMatchObject({ failed: true, problems: [{ code: 'LimitExceeded', reason: expect.stringMatching(/more than 500000 YAML nodes/) }] });
    // Parsing 600,000 nodes takes seconds on a loaded machine, more under coverage.
  }, 60_000);

  it('refuses an output larger than the revision budget before parsing it', () => {
    const file = loadRenderedOutput(new Uint8Array(16 * 1024 * 1024 + 1), outputLimits);
    expect(file).toMatchObject({ failed: true, problems: [{ code: 'LimitExceeded', reason: expect.stringContaining('more than the limit of 16777216') }] });
  });

  it('counts documents across pieces', () => {
    const stream = Array.from({ length: 30 }, (_, index) => configMap(`cm-${index}`)).join('---\n');
    expect(loadRenderedOutput(encode(stream), { ...outputLimits, maxDocuments: 20 }, 500)).toMatchObject({ failed: true, problems: [{ reason: 'more than 20 documents in one output' }] });
  });
});
