import { describe, expect, it } from 'vitest';
import { spreadDue } from './spread-due';

describe('spreadDue', () => {
  const interval = 60_000;
  const keys = Array.from({ length: 6_000 }, (_, index) => `core/ConfigMap/scale-${index % 10}/cm-${index}`);

  it('spreads objects swept at the same moment over the whole interval, never later than it', () => {
    const now = 1_700_000_000_123;
    const dues = keys.map((key) => spreadDue('c1', key, now, interval));
    expect(dues.every((due) => due > now && due <= now + interval)).toBe(true);
    const perSecond = new Map<number, number>();
    for (const due of dues) perSecond.set(Math.floor(due / 1000), (perSecond.get(Math.floor(due / 1000)) ?? 0) + 1);
    // 100 a second on average: no second holds more than twice that (all at once would be 6,000).
    expect(perSecond.size).toBeGreaterThanOrEqual(59);
    expect(Math.max(...perSecond.values())).toBeLessThan(200);
  });

  it('keeps an object at its place: swept when due (or a little late), it is due exactly one interval later', () => {
    const key = keys[7]!;
    const first = spreadDue('c1', key, 1_700_000_000_000, interval);
    expect(spreadDue('c1', key, first, interval)).toBe(first + interval);
    expect(spreadDue('c1', key, first + 250, interval)).toBe(first + interval);
  });

  it('places one object differently on different clusters', () => {
    const now = 1_700_000_000_000;
    const differ = keys.filter((key) => spreadDue('c1', key, now, interval) !== spreadDue('c2', key, now, interval));
    expect(differ.length).toBeGreaterThan(keys.length * 0.9);
  });
});
