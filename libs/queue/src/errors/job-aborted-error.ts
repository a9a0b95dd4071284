/** Why a handler's signal fired. */
export type AbortCause = 'lease-lost' | 'shutdown' | 'cancelled';

/**
 * JobAbortedError is the reason of a handler's AbortSignal. `lease-lost`: this worker no longer
 * holds the job's lock, so another worker may take the object; stop writing at once.
 * `shutdown`: the process is draining and the job will be handed back.
 */
export class JobAbortedError extends Error {
  readonly code = 'QueueJobAborted';
  constructor(readonly abortCause: AbortCause, message: string) {
    super(message);
    this.name = 'JobAbortedError';
  }
}
