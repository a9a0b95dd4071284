import { describe, expect, it } from 'vitest';
import { parseRolloutRecord } from './rollout';

const b = 'b'.repeat(40);
const base = { revision: b, phase: 'progressing', paused: false, wave: 0, waves: [{ name: 'canary', clusters: ['canary'] }], targets: { canary: b } };

describe('parseRolloutRecord: held', () => {
  it('reads a hold: the cluster, the reason as one bounded line, and when it began', () => {
    const record = parseRolloutRecord('apps', JSON.stringify({ ...base, held: { cluster: 'canary', reason: `deny window\n"office"\u2028until 16:00 ${'x'.repeat(900)}`, since: '2026-12-06T10:00:05Z' } }));
    expect(record?.held).toEqual({ cluster: 'canary', reason: expect.stringMatching(/^deny window "office" until 16:00 x+$/), since: '2026-12-06T10:00:05.000Z' });
    expect(record!.held!.reason).toHaveLength(500);
  });

  it.each([
    ['a string', 'deny window'],
    ['a list', ['canary']],
    ['null', null],
  ])('drops a hold that is %s, and still reads the record', (_name, held) => {
    const record = parseRolloutRecord('apps', JSON.stringify({ ...base, held }));
    expect(record).toMatchObject({ revision: b, phase: 'progressing' });
    expect(record?.held).toBeUndefined();
  });

  it('reads a hold with wrong field types as empty texts and the epoch, never as markup or a crash', () => {
    expect(parseRolloutRecord('apps', JSON.stringify({ ...base, held: { cluster: 7, reason: { x: 1 }, since: 'soon' } }))?.held).toEqual({ cluster: '', reason: '', since: '1970-01-01T00:00:00.000Z' });
  });
});
