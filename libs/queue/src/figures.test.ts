import { describe, expect, it } from 'vitest';
import { summarize } from './figures';

describe('summarize', () => {
  it('gives zeros for no samples', () => {
    expect(summarize([])).toEqual({ count: 0, p50: 0, p99: 0, max: 0, mean: 0 });
  });

  it('uses nearest-rank percentiles', () => {
    const samples = Array.from({ length: 100 }, (_, index) => 100 - index);
    expect(summarize(samples)).toEqual({ count: 100, p50: 50, p99: 99, max: 100, mean: 51 });
  });
});
