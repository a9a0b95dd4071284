import type { FastifyInstance, FastifyReply } from 'fastify';
import { Type } from '@sinclair/typebox';
import { SourceName } from '@tidemark/contracts';
import { requireOperator } from '../auth/authenticate';
import type { Actions } from '../view/actions';
import type { SourceActions } from '../view/source-actions';
import { scopeKey, type TokenScope } from '../auth/token-scope';
import type { ConditionFilter } from '../view/cell-state';
import type { DashboardData } from '../view/dashboard-data';
import { VersionMemo } from '../view/version-memo';
import { ownerUidsOf } from '../view/resource-tree';
import { notFound } from '../api/dashboard-error';
import { objectKeyOf, objectPath } from '../api/object-key-params';
import { ObjectKeyParams, ObjectsQuery, type ActionResult } from '../api/schemas';
import { cellId } from './cell';
import type { SafeHtml } from './html';
import { EncodedPages } from './encoded-pages';
import { layout, type LayoutOptions } from './layout';
import { objectPage } from './object-page';
import { objectsPage } from './objects-page';
import { overviewPage } from './overview-page';
import { previewPage, previewsPage } from './previews-page';
import { queuePage } from './queue-page';
import { renderedPage } from './rendered-page';
import { clusterPage, clustersPage } from './clusters-page';
import { sourcePage, sourcesPage } from './sources-page';
import { clusterCharts, objectTimeline, sourceTimeline } from './timelines';

export interface PageRoutesOptions {
  data: DashboardData;
  actions: Actions;
  sourceActions: SourceActions;
  /** A trace UI's page of one trace, `{traceId}` standing for the id. @defaultValue none: no trace links */
  traceUrl?: string;
}

const notices: Record<string, string> = {
  reconcile: 'A reconcile is queued.',
  suspend: 'Suspended: the pipeline skips this object until it is resumed.',
  resume: 'Resumed, and a reconcile is queued.',
  retry: 'Failed runs are queued again.',
  'retry-none': 'Nothing to retry: no failed or stalled run was found.',
  fetch: 'A poll is asked for.',
  'source-suspend': 'Suspended: the source is not polled until it is resumed.',
  'source-resume': 'Resumed, and a poll is asked for.',
};
const SourceParams = Type.Object({ source: SourceName });
const PreviewParams = Type.Object({ source: SourceName, '*': Type.String({ minLength: 1, maxLength: 256 }) });
const ClusterParams = Type.Object({ cluster: Type.String({ minLength: 1, maxLength: 63 }) });
const RenderedQuery = Type.Object({ parent: Type.String({ minLength: 1, maxLength: 1024, description: 'The object key of the CR, group/kind/namespace/name.' }) }, { additionalProperties: false });
const NoticeQuery = Type.Object({ notice: Type.Optional(Type.String({ maxLength: 20 })) });

/** noticeFor names the notice of an action's result; a retry of nothing says so. */
function noticeFor(verb: string, result: ActionResult): string {
  return verb === 'retry' && result.retried === 0 ? 'retry-none' : verb;
}

/** queryKey names a query by its parameters, in a fixed order. */
function queryKey(query: object): string {
  return JSON.stringify(Object.entries(query).filter(([, value]) => value !== undefined && value !== '').sort(([a], [b]) => (a < b ? -1 : 1)));
}

function sendPage(reply: FastifyReply, options: LayoutOptions, main: SafeHtml): FastifyReply {
  return reply.type('text/html; charset=utf-8').header('cache-control', 'no-store').send(layout(options, main).value);
}

/** sendEncodedPage sends a page already encoded as UTF-8. */
function sendEncodedPage(reply: FastifyReply, page: Buffer): FastifyReply {
  return reply.type('text/html; charset=utf-8').header('cache-control', 'no-store').send(page);
}

/** pageRoutes serves the server-rendered pages and the form posts of their actions. */
export async function pageRoutes(app: FastifyInstance, { data, actions, sourceActions, traceUrl }: PageRoutesOptions): Promise<void> {
  const hide = { hide: true };
  app.get('/', { schema: hide }, async (request, reply) =>
    sendPage(reply, { title: 'Overview', nav: 'overview', live: 'refresh', principal: request.principal }, overviewPage(await data.for(request.principal).overview())));

  // The matrix is a function of the cache and the query alone: viewers between two writes share it.
  const objectPages = new VersionMemo<Buffer[]>(() => data.version);
  const encodedPages = new EncodedPages();
  app.get<{ Querystring: ObjectsQuery }>('/objects', { schema: { ...hide, querystring: ObjectsQuery } }, async (request, reply) => {
    const view = data.for(request.principal);
    // Each token scope sees its own matrix: the scope is part of the key.
    const main = objectPages.getOrCompute(`${scopeKey(request.principal?.scope)}|${queryKey(request.query)}`, () => {
      const { condition, ...rest } = request.query;
      const matrix = view.objects(condition ? { ...rest, condition: condition as ConditionFilter } : rest);
      return objectsPage(request.query, matrix, view.objectFacets(), view.clusterNames());
    });
    return sendEncodedPage(reply, encodedPages.page({ title: 'Objects', nav: 'objects', live: 'cells', principal: request.principal }, main));
  });

  // What a CR rendered: the objects page loads these rows under the CR's row when asked.
  app.get<{ Querystring: { parent: string } }>('/objects/rendered', { schema: { ...hide, querystring: RenderedQuery } }, async (request, reply) => {
    const view = data.for(request.principal);
    const parent = view.renderedBy(request.query.parent);
    if (!parent) throw notFound(`object ${request.query.parent}`);
    return sendPage(reply, { title: `Rendered by ${parent.kind} ${parent.name}`, nav: 'objects', live: 'refresh', principal: request.principal }, renderedPage(parent, view.clusterNames()));
  });

  app.get<{ Params: ObjectKeyParams; Querystring: { notice?: string } }>('/objects/:cluster/:group/:kind/:namespace/:name', { schema: { ...hide, params: ObjectKeyParams, querystring: NoticeQuery } }, async (request, reply) => {
    const key = objectKeyOf(request.params);
    const found = await data.for(request.principal).object(request.params.cluster, key);
    if (!found) throw notFound(`${key} on cluster ${request.params.cluster}`);
    const notice = request.query.notice ? notices[request.query.notice] : undefined;
    const timeline = objectTimeline(await data.for(request.principal).objectTimeline(key, found.status.source));
    const main = objectPage({ ...found, timeline, clusters: data.for(request.principal).clustersOf(key), principal: request.principal, ...(notice ? { notice } : {}), ...(traceUrl ? { traceUrl } : {}) });
    const liveTree = { cluster: request.params.cluster, ownerUids: ownerUidsOf(found.status) };
    return sendPage(reply, { title: `${found.status.kind} ${found.status.name}`, nav: 'objects', live: 'object', liveKey: cellId(request.params.cluster, key), liveTree, principal: request.principal }, main);
  });

  app.get('/sources', { schema: hide }, async (request, reply) =>
    sendPage(reply, { title: 'Sources', nav: 'sources', live: 'refresh', principal: request.principal }, sourcesPage(await data.for(request.principal).sources())));

  app.get<{ Params: { source: string }; Querystring: { notice?: string } }>('/sources/:source', { schema: { ...hide, params: SourceParams, querystring: NoticeQuery } }, async (request, reply) => {
    const notice = request.query.notice ? notices[request.query.notice] : undefined;
    const source = await data.for(request.principal).source(request.params.source);
    if (!source) throw notFound(`source ${request.params.source}`);
    return sendPage(reply, { title: `Source ${source.name}`, nav: 'sources', live: 'refresh', principal: request.principal }, sourcePage({ source, principal: request.principal, ...(notice ? { notice } : {}), timeline: sourceTimeline(await data.for(request.principal).sourceTimeline(source.name), Object.keys(source.byCluster).sort()) }));
  });

  app.get('/previews', { schema: hide }, async (request, reply) =>
    sendPage(reply, { title: 'Previews', nav: 'previews', principal: request.principal }, previewsPage(await data.for(request.principal).previews())));

  // The ref is the rest of the path, so a branch like feature/x keeps its slash.
  app.get<{ Params: { source: string; '*': string } }>('/previews/:source/*', { schema: { ...hide, params: PreviewParams } }, async (request, reply) => {
    const { source, '*': ref } = request.params;
    const report = await data.for(request.principal).preview(source, ref);
    if (!report) throw notFound(`preview of ${ref} in source ${source}`);
    return sendPage(reply, { title: `Preview of ${ref}`, nav: 'previews', principal: request.principal }, previewPage(report));
  });

  app.get('/clusters', { schema: hide }, async (request, reply) => {
    const { clusters, queueError } = await data.for(request.principal).clusters();
    return sendPage(reply, { title: 'Clusters', nav: 'clusters', live: 'refresh', principal: request.principal }, clustersPage(clusters, queueError));
  });

  app.get<{ Params: { cluster: string } }>('/clusters/:cluster', { schema: { ...hide, params: ClusterParams } }, async (request, reply) => {
    const found = await data.for(request.principal).cluster(request.params.cluster);
    if (!found) throw notFound(`cluster ${request.params.cluster}`);
    return sendPage(reply, { title: `Cluster ${request.params.cluster}`, nav: 'clusters', live: 'refresh', principal: request.principal }, clusterPage({ ...found, principal: request.principal, charts: clusterCharts(await data.for(request.principal).clusterSeries(request.params.cluster)) }));
  });

  app.get<{ Querystring: { notice?: string } }>('/queue', { schema: { ...hide, querystring: NoticeQuery } }, async (request, reply) => {
    const notice = request.query.notice ? notices[request.query.notice] : undefined;
    return sendPage(reply, { title: 'Queue', nav: 'queue', live: 'refresh', principal: request.principal }, queuePage(await data.for(request.principal).queue(), request.principal, notice));
  });

  registerFormActions(app, actions);
  registerSourceFormActions(app, sourceActions);
}

function registerFormActions(app: FastifyInstance, actions: Actions): void {
  const FormBody = Type.Object({ _csrf: Type.Optional(Type.String()), objectKey: Type.Optional(Type.String({ maxLength: 1024 })) });
  const verbs = { reconcile: actions.reconcileNow, suspend: actions.suspend, resume: actions.resume, retry: (cluster: string, key: string, scope?: TokenScope) => actions.retry(cluster, key, scope) };
  for (const [verb, run] of Object.entries(verbs)) {
    app.post<{ Params: ObjectKeyParams }>(`/objects/:cluster/:group/:kind/:namespace/:name/${verb}`, { schema: { hide: true, params: ObjectKeyParams, body: FormBody }, preHandler: requireOperator }, async (request, reply) => {
      const key = objectKeyOf(request.params);
      const result = await run.call(actions, request.params.cluster, key, request.principal?.scope, request.principal?.name ?? 'unknown');
      return reply.redirect(`/objects/${objectPath(request.params.cluster, key)}?notice=${noticeFor(verb, result)}`, 303);
    });
  }
  app.post<{ Params: { cluster: string }; Body: { objectKey?: string } }>('/queue/:cluster/retry', { schema: { hide: true, body: FormBody }, preHandler: requireOperator }, async (request, reply) => {
    const result = await actions.retry(request.params.cluster, request.body.objectKey || undefined, request.principal?.scope);
    return reply.redirect(`/queue?notice=${noticeFor('retry', result)}`, 303);
  });
}

function registerSourceFormActions(app: FastifyInstance, sourceActions: SourceActions): void {
  const verbs = { fetch: sourceActions.fetch, suspend: sourceActions.suspend, resume: sourceActions.resume };
  for (const [verb, run] of Object.entries(verbs)) {
    app.post<{ Params: { source: string } }>(`/sources/:source/${verb}`, { schema: { hide: true, params: SourceParams, body: Type.Object({ _csrf: Type.Optional(Type.String()) }) }, preHandler: requireOperator }, async (request, reply) => {
      await run.call(sourceActions, request.params.source, request.principal);
      return reply.redirect(`/sources/${encodeURIComponent(request.params.source)}?notice=${verb === 'fetch' ? verb : `source-${verb}`}`, 303);
    });
  }
}
