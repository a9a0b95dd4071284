import { describe, expect, it } from 'vitest';
import { betterFor, figure, ratioText, shown } from './figures';

describe('figure', () => {
  it('has no ratio, not a ratio of 0, when the baseline is 0', () => {
    const entry = figure('x', 'ms', 12, 'nothing', 0);
    expect(entry.ratio).toBeNull();
    expect(ratioText(entry)).toBe('n/a (baseline 0)');
  });

  it('says which way is better: higher for a rate, lower for a time or a count', () => {
    expect(betterFor('objects/s')).toBe('higher');
    expect(betterFor('ms')).toBe('lower');
    expect(betterFor('requests')).toBe('lower');
    expect(ratioText(figure('rate', 'objects/s', 50, 'raw', 100))).toBe('0.5 (higher is better)');
    expect(ratioText(figure('time', 'ms', 200, 'raw', 100))).toBe('2 (lower is better)');
  });
});

describe('shown', () => {
  it('keeps two significant digits below 1, so a small baseline is not printed as 0', () => {
    expect(shown(0.0312)).toBe(0.031);
    expect(shown(0.3)).toBe(0.3);
    expect(shown(12.34)).toBe(12.3);
    expect(shown(0)).toBe(0);
    expect(figure('pub/sub', 'ms', 52, 'round trip', 0.0312).baselineValue).toBe(0.031);
  });
});
