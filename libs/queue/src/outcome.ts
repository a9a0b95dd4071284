import type { ReconcileJob, ReconcileOutcome } from '@tidemark/contracts';

/**
 * ReconcileHandler reconciles one object. It returns done or requeue-after (an object that waits
 * for a dependency is not failing: it returns a requeue), or throws TerminalError (stalled, no
 * retry at this revision) or anything else (retry with backoff).
 * `signal` aborts when this worker may no longer own the object (check it before each write)
 * or when the process drains; a handler that sees it should stop and throw its reason.
 */
export type ReconcileHandler = (job: ReconcileJob, signal: AbortSignal) => Promise<ReconcileOutcome>;
