import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { html } from '../pages/html';
import { DashboardError, ErrorCode } from './dashboard-error';

interface ErrorAnswer {
  statusCode: number;
  code: string;
  message: string;
}

/** answerFor maps any error to a status and a stable code; unknown errors say nothing of their insides. */
export function answerFor(error: FastifyError | DashboardError | Error): ErrorAnswer {
  if (error instanceof DashboardError) return { statusCode: error.statusCode, code: error.code, message: error.message };
  const fastifyError = error as FastifyError;
  if (fastifyError.validation) return { statusCode: 400, code: ErrorCode.BadRequest, message: `Invalid request: ${error.message}.` };
  const status = fastifyError.statusCode ?? 500;
  if (status >= 400 && status < 500) return { statusCode: status, code: ErrorCode.BadRequest, message: error.message };
  return { statusCode: 500, code: ErrorCode.Internal, message: 'The dashboard failed to answer; the error is in its log.' };
}

function wantsHtml(request: FastifyRequest): boolean {
  return !request.url.startsWith('/api/') && (request.headers.accept ?? '').includes('text/html');
}

/** errorHandler answers JSON `{code, message}` to the API and a short page to browsers. */
export function errorHandler(error: FastifyError | Error, request: FastifyRequest, reply: FastifyReply): FastifyReply {
  const answer = answerFor(error);
  if (answer.statusCode >= 500) request.log.error({ err: error }, 'request failed');
  reply.status(answer.statusCode);
  if (!wantsHtml(request)) return reply.send({ code: answer.code, message: answer.message });
  const page = html`<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${answer.statusCode} · Tidemark</title><link rel="stylesheet" href="/assets/app.css"></head>
<body><main><h1>${answer.statusCode}: ${answer.code}</h1><p id="error-message">${answer.message}</p><p><a href="/">Back to the overview</a></p></main></body></html>`;
  return reply.type('text/html; charset=utf-8').send(page.value);
}
