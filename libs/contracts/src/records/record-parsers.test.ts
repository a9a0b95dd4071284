import { describe, expect, it } from 'vitest';
import { parseClusterSample } from './cluster-series';
import { parsePreviewReport, maxPreviewReportBytes, type PreviewReport } from './preview';
import { countOf, jsonRecordOf, oneOf, textOf } from './record-fields';
import { parseSourceCommit } from './source-status';
import { parseStatusSync } from './status-change';

// Every parser of a Redis record reads hostile content: anyone who can write Redis can write a
// record. Each table row is stored text and what its reader must get.

const time = '2026-12-06T08:00:00.000Z';
const revision = 'a'.repeat(40);
const huge = 'x'.repeat(70_000);
// A key JSON.parse keeps as an own property: a parser that spread or assigned it would carry it on.
const withProto = (fields: Record<string, unknown>) => `{"__proto__":{"polluted":true},${JSON.stringify(fields).slice(1)}`;
const hasOwnProto = (value: unknown) => value !== undefined && Object.prototype.hasOwnProperty.call(value, '__proto__');

/** common are the rows every parser of a JSON object record refuses. */
const common: Array<[string, string | null]> = [
  ['a missing record', null],
  ['an empty text', ''],
  ['text that is not JSON', '{"revision":'],
  ['JSON null', 'null'],
  ['a JSON array', '[1,2]'],
  ['a JSON string', '"revision"'],
  ['a JSON number', '42'],
];

describe('record fields', () => {
  it.each([
    ['a string within its bound', textOf('abc', 3), 'abc'],
    ['a string over its bound', textOf('abcd', 3), undefined],
    ['a number where text belongs', textOf(3), undefined],
    ['a count', countOf(2), 2],
    ['a negative count', countOf(-1), undefined],
    ['an infinite count (1e400 in JSON)', countOf(JSON.parse('1e400')), undefined],
    ['a count spelled as text', countOf('2'), undefined],
    ['one of the allowed', oneOf('b', ['a', 'b']), 'b'],
    ['a prototype name as a choice', oneOf('constructor', ['a', 'b']), undefined],
  ])('%s', (_name, got, want) => {
    expect(got).toBe(want);
  });

  it.each(common)('jsonRecordOf refuses %s', (_name, raw) => {
    expect(jsonRecordOf(raw)).toBeUndefined();
  });
});

describe('parseSourceCommit', () => {
  const commit = { revision, message: 'Add the blue app', author: 'Alice', time, fetchedAt: time };

  it.each([...common,
    ['no revision', JSON.stringify({ ...commit, revision: undefined })],
    ['a revision that is a number', JSON.stringify({ ...commit, revision: 7 })],
    ['an oversized revision', JSON.stringify({ ...commit, revision: 'a'.repeat(129) })],
    ['no time', JSON.stringify({ ...commit, time: undefined })],
  ])('drops %s', (_name, raw) => {
    expect(parseSourceCommit(raw)).toBeUndefined();
  });

  it.each([
    ['a commit as the poller writes it', JSON.stringify(commit), commit],
    ['extra fields and a __proto__ key', withProto({ ...commit, token: 'secret' }), commit],
    ['an oversized subject and author of the wrong type', JSON.stringify({ ...commit, message: huge, author: ['x'] }), { ...commit, message: '', author: '' }],
  ])('reads %s', (_name, raw, want) => {
    const parsed = parseSourceCommit(raw);
    expect(parsed).toEqual(want);
    expect(hasOwnProto(parsed)).toBe(false);
  });
});

describe('parseClusterSample', () => {
  const sample = { at: time, queued: 3, failing: 1, runP50: 120, runP99: 900, failedRuns: 0, failedRunsTotal: 4 };

  it.each([...common,
    ['no time', JSON.stringify({ ...sample, at: undefined })],
    ['a queue length as text', JSON.stringify({ ...sample, queued: '3' })],
    ['a negative queue length', JSON.stringify({ ...sample, queued: -1 })],
    ['an infinite queue length', JSON.stringify(sample).replace('"queued":3', '"queued":1e400')],
  ])('drops %s', (_name, raw) => {
    expect(parseClusterSample(raw)).toBeUndefined();
  });

  it.each([
    ['a sample as the sampler writes it', JSON.stringify(sample), sample],
    ['an old sample without failedRuns', JSON.stringify({ at: time, queued: 0, failing: 0 }), { at: time, queued: 0, failing: 0 }],
    ['wrong figures, dropped one by one', withProto({ ...sample, runP50: 'fast', runP99: null, failing: {} }), { at: time, queued: 3, failing: 0, failedRuns: 0, failedRunsTotal: 4 }],
  ])('reads %s', (_name, raw, want) => {
    const parsed = parseClusterSample(raw);
    expect(parsed).toEqual(want);
    expect(hasOwnProto(parsed)).toBe(false);
  });
});

describe('parseStatusSync', () => {
  it.each([
    ['a marker', '{"sync":"abc"}', { sync: 'abc' }],
    ['a marker that is a number', '{"sync":1}', undefined],
    ['an oversized marker', JSON.stringify({ sync: huge }), undefined],
    ['not JSON', 'sync', undefined],
    ['JSON null', 'null', undefined],
  ])('%s', (_name, raw, want) => {
    expect(parseStatusSync(raw)).toEqual(want);
  });
});

describe('parsePreviewReport', () => {
  const change = { cluster: 'prod', objectKey: 'core/ConfigMap/ns/a', apiVersion: 'v1', kind: 'ConfigMap', namespace: 'ns', name: 'a', action: 'configured', path: 'apps/a.yaml', line: 3, fields: [{ path: '/data/color', live: 'red', desired: 'green', overwrites: 'kubectl-edit' }], desired: { data: { color: 'green' } }, live: { data: { color: 'red' } } };
  const hook = { cluster: 'prod', objectKey: 'batch/Job/ns/migrate', kind: 'Job', namespace: 'ns', name: 'migrate', phase: 'pre-apply', weight: -1, deletePolicies: ['hook-succeeded'] };
  const report: PreviewReport = {
    source: 'apps', ref: 'feature/blue', state: 'done', trigger: 'webhook', pullRequest: { number: 7, url: 'https://git.example/pr/7', title: 'Blue' },
    revision, baseRevision: 'b'.repeat(40), requestedAt: time, finishedAt: time, unreachable: [{ cluster: 'edge', message: 'timed out' }],
    changes: [change as PreviewReport['changes'][number]], hooks: [hook as NonNullable<PreviewReport['hooks']>[number]],
    blastRadius: { clusters: ['prod'], namespaces: ['ns'], kinds: ['ConfigMap'], counts: { created: 0, configured: 1, unchanged: 0, deleted: 0, invalid: 0, skipped: 0 }, flagged: [] },
    truncated: { withoutObjects: 0, omitted: 0 }, decryptedUnits: ['apps/secret'],
  };

  it('reads a report as the worker writes it, unchanged', () => {
    expect(parsePreviewReport(JSON.stringify(report))).toEqual(report);
  });

  it.each([...common,
    ['no source', JSON.stringify({ ...report, source: undefined })],
    ['a state it does not know', JSON.stringify({ ...report, state: 'hacked' })],
    ['no request time', JSON.stringify({ ...report, requestedAt: 5 })],
    ['a record larger than any writer stores', JSON.stringify({ ...report, error: 'x'.repeat(maxPreviewReportBytes) })],
  ])('drops %s', (_name, raw) => {
    expect(parsePreviewReport(raw)).toBeUndefined();
  });

  it.each([
    ['a change with an unknown action', { changes: [{ ...change, action: 'exploded' }] }, { changes: [] }],
    ['a change that is a string', { changes: ['core/ConfigMap/ns/a'] }, { changes: [] }],
    ['changes that are not a list', { changes: { 0: change } }, { changes: [] }],
    ['a change with an oversized name', { changes: [{ ...change, name: huge }] }, { changes: [] }],
    ['a field without a path', { changes: [{ ...change, fields: [{ live: 1 }] }] }, { changes: [{ ...change, fields: [] }] }],
    ['side-by-side objects that are lists', { changes: [{ ...change, desired: [1], live: 'x' }] }, { changes: [{ ...change, desired: undefined, live: undefined }] }],
    ['a hook in an unknown phase', { hooks: [{ ...hook, phase: 'post-delete' }] }, { hooks: [] }],
    ['a hook with an unknown delete policy', { hooks: [{ ...hook, deletePolicies: ['never', 'hook-failed'] }] }, { hooks: [{ ...hook, deletePolicies: ['hook-failed'] }] }],
    ['a pull request link that is not http(s)', { pullRequest: { number: 7, url: 'javascript:alert(1)' } }, { pullRequest: { number: 7 } }],
    ['a pull request number that is not one', { pullRequest: { number: 0 } }, { pullRequest: undefined }],
    ['blast radius counts that are not numbers', { blastRadius: { ...report.blastRadius, counts: { configured: 'many', __proto__: 1 } } }, { blastRadius: { ...report.blastRadius, counts: { created: 0, configured: 0, unchanged: 0, deleted: 0, invalid: 0, skipped: 0 } } }],
    ['an unknown trigger', { trigger: 'cron' }, { trigger: undefined }],
    ['an oversized error', { error: 'x'.repeat(70_000) }, { error: undefined }],
  ])('drops only what does not fit: %s', (_name, stored, kept) => {
    const parsed = parsePreviewReport(JSON.stringify({ ...report, ...stored }));
    const want = JSON.parse(JSON.stringify({ ...report, ...kept })) as PreviewReport;
    expect(parsed).toEqual(want);
  });

  it('carries no __proto__ key or unknown field over, at the top or in a change', () => {
    const stored = withProto({ ...report, injected: true, changes: [JSON.parse(withProto({ ...change, injected: true })) as unknown] });
    const parsed = parsePreviewReport(stored)!;
    expect(hasOwnProto(parsed)).toBe(false);
    expect(hasOwnProto(parsed.changes[0])).toBe(false);
    expect('injected' in parsed || 'injected' in parsed.changes[0]!).toBe(false);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});
