import type { FastifyInstance } from 'fastify';
import { Type, type Static } from '@sinclair/typebox';
import { requireOperator } from '../auth/authenticate';
import { objectKeyOf } from '../api/object-key-params';
import { errors, ObjectKeyParams } from '../api/schemas';
import type { WorkloadActions, WorkloadTarget } from './workload-actions';

/** A rendered object of the Git object (a WebApp's Deployment), in the query; absent: the Git object itself. */
const TargetFields = {
  kind: Type.Optional(Type.String({ minLength: 1, maxLength: 63 })),
  namespace: Type.Optional(Type.String({ maxLength: 63 })),
  name: Type.Optional(Type.String({ minLength: 1, maxLength: 253 })),
};
const TargetQuery = Type.Object(TargetFields, { additionalProperties: false });
type TargetInput = Static<typeof TargetQuery>;

const DoneBody = Type.Object({
  action: Type.String(), cluster: Type.String(), objectKey: Type.String(), target: Type.String(),
  restartedAt: Type.Optional(Type.String()), job: Type.Optional(Type.String({ description: 'The Job created from the CronJob.' })),
});
const PodsBody = Type.Object({
  cluster: Type.String(), objectKey: Type.String(), target: Type.String(),
  pods: Type.Array(Type.Object({
    name: Type.String(), phase: Type.String(), ready: Type.String(), restarts: Type.Integer(),
    node: Type.Optional(Type.String()), startedAt: Type.Optional(Type.String()),
    containers: Type.Array(Type.Object({
      name: Type.String(), ready: Type.Boolean(), state: Type.String(),
      log: Type.Optional(Type.String({ description: 'The last lines, bounded and scrubbed of credentials.' })), logError: Type.Optional(Type.String()),
    })),
  })),
  events: Type.Array(Type.Object({ type: Type.String(), reason: Type.String(), message: Type.String(), object: Type.String(), lastSeen: Type.Optional(Type.String()), count: Type.Optional(Type.Integer()) })),
});

const summary = (text: string) => `${text} Needs the operator role and a scope covering the object; only objects whose owner annotation proves Tidemark applied them for this Git object. Cookie sessions send X-CSRF-Token.`;

function targetOf(input: TargetInput | undefined): WorkloadTarget | undefined {
  if (!input?.kind || !input.name) return undefined;
  return { kind: input.kind, namespace: input.namespace ?? '', name: input.name };
}

/**
 * workloadRoutes are the day-2 actions on managed workloads (under /api): rollout restart, the
 * Pods with their logs and Events, and running a CronJob now. The audit trail records the two
 * writes like every other action (audited-request.ts names them object.restart and object.run-job).
 */
export async function workloadRoutes(app: FastifyInstance, { workloads }: { workloads: WorkloadActions }): Promise<void> {
  const base = '/objects/:cluster/:group/:kind/:namespace/:name';
  app.post<{ Params: ObjectKeyParams; Querystring: TargetInput }>(`${base}/restart`, {
    schema: {
      tags: ['actions'], summary: summary('Rollout restart of a managed Deployment, StatefulSet or DaemonSet (the pod template annotation kubectl rollout restart sets; never drift).'),
      params: ObjectKeyParams, querystring: TargetQuery, response: { 200: DoneBody, ...errors(400, 401, 403, 404, 503) },
    },
    preHandler: requireOperator,
  }, async (request) => workloads.restart(request.params.cluster, objectKeyOf(request.params), targetOf(request.query), request.principal));
  app.post<{ Params: ObjectKeyParams; Querystring: TargetInput }>(`${base}/run-job`, {
    schema: {
      tags: ['actions'], summary: summary('Run a managed CronJob now: a Job from its template, as kubectl create job --from=cronjob/NAME does.'),
      params: ObjectKeyParams, querystring: TargetQuery, response: { 200: DoneBody, ...errors(400, 401, 403, 404, 409, 503) },
    },
    preHandler: requireOperator,
  }, async (request) => workloads.runJob(request.params.cluster, objectKeyOf(request.params), targetOf(request.query), request.principal));
  app.get<{ Params: ObjectKeyParams; Querystring: TargetInput }>(`${base}/pods`, {
    schema: {
      tags: ['status'], summary: summary('The Pods of a managed workload: status, the last lines of their logs, and recent Events.'),
      params: ObjectKeyParams, querystring: TargetQuery, response: { 200: PodsBody, ...errors(400, 401, 403, 404, 503) },
    },
    preHandler: requireOperator,
  }, async (request) => workloads.pods(request.params.cluster, objectKeyOf(request.params), targetOf(request.query), request.principal));
}
