/**
 * ReconcileOutcome is what a reconcile returns when it does not throw: done, or run again
 * after a delay (a periodic drift check, or waiting for objects to become ready). `resync` marks
 * the routine look-again at a Ready object: a queue with a resync schedule keeps it there instead
 * of as a delayed job, and answers it without a job while nothing changed.
 */
export type ReconcileOutcome = { kind: 'done' } | { kind: 'requeue'; afterMs: number; resync?: boolean };
