import { describe, expect, it } from 'vitest';
import { defaultLoadLimits } from './load-limits';
import { loadManifestFile } from './load-manifest-file';
import { scanNesting } from './scan-nesting';

const encode = (text: string) => new TextEncoder().encode(text);
const load = (text: string, limits = defaultLoadLimits) => loadManifestFile(encode(text), limits);
const configMap = (name: string) => `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\n`;

function billionLaughs(): string {
  const lines = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]'];
  const names = 'abcdefghij';
  for (let level = 1; level < names.length; level += 1) {
    lines.push(`${names[level]}: &${names[level]} [${Array(9).fill(`*${names[level - 1]}`).join(',')}]`);
  }
  return lines.join('\n');
}

/** laughsList is a List whose items nest `depth` levels of nine aliases each (a: 9 values, b: 81, …). */
function laughsList(depth: number): string {
  const names = 'abcdefghij';
  const lines = ['apiVersion: v1', 'kind: List', 'metadata: {name: laughs}', 'items:', '  a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]'];
  for (let level = 1; level < depth; level += 1) lines.push(`  ${names[level]}: &${names[level]} [${Array(9).fill(`*${names[level - 1]}`).join(',')}]`);
  return lines.join('\n');
}

describe('loadManifestFile', () => {
  it('reads multi-document YAML with the line of each document and skips empty documents', () => {
    const file = load(`# comment\n${configMap('a')}---\n---\n${configMap('b')}`);
    expect(file.failed).toBe(false);
    expect(file.entries.map((entry) => [entry.objectKey, entry.line])).toEqual([['core/ConfigMap/_/a', 2], ['core/ConfigMap/_/b', 8]]);
  });

  it('reads JSON', () => {
    const file = load('{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web","namespace":"shop"}}');
    expect(file.entries[0]?.objectKey).toBe('apps/Deployment/shop/web');
  });

  it('keeps metadata.namespace as written and keys an absent namespace as empty', () => {
    const [entry] = load(configMap('a')).entries;
    expect(entry?.manifest.metadata.namespace).toBeUndefined();
    expect(entry?.objectKey).toBe('core/ConfigMap/_/a');
  });

  it.each([
    ['kind: ConfigMap\nmetadata: {name: a}\n', 'apiVersion is missing'],
    ['apiVersion: v1\nmetadata: {name: a}\n', 'kind is missing'],
    ['apiVersion: v1\nkind: ConfigMap\nmetadata: {}\n', 'metadata.name is missing from ConfigMap'],
    ['apiVersion: v1\nkind: ConfigMap\n', 'metadata is missing from ConfigMap'],
    ['- a\n- b\n', 'not a mapping'],
  ])('refuses an object without its identity: %#', (text, reason) => {
    const file = load(`${configMap('ok')}---\n${text}`);
    expect(file.entries.map((entry) => entry.objectKey)).toEqual(['core/ConfigMap/_/ok']);
    expect(file.problems).toEqual([{ code: 'MissingIdentity', line: 6, reason: expect.stringContaining(reason) }]);
  });

  it('fails the whole file on a syntax error, naming the line', () => {
    const file = load(`${configMap('a')}---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: b\n  name: c\n`);
    expect(file).toMatchObject({ failed: true, entries: [], problems: [{ code: 'ParseFailed', line: 10, reason: expect.stringContaining('unique') }] });
  });

  it('refuses a billion-laughs file (9^10 values) with LimitExceeded, naming the aliases and the line', () => {
    expect(load(billionLaughs())).toMatchObject({ failed: true, entries: [], problems: [{ code: 'LimitExceeded', line: 1, reason: expect.stringMatching(/^aliases expand too far/) }] });
  });

  it('bounds alias expansion by maxAliases, not by time: three levels of nine are read in full, four refused until the limit is raised', () => {
    const values = (file: ReturnType<typeof load>) => JSON.stringify(file.entries[0]?.manifest).match(/"lol"/g)?.length ?? 0;
    // a (9) + b (81) + c (729): every alias expanded, as written.
    expect(values(load(laughsList(3)))).toBe(9 + 81 + 729);
    expect(load(laughsList(4))).toMatchObject({ failed: true, problems: [{ code: 'LimitExceeded', reason: expect.stringMatching(/^aliases expand too far/) }] });
    expect(values(load(laughsList(4), { ...defaultLoadLimits, maxAliases: 1_000 }))).toBe(9 + 81 + 729 + 6_561);
  });

  it.each([
    ['flow sequences', '['.repeat(10_000) + ']'.repeat(10_000)],
    ['flow mappings', '{a: '.repeat(10_000) + '1' + '}'.repeat(10_000)],
    ['compact block sequences', '- '.repeat(10_000) + 'x'],
    ['JSON', '{"a":'.repeat(10_000) + '1' + '}'.repeat(10_000)],
  ])('rejects 10,000 levels of %s at the 101st, before the parser builds any of them', (_name, text) => {
    expect(load(text).problems).toEqual([{ code: 'LimitExceeded', line: 1, reason: 'nesting deeper than 100 levels' }]);
    // The one-pass scan stops within the first 101 levels (at most 5 characters each): the other 9,899 are never read.
    const stop = scanNesting(text, defaultLoadLimits.maxDepth);
    expect(stop?.depth).toBe(101);
    expect(stop!.offset).toBeLessThan(101 * 5);
  });

  it('rejects nesting past the limit that the quick scan cannot see, on the syntax tree', () => {
    const nested = Array.from({ length: 12 }, (_, depth) => `${'  '.repeat(depth)}k${depth}:`).join('\n') + ' 1\n';
    expect(load(nested, { ...defaultLoadLimits, maxDepth: 10 }).problems[0]).toMatchObject({ code: 'LimitExceeded', reason: 'nesting deeper than 10 levels' });
    expect(load(nested, { ...defaultLoadLimits, maxDepth: 12 }).problems[0]).toMatchObject({ code: 'MissingIdentity' });
  });

  it('does not count brackets inside strings, plain scalars or comments', () => {
    const text = `${configMap('a')}data:\n  q: "[[[[${'['.repeat(200)}"\n  p: x${'['.repeat(200)}\n# ${'{'.repeat(200)}\n`;
    expect(load(text).problems).toEqual([]);
  });

  it('enforces the document count, file size and alias limits', () => {
    const limits = { ...defaultLoadLimits, maxDocuments: 2, maxFileBytes: 200, maxAliases: 1 };
    expect(load(`${configMap('a')}---\n${configMap('b')}---\n${configMap('c')}`, { ...limits, maxFileBytes: 1000 }).problems[0]?.reason).toBe('more than 2 documents in one file');
    expect(load('#'.repeat(201), limits).problems[0]?.reason).toContain('more than the limit of 200');
    expect(load('a: &x 1\nb: *x\nc: *x\n', limits).problems[0]?.reason).toBe('more than 1 aliases');
  });

  it('counts the nodes before parsing: a file of many list items is refused at the line that passes the limit', () => {
    const limits = { ...defaultLoadLimits, maxNodes: 1_000 };
    const crowded = `${configMap('crowded')}data:\n  v: x\n  list: [${'1,'.repeat(2_000)}1]\n`;
    expect(load(crowded, limits)).toMatchObject({ failed: true, problems: [{ code: 'LimitExceeded', line: 7, reason: 'more than 1000 YAML nodes (keys, values, list items) in one file' }] });
    // In block style a `key: value` line is three nodes (key, indicator, value); and a file just within the limit.
    const lines = `${configMap('lines')}data:\n${Array.from({ length: 600 }, (_, index) => `  k${index}: v`).join('\n')}\n`;
    expect(load(lines, limits).problems[0]).toMatchObject({ code: 'LimitExceeded', line: 335 });
    const within = `${configMap('within')}data:\n${Array.from({ length: 300 }, (_, index) => `  k${index}: v`).join('\n')}\n`;
    expect(load(within, limits)).toMatchObject({ failed: false, problems: [] });
  });

  it('refuses bytes that are not UTF-8', () => {
    expect(loadManifestFile(new Uint8Array([0xff, 0xfe, 0x00]), defaultLoadLimits).problems[0]?.reason).toBe('the file is not valid UTF-8');
  });
});

describe('loadManifestFile warnings', () => {
  it('reads a file whose key is a collection, with a ParserWarning at that line', () => {
    const file = load(`${configMap('odd')}data:\n  ? {a: 1}\n  : x\n`);
    expect(file.failed).toBe(false);
    expect(file.entries.map((entry) => entry.objectKey)).toEqual(['core/ConfigMap/_/odd']);
    expect(file.warnings).toEqual([{ code: 'ParserWarning', line: 6, reason: expect.stringContaining('a mapping key is a collection') }]);
    expect(load(configMap('plain')).warnings).toBeUndefined();
  });
});
