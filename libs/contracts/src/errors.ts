/**
 * FailureCategory says what a failure is, for the person reading it: `invalid` (fix Git; not
 * retried until the spec changes), `forbidden` (grant a permission; retried with backoff),
 * `waiting` (a dependency is not there yet, such as a kind's CRD; requeued), `transient` (retried
 * with backoff) or `internal` (a fault in Tidemark itself; retried with backoff). The badge, the
 * overview counts, the queue page and the conditions all read it.
 */
export type FailureCategory = 'invalid' | 'forbidden' | 'waiting' | 'transient' | 'internal';

export const failureCategories: readonly FailureCategory[] = ['invalid', 'forbidden', 'waiting', 'transient', 'internal'];

/** FailureOptions are what every failure may carry beyond its code and message. */
export interface FailureOptions {
  cause?: unknown;
  /** Overrides the class's default category. */
  category?: FailureCategory;
  /** The raw text behind a cleaned message (an API server's own words), for the detail page only. */
  detail?: string;
}

/**
 * The three kinds of failure that cross a library boundary. Each has a stable `code`, a
 * `category` and keeps its `cause`. Terminal → stalled, no retry until the spec changes;
 * transient → retry with backoff; not-ready → waiting: the pipeline's result stage answers the
 * queue with a ReconcileOutcome requeue after `requeueAfterMs` (the one way to say "requeue
 * after"; the queue itself knows only done, requeue, terminal and anything else).
 */
export class TerminalError extends Error {
  readonly kind = 'terminal' as const;
  /** @defaultValue 'invalid' */
  readonly category: FailureCategory;
  readonly detail?: string;
  constructor(readonly code: string, message: string, options?: FailureOptions) {
    super(message, options);
    this.name = 'TerminalError';
    this.category = options?.category ?? 'invalid';
    if (options?.detail !== undefined) this.detail = options.detail;
  }
}

export class TransientError extends Error {
  readonly kind = 'transient' as const;
  /** @defaultValue 'transient' */
  readonly category: FailureCategory;
  readonly detail?: string;
  constructor(readonly code: string, message: string, options?: FailureOptions) {
    super(message, options);
    this.name = 'TransientError';
    this.category = options?.category ?? 'transient';
    if (options?.detail !== undefined) this.detail = options.detail;
  }
}

export class NotReadyError extends Error {
  readonly kind = 'not-ready' as const;
  /** @defaultValue 'waiting' */
  readonly category: FailureCategory;
  readonly detail?: string;
  constructor(readonly code: string, message: string, readonly requeueAfterMs: number, options?: FailureOptions) {
    super(message, options);
    this.name = 'NotReadyError';
    this.category = options?.category ?? 'waiting';
    if (options?.detail !== undefined) this.detail = options.detail;
  }
}

export type ReconcileFailure = TerminalError | TransientError | NotReadyError;

/** messageOf is a thrown value's message: an Error's own, anything else as text. */
export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** isReconcileFailure tells whether an error is one of the three typed failures. */
export function isReconcileFailure(error: unknown): error is ReconcileFailure {
  return error instanceof TerminalError || error instanceof TransientError || error instanceof NotReadyError;
}
