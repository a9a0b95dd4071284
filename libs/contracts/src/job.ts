import { Type, type Static } from '@sinclair/typebox';

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
 * secret. A worker reads the object from Git at `revision`.
 */
export const ReconcileJob = Type.Object(
  {
    source: Type.String({ minLength: 1, maxLength: 253 }),
    revision: Type.String({ pattern: '^[0-9a-f]{40}$' }),
    cluster: Type.String({ minLength: 1, maxLength: 63 }),
    objectKey: Type.String({ minLength: 1, maxLength: 1024 }),
    reason: JobReason,
  },
  { additionalProperties: false },
);
export type ReconcileJob = Static<typeof ReconcileJob>;
