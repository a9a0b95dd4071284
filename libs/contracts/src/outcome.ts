/**
 * ReconcileOutcome is what a reconcile returns when it does not throw: done, or run again
 * after a delay (a periodic drift check, or waiting for objects to become ready). `resync` marks
 * the routine look-again at a Ready object: a queue with a resync schedule keeps it there instead
 * of as a delayed job, and answers it without a job while nothing changed. `stalled` on done says
 * the object is still stalled at the job's revision (the run did nothing): the queue keeps
 * answering enqueues at that revision with "stalled", as after the terminal failure that stalled it.
 */
export type ReconcileOutcome = { kind: 'done'; stalled?: StalledAt } | { kind: 'requeue'; afterMs: number; resync?: boolean };

/** StalledAt is the terminal failure an object is stalled with: its reason and message. */
export interface StalledAt {
  code: string;
  message: string;
}
