import { TransientError } from '@tidemark/contracts';

/** QueueUnavailableError: Redis did not answer; the caller retries later (transient). */
export class QueueUnavailableError extends TransientError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('QueueUnavailable', message, options);
    this.name = 'QueueUnavailableError';
  }
}
