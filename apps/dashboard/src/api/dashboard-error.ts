/** ErrorCode is the stable, machine-readable code of every error the dashboard answers with. */
export const ErrorCode = {
  Unauthenticated: 'Unauthenticated',
  Forbidden: 'Forbidden',
  CsrfInvalid: 'CsrfTokenInvalid',
  NotFound: 'NotFound',
  BadRequest: 'BadRequest',
  NoRevision: 'NoRevisionYet',
  JobStalled: 'JobStalled',
  QueueUnavailable: 'QueueUnavailable',
  Internal: 'InternalError',
  TooManyAttempts: 'TooManySignInAttempts',
  Conflict: 'Conflict',
  ClusterUnreachable: 'ClusterUnreachable',
} as const;
export type ErrorCode = (typeof ErrorCode)[keyof typeof ErrorCode];

/** DashboardError is an error with a stable code and the HTTP status it is answered with. */
export class DashboardError extends Error {
  constructor(readonly code: ErrorCode, readonly statusCode: number, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'DashboardError';
  }
}

export const unauthenticated = () => new DashboardError(ErrorCode.Unauthenticated, 401, 'Sign in, or send a bearer token in the Authorization header.');
export const forbidden = () => new DashboardError(ErrorCode.Forbidden, 403, 'This action needs the operator role.');
export const csrfInvalid = () => new DashboardError(ErrorCode.CsrfInvalid, 403, 'The CSRF token is missing or wrong; reload the page and try again.');
export const notFound = (what: string) => new DashboardError(ErrorCode.NotFound, 404, `${what} was not found.`);
export const tooManyAttempts = (seconds: number) => new DashboardError(ErrorCode.TooManyAttempts, 429, `Too many failed sign-ins from this address; try again in ${seconds} seconds.`);
