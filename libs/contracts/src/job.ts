import { Type, type Static } from '@sinclair/typebox';
import { parseTraceparent, traceparentLength, traceparentPattern } from './traceparent';

/** JobReason says why a job was queued, for people (logs, traces, the dashboard); a run reads its flags (jobFlags). */
export const JobReason = Type.Union([
  Type.Literal('git-change'),
  Type.Literal('git-removed'),
  Type.Literal('resync'),
  Type.Literal('drift'),
  Type.Literal('watch'),
  Type.Literal('manual'),
]);
export type JobReason = Static<typeof JobReason>;

/**
 * ReconcileJob is everything a job carries: ids and a revision, never an object body or a
 * secret. A worker reads the object from Git at `revision`. `traceparent` (only when tracing is
 * on) is the W3C trace context of the poll that queued it; a worker that cannot parse it drops it
 * (dropTraceparent) and runs the job all the same.
 */
export const ReconcileJob = Type.Object(
  {
    source: Type.String({ minLength: 1, maxLength: 253 }),
    revision: Type.String({ pattern: '^[0-9a-f]{40}$' }),
    cluster: Type.String({ minLength: 1, maxLength: 63 }),
    objectKey: Type.String({ minLength: 1, maxLength: 1024 }),
    reason: JobReason,
    /** Read the cluster live, not from the watch cache: a watch event or a person woke the run. */
    fresh: Type.Optional(Type.Boolean()),
    /** A person asked: run a stalled object again at the revision it stalled at. */
    retry: Type.Optional(Type.Boolean()),
    /** A routine look: the run may be answered from the record when nothing changed since the last full run. */
    routine: Type.Optional(Type.Boolean()),
    traceparent: Type.Optional(Type.String({ pattern: traceparentPattern, maxLength: traceparentLength })),
  },
  { additionalProperties: false },
);
export type ReconcileJob = Static<typeof ReconcileJob>;

/**
 * dropTraceparent returns a payload read from Redis without a `traceparent` that is not a valid one:
 * trace context is advice, so a bad one must not cost the job. Anything else is left for the
 * ReconcileJob check to judge.
 */
export function dropTraceparent(payload: unknown): unknown {
  if (typeof payload !== 'object' || payload === null || !('traceparent' in payload)) return payload;
  if (parseTraceparent((payload as { traceparent: unknown }).traceparent)) return payload;
  const { traceparent: _dropped, ...rest } = payload as Record<string, unknown>;
  return rest;
}

/** JobFlags are what a run does differently, as the job's contract says it. */
export interface JobFlags {
  fresh: boolean;
  retry: boolean;
  routine: boolean;
}

/**
 * flagsForReason are the flags each reason has always meant: a watch event or a person reads live
 * (fresh), a person also retries a stalled object (retry), and only a routine resync may be answered
 * from the record (routine). A change in Git at the same revision (a Source's path or spec) is none.
 */
export function flagsForReason(reason: JobReason): JobFlags {
  return { fresh: reason === 'drift' || reason === 'watch' || reason === 'manual', retry: reason === 'manual', routine: reason === 'resync' };
}

/**
 * jobFlags reads a job's flags. A job written before the flags existed (every job of schema 2 and
 * older still in Redis) has none: each absent flag is what its reason meant.
 */
export function jobFlags(job: Pick<ReconcileJob, 'reason' | 'fresh' | 'retry' | 'routine'>): JobFlags {
  const derived = flagsForReason(job.reason);
  return { fresh: job.fresh ?? derived.fresh, retry: job.retry ?? derived.retry, routine: job.routine ?? derived.routine };
}

/** withReason is the job asked again for another reason: flags it carried for the old reason go (they follow the new one). */
export function withReason<T extends ReconcileJob>(job: T, reason: JobReason): T {
  const { fresh: _fresh, retry: _retry, routine: _routine, ...rest } = job;
  return { ...rest, reason } as T;
}
