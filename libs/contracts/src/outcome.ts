/**
 * ReconcileOutcome is what a reconcile returns when it does not throw: done, or run again
 * after a delay (a periodic drift check, or waiting for objects to become ready).
 */
export type ReconcileOutcome = { kind: 'done' } | { kind: 'requeue'; afterMs: number };
