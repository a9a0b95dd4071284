import { TerminalError } from '@tidemark/contracts';

/**
 * InvalidJobError: a payload is not a ReconcileJob (an extra field such as an object body or
 * a secret, a revision that is not a commit id, …). Terminal: retrying cannot fix it.
 */
export class InvalidJobError extends TerminalError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('QueueInvalidJob', message, options);
    this.name = 'InvalidJobError';
  }
}
