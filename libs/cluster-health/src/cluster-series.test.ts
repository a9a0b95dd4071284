import { describe, expect, it } from 'vitest';
import { sampleOf, type SampledFigures } from './cluster-series';

const figures = (failedRuns: number, failingObjects = 0): SampledFigures => ({
  cluster: 'east',
  depth: { waiting: 1, prioritized: 0, active: 1, delayed: 2 },
  processingMs: { count: 0, p50: 0, p99: 0 },
  failingObjects,
  failedRuns,
});
const at = new Date('2026-11-30T12:00:00Z');

describe('sampleOf', () => {
  it('has no failed-run count without an earlier counter reading to count from', () => {
    expect(sampleOf(figures(7, 2), at)).toEqual({ at: at.toISOString(), queued: 4, failing: 2, failedRunsTotal: 7 });
    expect(sampleOf(figures(7), at, { at: at.toISOString(), queued: 0, failing: 0 }).failedRuns).toBeUndefined();
  });

  it('counts the failed runs since the previous sample, not the failing objects', () => {
    const previous = sampleOf(figures(7, 2), at);
    expect(sampleOf(figures(19, 1), at, previous)).toMatchObject({ failedRuns: 12, failedRunsTotal: 19, failing: 1 });
    expect(sampleOf(figures(7, 2), at, previous)).toMatchObject({ failedRuns: 0, failing: 2 });
  });

  it('counts from zero when the counter went back (Redis lost it)', () => {
    const previous = sampleOf(figures(500), at);
    expect(sampleOf(figures(3), at, previous)).toMatchObject({ failedRuns: 3, failedRunsTotal: 3 });
  });

  it('adds run durations only once there are runs', () => {
    expect(sampleOf({ ...figures(0), processingMs: { count: 3, p50: 10.4, p99: 99.6 } }, at)).toMatchObject({ runP50: 10, runP99: 100 });
    expect(sampleOf(figures(0), at)).not.toHaveProperty('runP50');
  });
});
