/** InvalidQueueOptionsError: options given to a queue class cannot work; the message says which. */
export class InvalidQueueOptionsError extends Error {
  readonly code = 'QueueInvalidOptions';
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'InvalidQueueOptionsError';
  }
}
