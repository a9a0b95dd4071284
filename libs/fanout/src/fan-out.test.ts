import { describe, expect, it } from 'vitest';
import { jobsForRoute, type ObjectRoute } from './fan-out';

const revision = 'a'.repeat(40);
const route = (overrides: Partial<ObjectRoute>): ObjectRoute => ({ source: 'repo', revision, objectKey: 'core/ConfigMap/a/one', removed: false, targets: [], known: [], reason: 'git-change', ...overrides });
const summary = (jobs: ReturnType<typeof jobsForRoute>) => jobs.map((job) => `${job.cluster}:${job.reason}`);

describe('jobsForRoute', () => {
  it('reconciles the object on every target cluster, with ids only', () => {
    const jobs = jobsForRoute(route({ targets: ['east', 'west'] }));
    expect(jobs[0]).toEqual({ source: 'repo', revision, cluster: 'east', objectKey: 'core/ConfigMap/a/one', reason: 'git-change' });
    expect(summary(jobs)).toEqual(['east:git-change', 'west:git-change']);
  });

  it('prunes on a cluster that left the placement', () => {
    expect(summary(jobsForRoute(route({ targets: ['east'], known: ['east', 'west'] })))).toEqual(['east:git-change', 'west:git-removed']);
  });

  it('prunes a removed object wherever it is known, and nowhere else', () => {
    expect(summary(jobsForRoute(route({ removed: true, targets: ['east', 'west'], known: ['west'] })))).toEqual(['west:git-removed']);
    expect(jobsForRoute(route({ removed: true }))).toEqual([]);
  });

  it('prunes a removed object where placement sent it before, though a run that pruned it there already left no record', () => {
    expect(summary(jobsForRoute(route({ removed: true, known: ['west'], placedBefore: ['east', 'west'] })))).toEqual(['west:git-removed', 'east:git-removed']);
    expect(summary(jobsForRoute(route({ removed: false, targets: ['east'], placedBefore: ['west'] })))).toEqual(['east:git-change']);
  });

  it('marks a resync as such', () => {
    expect(summary(jobsForRoute(route({ targets: ['east'], reason: 'resync' })))).toEqual(['east:resync']);
  });
});
