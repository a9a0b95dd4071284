import { NotReadyError, TerminalError, TransientError, type ReconcileFailure } from '@tidemark/contracts';

/** KubeStatus is the body of a failed Kubernetes API request (metav1.Status). */
export interface KubeStatus {
  kind?: string;
  status?: string;
  message?: string;
  reason?: string;
  code?: number;
  details?: { causes?: { type?: string; message?: string; field?: string }[] };
}

/** ApiError is a non-2xx answer from the API server, before it is mapped to a failure kind. */
export class ApiError extends Error {
  readonly code = 'KUBE_API_ERROR';
  constructor(readonly status: number, readonly body: KubeStatus, readonly what: string) {
    super(`${what}: ${body.message ?? `HTTP ${status}`}`);
    this.name = 'ApiError';
  }

  get isNotFound(): boolean { return this.status === 404; }
  get isConflict(): boolean { return this.status === 409; }
  /** isImmutableFieldChange tells an update the API server refused because a field cannot change. */
  get isImmutableFieldChange(): boolean {
    return this.status === 422 && /field is immutable|is immutable/i.test(this.body.message ?? '');
  }
}

/**
 * toReconcileFailure maps an error from a Kubernetes call to one of the three failure kinds.
 * Invalid or forbidden requests will fail the same way again, so they are terminal; overload,
 * timeouts, conflicts and network errors pass, so they are transient; a kind the server does
 * not serve yet (CRD not established) is not-ready.
 */
export function toReconcileFailure(error: unknown, what: string): ReconcileFailure {
  if (error instanceof TerminalError || error instanceof TransientError || error instanceof NotReadyError) return error;
  if (error instanceof ApiError) return fromApiError(error);
  const message = error instanceof Error ? error.message : String(error);
  return new TransientError('KubeUnreachable', `${what}: the API server could not be reached (${message}); it will be retried.`, { cause: error });
}

function fromApiError(error: ApiError): ReconcileFailure {
  const message = error.message;
  if (error.status === 400 || error.status === 422) {
    const code = error.isImmutableFieldChange ? 'ImmutableFieldChanged' : 'Invalid';
    return new TerminalError(code, message, { cause: error });
  }
  if (error.status === 401) return new TerminalError('Unauthorized', `${message}. Check the cluster credentials.`, { cause: error });
  if (error.status === 403) return new TerminalError('Forbidden', `${message}. Grant Tidemark's service account this permission.`, { cause: error });
  if (error.status === 404) return new NotReadyError('NotFound', message, 5_000, { cause: error });
  return new TransientError(`Http${error.status}`, message, { cause: error });
}
