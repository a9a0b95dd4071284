import { Type, type Static } from '@sinclair/typebox';
import { parseTraceparent, traceparentLength, traceparentPattern } from './traceparent';

/** JobReason says why a job was queued; reconcile never depends on it (level-triggered). */
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
