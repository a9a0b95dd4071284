import { isReconcileFailure, NotReadyError, TerminalError, TransientError, messageOf, type ReconcileFailure } from '@tidemark/contracts';
import { cleanApiMessage, isSchemaConversionError } from './api-message';

/** KubeStatus is the body of a failed Kubernetes API request (metav1.Status). */
export interface KubeStatus {
  kind?: string;
  status?: string;
  message?: string;
  reason?: string;
  code?: number;
  details?: { name?: string; kind?: string; group?: string; causes?: { type?: string; message?: string; field?: string }[] };
}

/** ApiError is a non-2xx answer from the API server, before it is mapped to a failure kind. */
export class ApiError extends Error {
  readonly code = 'KubeApiError';
  constructor(readonly status: number, readonly body: KubeStatus, readonly what: string) {
    super(`${what}: ${body.message ?? `HTTP ${status}`}`);
    this.name = 'ApiError';
  }

  get isNotFound(): boolean { return this.status === 404; }
  get isConflict(): boolean { return this.status === 409; }
  /**
   * mayBeStaleRead: a 404 or a conflict that a write based on an out-of-date read can cause. A
   * missing namespace is not one: it is missing whatever was read.
   */
  get mayBeStaleRead(): boolean {
    return (this.isNotFound && this.body.details?.kind !== 'namespaces') || this.isConflict;
  }
  /** isImmutableFieldChange tells an update the API server refused because a field cannot change. */
  get isImmutableFieldChange(): boolean {
    return this.status === 422 && /field is immutable|is immutable/i.test(this.body.message ?? '');
  }
}

/** KubeTransportError is a request that got no HTTP answer: refused, reset, timed out. */
export class KubeTransportError extends Error {
  readonly code = 'KubeUnreachable';
  constructor(readonly what: string, options: { cause: unknown }) {
    super(`${what}: ${messageOf(options.cause)}`, options);
    this.name = 'KubeTransportError';
  }
}

/**
 * toReconcileFailure is the one place where an error from a Kubernetes call becomes a typed
 * failure with a category:
 * - invalid (terminal): 400, 422, and a 500 that is a schema conversion error;
 * - forbidden (retried with backoff, so granting the permission heals it): 401, 403;
 * - waiting (requeued): 404, a kind not served yet or a namespace not created yet;
 * - transient (retried with backoff): 409, 429, other 5xx, no answer at all;
 * - internal (retried with backoff): anything else, a fault in Tidemark itself.
 * Messages are cleaned of Go struct dumps; the raw text is kept as `detail`.
 */
export function toReconcileFailure(error: unknown, what: string): ReconcileFailure {
  if (isReconcileFailure(error)) return error;
  if (error instanceof ApiError) return fromApiError(error);
  const message = messageOf(error);
  if (error instanceof KubeTransportError || hasSystemCode(error)) {
    return new TransientError('KubeUnreachable', `${what}: the API server could not be reached (${message}); it will be retried.`, { cause: error });
  }
  return new TransientError('InternalError', `${what}: Tidemark failed internally (${message}); it will be retried. If this persists, report it with the reconciler's log.`, { cause: error, category: 'internal' });
}

function fromApiError(error: ApiError): ReconcileFailure {
  const raw = error.body.message ?? `HTTP ${error.status}`;
  const message = `${error.what}: ${cleanApiMessage(raw)}`;
  const options = { cause: error, ...(message === `${error.what}: ${raw}` ? {} : { detail: raw }) };
  const { status } = error;
  if (status === 400 || status === 422 || (status === 500 && isSchemaConversionError(raw))) {
    const code = error.isImmutableFieldChange ? 'ImmutableFieldChanged' : 'Invalid';
    return new TerminalError(code, `${message}. Fix it in Git; it is not retried until it changes.`, options);
  }
  if (status === 401) return new TransientError('Unauthorized', `${message}. Check the cluster credentials; it will be retried.`, { ...options, category: 'forbidden' });
  if (status === 403) return new TransientError('Forbidden', `${message}. ${forbiddenAdvice(raw)}`, { ...options, category: 'forbidden' });
  if (status === 404) return notFound(error, message, options);
  if (status === 409) return new TransientError('WriteConflict', `${message}; it will be retried.`, options);
  if (status === 429) return new TransientError('TooManyRequests', `${message}; the API server asked to slow down, it will be retried.`, options);
  return new TransientError(`Http${status}`, `${message}; it will be retried.`, options);
}

/** notFound: a 404 while writing means something the object needs is not there yet. */
function notFound(error: ApiError, message: string, options: { cause: unknown; detail?: string }): NotReadyError {
  const details = error.body.details;
  if (details?.kind === 'namespaces' && details.name) {
    return new NotReadyError('DependencyNotReady', `${error.what}: waiting for Namespace ${details.name}, which does not exist yet.`, 5_000, options);
  }
  return new NotReadyError('NotFound', `${message}; waiting for it to exist.`, 5_000, options);
}

/** forbiddenAdvice tells RBAC (grant a permission) from an admission policy or quota (change the object or the policy). */
function forbiddenAdvice(raw: string): string {
  if (/denied request|admission webhook|exceeded quota/i.test(raw)) return 'A policy of the cluster refused it: change the object in Git or the policy; it will be retried.';
  return "Grant Tidemark's service account this permission; it will be retried.";
}

function hasSystemCode(error: unknown): boolean {
  const code = (error as { code?: unknown } | undefined)?.code;
  return typeof code === 'string' && /^E[A-Z]{3,}$/.test(code);
}
