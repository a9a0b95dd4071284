import { describe, expect, it } from 'vitest';
import { computeBackoff, resolveBackoff } from './backoff';

describe('computeBackoff', () => {
  const options = resolveBackoff({ baseMs: 100, factor: 2, maxMs: 1000, jitter: 0.5 });

  it('doubles from the base per consecutive failure, without jitter at random() = 0', () => {
    expect([1, 2, 3, 4].map((failures) => computeBackoff(failures, options, () => 0))).toEqual([100, 200, 400, 800]);
  });

  it('caps at maxMs, even after thousands of failures', () => {
    expect(computeBackoff(5, options, () => 0)).toBe(1000);
    expect(computeBackoff(10_000, options, () => 0)).toBe(1000);
  });

  it('takes off at most `jitter` of the delay', () => {
    expect(computeBackoff(3, options, () => 0.999_999)).toBe(200);
    expect(computeBackoff(10, options, () => 0.5)).toBe(750);
    const spread = new Set(Array.from({ length: 50 }, () => computeBackoff(3, options)));
    expect(spread.size).toBeGreaterThan(5);
    expect(Math.min(...spread)).toBeGreaterThanOrEqual(200);
    expect(Math.max(...spread)).toBeLessThanOrEqual(400);
  });

  it('treats zero or fractional failure counts as the first failure', () => {
    expect(computeBackoff(0, options, () => 0)).toBe(100);
    expect(computeBackoff(1.7, options, () => 0)).toBe(100);
  });

  it('rejects options that cannot give a sane delay', () => {
    expect(() => resolveBackoff({ baseMs: 10, maxMs: 5 })).toThrow(/baseMs <= maxMs/);
    expect(() => resolveBackoff({ factor: 0.5 })).toThrow(/factor/);
    expect(() => resolveBackoff({ jitter: 2 })).toThrow(/jitter/);
  });

  it('defaults to 1 s doubling up to 5 minutes', () => {
    const defaults = resolveBackoff();
    expect(computeBackoff(1, defaults, () => 0)).toBe(1000);
    expect(computeBackoff(30, defaults, () => 0)).toBe(300_000);
  });
});
