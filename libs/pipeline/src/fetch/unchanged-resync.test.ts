import { describe, expect, it } from 'vitest';
import { fullCheckIntervalFor } from './unchanged-resync';

describe('fullCheckIntervalFor', () => {
  const hour = 3_600_000;
  const keys = Array.from({ length: 1_000 }, (_, index) => `apps.example.com/WebApp/team-${index % 7}/app-${index}`);

  it('gives each object an interval between half the configured one and all of it, the same every time', () => {
    for (const key of keys) {
      const interval = fullCheckIntervalFor(key, hour);
      expect(interval).toBeGreaterThanOrEqual(hour / 2);
      expect(interval).toBeLessThanOrEqual(hour);
      expect(fullCheckIntervalFor(key, hour)).toBe(interval);
    }
  });

  it('spreads 1,000 objects applied together over the resyncs of the last half hour instead of one burst', () => {
    // Every object is looked at again every 5 minutes; its full check falls due at the first look after its interval.
    const dueAtResync = new Map<number, number>();
    for (const key of keys) {
      const resync = Math.ceil(fullCheckIntervalFor(key, hour) / 300_000);
      dueAtResync.set(resync, (dueAtResync.get(resync) ?? 0) + 1);
    }
    // Without the spread all 1,000 would fall due at the 12th resync; with it the 7th to 12th share them.
    expect([...dueAtResync.keys()].sort((a, b) => a - b)).toEqual([7, 8, 9, 10, 11, 12]);
    for (const count of dueAtResync.values()) expect(count).toBeLessThan(250);
  });
});
