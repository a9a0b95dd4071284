import type { FastifyInstance } from 'fastify';
import { Type } from '@sinclair/typebox';
import { listPreviews, readPreviewReport, messageOf, SourceName, type PreviewJob, type PreviewReport, type RecordKeys, type RedisClient } from '@tidemark/contracts';
import { requestPreview } from '@tidemark/preview';
import type { PreviewQueue } from '@tidemark/queue';
import { requireOperator } from '../auth/authenticate';
import { previewInScope } from '../auth/token-scope';
import { DashboardError, ErrorCode, notFound } from './dashboard-error';
import { errors } from './schemas';

export interface PreviewRoutesOptions {
  previews: Pick<PreviewQueue, 'enqueue'>;
  redis: RedisClient;
  keys: RecordKeys;
}

// A branch name or commit id as Git allows it: no control characters, spaces or ~^:?*[\.
const refPattern = '^[^\\u0000-\\u001f\\u007f ~^:?*\\[\\\\]+$';
const PreviewParams = Type.Object({ source: SourceName, ref: Type.String({ minLength: 1, maxLength: 255, pattern: refPattern }) });
const PreviewRequestBody = Type.Object({
  source: SourceName,
  ref: Type.String({ minLength: 1, maxLength: 255, pattern: refPattern, description: 'A branch (refs/heads/ may be omitted) or a 40-hex commit id.' }),
}, { additionalProperties: false });
const QueuedBody = Type.Object({ source: Type.String(), ref: Type.String(), status: Type.String({ description: 'queued, or merged into a preview of the same ref that waits.' }), jobId: Type.String() });
// The report as libs/contracts defines it (PreviewReport); changes are passed through as stored.
const ReportBody = Type.Object({
  source: Type.String(), ref: Type.String(), state: Type.String(), trigger: Type.Optional(Type.String()),
  pullRequest: Type.Optional(Type.Object({ number: Type.Integer(), url: Type.Optional(Type.String()), title: Type.Optional(Type.String()) })),
  revision: Type.Optional(Type.String()), baseRevision: Type.Optional(Type.String()), requestedAt: Type.String(), finishedAt: Type.Optional(Type.String()),
  error: Type.Optional(Type.String()), unreachable: Type.Optional(Type.Array(Type.Object({ cluster: Type.String(), message: Type.String() }))),
  changes: Type.Array(Type.Unknown()), blastRadius: Type.Optional(Type.Unknown()),
  truncated: Type.Optional(Type.Object({ withoutObjects: Type.Integer(), omitted: Type.Integer() })),
});

/**
 * previewRoutes: an operator asks for a preview of a ref (a job on the preview queue; a worker
 * runs it and writes nothing to any cluster), and anyone signed in reads the reports.
 */
export async function previewRoutes(app: FastifyInstance, { previews, redis, keys }: PreviewRoutesOptions): Promise<void> {
  app.post<{ Body: { source: string; ref: string } }>('/api/previews', {
    schema: { tags: ['actions'], summary: 'Preview a branch or commit of a source against the live clusters. Needs the operator role.', body: PreviewRequestBody, response: { 202: QueuedBody, ...errors(400, 401, 403, 503) } },
    preHandler: requireOperator,
  }, async (request, reply) => {
    if (!previewInScope(request.principal?.scope, request.body.source)) throw notFound(`source ${request.body.source}`);
    const job: PreviewJob = { source: request.body.source, ref: request.body.ref.replace(/^refs\/heads\//, ''), trigger: 'request', requestedAt: new Date().toISOString() };
    // Shown as queued at once, unless a worker already wrote this request's (or a newer) report.
    const queued = await requestPreview(redis, keys, (checked) => previews.enqueue(checked), job).catch((error: unknown) => {
      throw new DashboardError(ErrorCode.QueueUnavailable, 503, messageOf(error), { cause: error });
    });
    return reply.code(202).send({ source: job.source, ref: job.ref, ...queued });
  });
  app.get('/api/previews', {
    schema: { tags: ['status'], summary: 'The newest previews, newest first.', response: { 200: Type.Array(Type.Object({ source: Type.String(), ref: Type.String() })), ...errors(401) } },
  }, async (request) => (await listPreviews(redis, keys)).filter((preview) => previewInScope(request.principal?.scope, preview.source)));
  app.get<{ Params: { source: string; ref: string } }>('/api/previews/:source/:ref', {
    schema: { tags: ['status'], summary: 'One preview report (the ref URL-encoded). Secret values are never in it.', params: PreviewParams, response: { 200: ReportBody, ...errors(400, 401, 404) } },
  }, async (request): Promise<PreviewReport> => {
    const report = previewInScope(request.principal?.scope, request.params.source) ? await readPreviewReport(redis, keys, request.params.source, request.params.ref) : undefined;
    if (!report) throw notFound(`A preview of ${request.params.ref} in source ${request.params.source}`);
    return report;
  });
}
