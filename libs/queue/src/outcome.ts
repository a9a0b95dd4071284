import type { ReconcileJob, ReconcileOutcome } from '@tidemark/contracts';

/**
 * ReconcileHandler reconciles one object. It throws TerminalError (stalled, no retry at this
 * revision), NotReadyError (requeue after its delay) or anything else (retry with backoff).
 * `signal` aborts when this worker may no longer own the object (check it before each write)
 * or when the process drains; a handler that sees it should stop and throw its reason.
 */
export type ReconcileHandler = (job: ReconcileJob, signal: AbortSignal) => Promise<ReconcileOutcome>;
