import { LogController, type FastifyReply, type FastifyRequest } from 'fastify';

/** quietRoutes answer probes and browsers' asset loads: their successes are logged at debug, not info. */
const quietRoutes = new Set(['/healthz', '/readyz', '/metrics', '/assets/app.css', '/assets/app.js']);

/**
 * AccessLogController logs one line per answered request, where fastify's default writes two
 * ("incoming request" and "request completed", each a synchronous write; under load they were
 * about a tenth of the dashboard's busy time): method, URL, status, time and client address.
 * Successful probe and asset requests go at debug, so the log at info keeps every page, API call,
 * error and refusal. Errors, not-found routes and stream failures keep fastify's own lines.
 */
export class AccessLogController extends LogController {
  override incomingRequest(): void {
    // Said once, when the request completes.
  }

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    const entry = { method: request.method, url: request.url, statusCode: reply.statusCode, responseTimeMs: Math.round(reply.elapsedTime * 10) / 10, remoteAddress: request.ip };
    if (error) reply.log.error({ ...entry, err: error }, 'request errored');
    else if (reply.statusCode < 400 && quietRoutes.has(request.routeOptions.url ?? '')) reply.log.debug(entry, 'request completed');
    else reply.log.info(entry, 'request completed');
  }
}
