/**
 * The three kinds of failure that cross a library boundary. Each has a stable `code` and
 * keeps its `cause`. The queue maps them to behaviour: terminal → stalled, no retry until
 * the spec changes; transient → retry with backoff; not-ready → requeue after a delay.
 */
export class TerminalError extends Error {
  readonly kind = 'terminal' as const;
  constructor(readonly code: string, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'TerminalError';
  }
}

export class TransientError extends Error {
  readonly kind = 'transient' as const;
  constructor(readonly code: string, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'TransientError';
  }
}

export class NotReadyError extends Error {
  readonly kind = 'not-ready' as const;
  constructor(readonly code: string, message: string, readonly requeueAfterMs: number, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'NotReadyError';
  }
}

export type ReconcileFailure = TerminalError | TransientError | NotReadyError;

/** isReconcileFailure tells whether an error is one of the three typed failures. */
export function isReconcileFailure(error: unknown): error is ReconcileFailure {
  return error instanceof TerminalError || error instanceof TransientError || error instanceof NotReadyError;
}
