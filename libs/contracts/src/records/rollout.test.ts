import { describe, expect, it } from 'vitest';
import { maxRolloutRecordBytes, parseRolloutCommand, parseRolloutRecord, rolloutCommandRefusal, rolloutTargetOf, type RolloutRecord } from './rollout';

const a = 'a'.repeat(40);
const b = 'b'.repeat(40);
const record: RolloutRecord = {
  source: 'apps', revision: b, previous: a, phase: 'progressing', paused: false, wave: 0, waves: [{ name: 'canary', clusters: ['canary'] }],
  batch: ['canary'], targets: { canary: b }, cells: {}, phaseSince: '2026-12-06T10:00:00.000Z', startedAt: '2026-12-06T10:00:00.000Z', updatedAt: '2026-12-06T10:00:00.000Z',
};

describe('the rollout record, read as hostile input', () => {
  it('refuses a record past its size bound before parsing it', () => {
    expect(() => parseRolloutRecord('apps', `{"pad":"${'x'.repeat(maxRolloutRecordBytes)}"}`)).toThrow(/larger than 1048576 bytes/);
  });

  it('keeps one bounded line of texts anyone who can write Redis wrote, and takes the source from the key', () => {
    const hostile = { ...record, source: 'other', halt: { cluster: 'canary\u001b[31m', reason: `line\r\nbreak${'z'.repeat(2000)}`, at: 'yesterday' } };
    const parsed = parseRolloutRecord('apps', JSON.stringify(hostile))!;
    expect(parsed.source).toBe('apps');
    expect(parsed.halt?.cluster).toBe('canary [31m');
    expect(parsed.halt?.reason.startsWith('line break')).toBe(true);
    expect(parsed.halt?.reason.length).toBe(500);
    expect(parsed.halt?.at).toBe(new Date(0).toISOString());
  });

  it('gives a cluster with no target the last good revision while running, the revision once complete, nothing on a first rollout', () => {
    expect(rolloutTargetOf(record, 'canary')).toBe(b);
    expect(rolloutTargetOf(record, 'joined')).toBe(a);
    expect(rolloutTargetOf({ ...record, phase: 'complete' }, 'joined')).toBe(b);
    expect(rolloutTargetOf({ ...record, previous: undefined }, 'joined')).toBeUndefined();
  });
});

describe('rollout commands', () => {
  it.each(['not json', '{"verb":"delete"}', '{"verb":"ABORT"}', '[]', 'null'])('drops an unreadable command %s', (raw) => {
    expect(parseRolloutCommand(raw)).toBeUndefined();
  });

  it('cleans who asked and drops a revision that is not a commit id', () => {
    expect(parseRolloutCommand(JSON.stringify({ verb: 'abort', by: 'mallory\n\u0007', at: '2026-12-06T10:00:00Z', revision: 'main' }))).toEqual({ verb: 'abort', by: 'mallory', at: '2026-12-06T10:00:00.000Z' });
  });

  it.each([
    ['promote', record, 'nothing to promote: the rollout is progressing (its gate decides)'],
    ['promote', { ...record, phase: 'waiting-approval', paused: true }, 'the rollout is paused: resume it first'],
    ['sync', { ...record, phase: 'soaking' }, 'nothing to sync: the rollout is soaking'],
    ['pause', { ...record, phase: 'halted' }, 'a halted rollout cannot be paused'],
    ['resume', record, 'nothing to resume: the rollout is progressing'],
    ['abort', { ...record, previous: undefined }, 'there is no last good revision to return to (this is the source\'s first rollout)'],
  ] as const)('refuses %s on %o, saying why', (verb, state, reason) => {
    expect(rolloutCommandRefusal(state as RolloutRecord, { verb })).toBe(reason);
  });
});
