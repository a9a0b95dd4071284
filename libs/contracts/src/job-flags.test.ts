import { describe, expect, it } from 'vitest';
import { Value } from '@sinclair/typebox/value';
import { flagsForReason, jobFlags, ReconcileJob, withReason, type JobReason } from './job';

const job = (reason: JobReason, flags: Partial<ReconcileJob> = {}): ReconcileJob => ({ source: 'apps', revision: 'a'.repeat(40), cluster: 'prod', objectKey: 'core/ConfigMap/ns/a', reason, ...flags });

describe('jobFlags', () => {
  // A job already in Redis from a release before the flags has none: each reason keeps its meaning.
  it.each([
    ['git-change', { fresh: false, retry: false, routine: false }],
    ['git-removed', { fresh: false, retry: false, routine: false }],
    ['resync', { fresh: false, retry: false, routine: true }],
    ['drift', { fresh: true, retry: false, routine: false }],
    ['watch', { fresh: true, retry: false, routine: false }],
    ['manual', { fresh: true, retry: true, routine: false }],
  ] as const)('derives the flags of an old %s job from its reason', (reason, flags) => {
    expect(jobFlags(job(reason))).toEqual(flags);
    expect(flagsForReason(reason)).toEqual(flags);
  });

  it.each([
    ['a manual job that reads from the cache', job('manual', { fresh: false }), { fresh: false, retry: true, routine: false }],
    ['a git change that reads live', job('git-change', { fresh: true }), { fresh: true, retry: false, routine: false }],
    ['a resync that must look', job('resync', { routine: false }), { fresh: false, retry: false, routine: false }],
    ['a watch event that retries', job('watch', { retry: true }), { fresh: true, retry: true, routine: false }],
  ])('takes the flags a job carries over its reason: %s', (_name, flagged, flags) => {
    expect(jobFlags(flagged)).toEqual(flags);
  });

  it('accepts a job with and without flags, and refuses a flag that is not a boolean', () => {
    expect(Value.Check(ReconcileJob, job('watch'))).toBe(true);
    expect(Value.Check(ReconcileJob, job('watch', { fresh: true, retry: false, routine: false }))).toBe(true);
    expect(Value.Check(ReconcileJob, { ...job('watch'), fresh: 'yes' })).toBe(false);
  });

  it('withReason drops the flags a job carried for its old reason', () => {
    const asked = withReason(job('watch', { fresh: true, retry: true }), 'resync');
    expect(asked).toEqual(job('resync'));
    expect(jobFlags(asked)).toEqual({ fresh: false, retry: false, routine: true });
  });
});
