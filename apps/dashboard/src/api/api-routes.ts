import type { FastifyInstance } from 'fastify';
import { Type } from '@sinclair/typebox';
import { SourceName } from '@tidemark/contracts';
import type { TokenScope } from '../auth/token-scope';
import { requireOperator } from '../auth/authenticate';
import type { Actions } from '../view/actions';
import type { SourceActions } from '../view/source-actions';
import type { DashboardData } from '../view/dashboard-data';
import type { ConditionFilter } from '../view/cell-state';
import { notFound } from './dashboard-error';
import { objectKeyOf } from './object-key-params';
import { ActionResult, CellBody, SourceActionResult, errors, ObjectKeyParams, ObjectsQuery, ObjectStatusBody, ReconcileRecordBody, TreeNodeBody } from './schemas';
import { ClusterBody, ClustersBody, OverviewBody, QueueBody, SessionBody, SourceBody } from './schemas-pages';

export interface ApiRoutesOptions {
  data: DashboardData;
  actions: Actions;
  sourceActions: SourceActions;
}

const readErrors = errors(401);

/** apiRoutes is the JSON API under /api; every route declares its schemas, one per status. */
export async function apiRoutes(app: FastifyInstance, { data, actions, sourceActions }: ApiRoutesOptions): Promise<void> {
  app.get('/session', { schema: { tags: ['session'], summary: 'Who is signed in, and the CSRF token of a cookie session.', response: { 200: SessionBody, ...readErrors } } },
    async (request) => request.principal);

  app.get('/overview', { schema: { tags: ['status'], summary: 'Counts per state, sources, clusters and queues.', response: { 200: OverviewBody, ...readErrors } } },
    async (request) => data.for(request.principal).overview());

  app.get<{ Querystring: ObjectsQuery }>('/objects', {
    schema: {
      tags: ['status'], summary: 'The object × cluster matrix, filtered and paged.', querystring: ObjectsQuery,
      response: {
        200: Type.Object({
          clusters: Type.Array(Type.String()), total: Type.Integer(), page: Type.Integer(), pageSize: Type.Integer(), pages: Type.Integer(),
          rows: Type.Array(Type.Object({
            objectKey: Type.String(), group: Type.String(), kind: Type.String(), namespace: Type.String(), name: Type.String(),
            path: Type.Optional(Type.String()), cells: Type.Record(Type.String(), CellBody),
            rendered: Type.Optional(Type.Array(Type.Object({
              kind: Type.String(), namespace: Type.String(), name: Type.String(),
              cells: Type.Record(Type.String(), Type.Object({ health: Type.String(), drifted: Type.Boolean(), message: Type.Optional(Type.String()) })),
            }), { description: 'What a kind (a WebApp) rendered, with its health per cluster.' })),
          })),
        }),
        ...errors(400, 401),
      },
    },
  }, async (request) => {
    const { condition, ...rest } = request.query;
    return data.for(request.principal).objects(condition ? { ...rest, condition: condition as ConditionFilter } : rest);
  });

  app.get<{ Params: ObjectKeyParams }>('/objects/:cluster/:group/:kind/:namespace/:name', {
    schema: {
      tags: ['status'], summary: 'One object on one cluster: status, drift, inventory and history.', params: ObjectKeyParams,
      response: { 200: Type.Object({ status: ObjectStatusBody, history: Type.Array(ReconcileRecordBody), clusters: Type.Array(Type.String()), tree: TreeNodeBody }), ...errors(400, 401, 404) },
    },
  }, async (request) => {
    const key = objectKeyOf(request.params);
    const found = await data.for(request.principal).object(request.params.cluster, key);
    if (!found) throw notFound(`${key} on cluster ${request.params.cluster}`);
    return { ...found, clusters: data.for(request.principal).clustersOf(key) };
  });

  app.get('/clusters', { schema: { tags: ['status'], summary: 'Clusters with counts and queue figures.', response: { 200: ClustersBody, ...readErrors } } },
    async (request) => data.for(request.principal).clusters());

  app.get('/sources', { schema: { tags: ['status'], summary: 'Git sources: ref, head commit, last poll, problems, objects per cluster.', response: { 200: Type.Array(SourceBody), ...readErrors } } },
    async (request) => data.for(request.principal).sources());
  app.get<{ Params: { source: string } }>('/sources/:source', {
    schema: { tags: ['status'], summary: 'One Git source.', params: Type.Object({ source: SourceName }), response: { 200: SourceBody, ...errors(400, 401, 404) } },
  }, async (request) => {
    const source = await data.for(request.principal).source(request.params.source);
    if (!source) throw notFound(`source ${request.params.source}`);
    return source;
  });
  app.get<{ Params: { cluster: string } }>('/clusters/:cluster', {
    schema: { tags: ['status'], summary: 'One cluster: health, counts and queue figures.', params: Type.Object({ cluster: Type.String({ minLength: 1, maxLength: 63 }) }), response: { 200: ClusterBody, ...errors(400, 401, 404) } },
  }, async (request) => {
    const found = await data.for(request.principal).cluster(request.params.cluster);
    if (!found) throw notFound(`cluster ${request.params.cluster}`);
    return found;
  });
  app.get('/queue', { schema: { tags: ['queue'], summary: 'Queue depth per state and failed objects, per cluster.', response: { 200: QueueBody, ...readErrors } } },
    async (request) => data.for(request.principal).queue());

  registerActions(app, actions);
  registerSourceActions(app, sourceActions);
}

const actionSchema = (summary: string) => ({
  tags: ['actions'], summary: `${summary} Needs the operator role; cookie sessions send X-CSRF-Token.`,
  params: ObjectKeyParams, response: { 200: ActionResult, ...errors(400, 401, 403, 404, 409, 503) },
});

function registerActions(app: FastifyInstance, actions: Actions): void {
  const verbs = {
    reconcile: { summary: 'Reconcile now, at the revision last attempted; passes a sync window that allows manual syncs.', run: (cluster: string, key: string, scope?: TokenScope, by?: string) => actions.reconcileNow(cluster, key, scope, by) },
    suspend: { summary: 'Suspend: the pipeline skips the object until resumed.', run: actions.suspend.bind(actions) },
    resume: { summary: 'Resume and reconcile now.', run: actions.resume.bind(actions) },
  };
  for (const [verb, { summary, run }] of Object.entries(verbs)) {
    app.post<{ Params: ObjectKeyParams }>(`/objects/:cluster/:group/:kind/:namespace/:name/${verb}`, { schema: actionSchema(summary), preHandler: requireOperator },
      async (request) => run(request.params.cluster, objectKeyOf(request.params), request.principal?.scope, request.principal?.name ?? 'unknown'));
  }
  app.post<{ Params: { cluster: string }; Querystring: { objectKey?: string } }>('/queue/:cluster/retry', {
    schema: {
      tags: ['actions'], summary: 'Retry failed and stalled objects of a cluster, or one object. Needs the operator role.',
      params: Type.Object({ cluster: Type.String({ minLength: 1, maxLength: 63 }) }),
      querystring: Type.Object({ objectKey: Type.Optional(Type.String({ minLength: 1, maxLength: 1024, description: 'Retry this object only.' })) }),
      response: { 200: ActionResult, ...errors(400, 401, 403, 503) },
    },
    preHandler: requireOperator,
  }, async (request) => actions.retry(request.params.cluster, request.query.objectKey, request.principal?.scope));
}

function registerSourceActions(app: FastifyInstance, sourceActions: SourceActions): void {
  const verbs = {
    fetch: { summary: 'Poll the source now.', run: sourceActions.fetch.bind(sourceActions) },
    suspend: { summary: 'Suspend polling: Git changes are not read until resumed.', run: sourceActions.suspend.bind(sourceActions) },
    resume: { summary: 'Resume polling and poll now.', run: sourceActions.resume.bind(sourceActions) },
  };
  for (const [verb, { summary, run }] of Object.entries(verbs)) {
    app.post<{ Params: { source: string } }>(`/sources/:source/${verb}`, {
      schema: {
        tags: ['actions'], summary: `${summary} Needs the operator role; cookie sessions send X-CSRF-Token.`,
        params: Type.Object({ source: SourceName }), response: { 200: SourceActionResult, ...errors(400, 401, 403, 404) },
      },
      preHandler: requireOperator,
    }, async (request) => run(request.params.source, request.principal));
  }
}
