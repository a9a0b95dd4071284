import { describe, expect, it } from 'vitest';
import { spreadDelayMs } from './spread-delay';

const hour = 3_600_000;

describe('spreadDelayMs', () => {
  it('gives an object the same offset every time, inside the window', () => {
    const first = spreadDelayMs('east', 'apps/Deployment/shop/web', hour);
    expect(spreadDelayMs('east', 'apps/Deployment/shop/web', hour)).toBe(first);
    expect(Number.isInteger(first)).toBe(true);
    expect(first).toBeGreaterThanOrEqual(0);
    expect(first).toBeLessThan(hour);
  });

  it('places the same object differently on different clusters, and keeps cluster and key apart', () => {
    expect(spreadDelayMs('east', 'apps/Deployment/shop/web', hour)).not.toBe(spreadDelayMs('west', 'apps/Deployment/shop/web', hour));
    expect(spreadDelayMs('ab', 'c', hour)).not.toBe(spreadDelayMs('a', 'bc', hour));
  });

  it('covers the window evenly: 30,000 objects leave no sixtieth of it with more than 1.2x its share', () => {
    const slices = 60;
    const counts = new Array<number>(slices).fill(0);
    for (const cluster of ['east', 'west', 'north']) {
      for (let index = 0; index < 10_000; index += 1) {
        const delay = spreadDelayMs(cluster, `core/ConfigMap/app-${index % 97}/config-${index}`, hour);
        const slice = Math.floor(delay / (hour / slices));
        counts[slice] = (counts[slice] ?? 0) + 1;
      }
    }
    const share = 30_000 / slices;
    expect(Math.max(...counts)).toBeLessThan(share * 1.2);
    expect(Math.min(...counts)).toBeGreaterThan(share * 0.8);
  });

  it('does not spread with a window of 0, and refuses a window that is not a number of ms', () => {
    expect(spreadDelayMs('east', 'core/ConfigMap/app/a', 0)).toBe(0);
    expect(() => spreadDelayMs('east', 'core/ConfigMap/app/a', -1)).toThrow(/spread window.*-1/);
    expect(() => spreadDelayMs('east', 'core/ConfigMap/app/a', Number.NaN)).toThrow(/spread window/);
  });
});
