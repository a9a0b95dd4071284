import { describe, expect, it } from 'vitest';
import { describeFreeze, maxFreezeReasonLength, parseClusterFreeze } from './cluster-freeze';

describe('parseClusterFreeze', () => {
  it('reads who, why and since', () => {
    const freeze = parseClusterFreeze('prod', JSON.stringify({ by: 'alice', reason: 'incident 42', since: '2026-12-06T08:00:00.000Z' }));
    expect(freeze).toEqual({ cluster: 'prod', by: 'alice', reason: 'incident 42', since: '2026-12-06T08:00:00.000Z' });
    expect(describeFreeze(freeze!)).toBe('frozen by alice since 2026-12-06T08:00:00.000Z: incident 42');
  });

  it('is not frozen without a record', () => {
    expect(parseClusterFreeze('prod', null)).toBeUndefined();
  });

  it.each(['not json', '[]', 'null', '{"by":1,"reason":"x","since":"2026-12-06T08:00:00Z"}', '{"by":"a","reason":"x","since":"yesterday"}'])(
    'still freezes on an unreadable record %s, and says so', (raw) => {
      expect(parseClusterFreeze('prod', raw)?.reason).toMatch(/unreadable/);
    });

  it('keeps one bounded line of a hostile text, and takes the cluster from the key', () => {
    const freeze = parseClusterFreeze('prod', JSON.stringify({ cluster: 'other', by: 'mallory\n\u001b[31m', reason: `x\r\ny${'z'.repeat(2000)}`, since: '2026-12-06T08:00:00Z' }));
    expect(freeze?.cluster).toBe('prod');
    expect(freeze?.by).toBe('mallory [31m');
    expect(freeze?.reason.startsWith('x y')).toBe(true);
    expect(freeze?.reason.length).toBe(maxFreezeReasonLength);
  });
});
