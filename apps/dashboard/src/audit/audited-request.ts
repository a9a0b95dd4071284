import type { FastifyRequest } from 'fastify';
import { redactValue } from '@tidemark/contracts';
import type { AuditActor, AuditEntry, AuditResult, AuditTarget } from '@tidemark/status-store';

const readMethods = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * auditEntryOf describes a state-changing request (any method but GET, HEAD and OPTIONS on a known
 * route) for the audit trail: who, the action and its target from the route, the parameters from
 * the query and body (redacted by the one secret rule, the CSRF field dropped), and the result
 * from the status answered. A read, or a path no route serves, is not audited.
 */
export function auditEntryOf(request: FastifyRequest, status: number): AuditEntry | undefined {
  const route = request.routeOptions.url;
  if (readMethods.has(request.method) || !route) return undefined;
  const { action, target } = actionOf(route.replace(/^\/api(?=\/)/, ''), request);
  return {
    actor: actorOf(request), action, target, parameters: parametersOf(request), result: resultOf(status), status,
    requestId: String(request.id), client: request.ip,
  };
}

/** resultOf: refused for who asked (401, 403, 429) is denied; any other 4xx or 5xx is an error. */
export function resultOf(status: number): AuditResult {
  if (status === 401 || status === 403 || status === 429) return 'denied';
  return status >= 400 ? 'error' : 'ok';
}

function actorOf(request: FastifyRequest): AuditActor {
  const principal = request.principal;
  if (!principal) return { name: 'anonymous', via: 'anonymous' };
  const groups = (principal as { groups?: unknown }).groups;
  return { name: principal.name, role: principal.role, via: principal.via, ...(Array.isArray(groups) ? { groups: groups.map(String) } : {}) };
}

function parametersOf(request: FastifyRequest): Record<string, unknown> {
  const query = isRecord(request.query) ? request.query : {};
  const { _csrf: _dropped, ...body } = isRecord(request.body) ? request.body : {};
  return redactValue({ ...query, ...body }) as Record<string, unknown>;
}

// The routes' own words for what they do, by route pattern (the /api prefix removed).
const objectAction = /^\/objects\/:cluster\/:group\/:kind\/:namespace\/:name\/([a-z-]+)$/;
const sourceAction = /^\/sources\/:source\/([a-z-]+)$/;
const pruneConfirm = /^\/(?:prune-holds|prunes)\/:cluster\/:source\/confirm$/;
const clusterAction = /^\/clusters\/:cluster\/([a-z-]+)$/;
const rolloutAction = /^\/rollouts\/:source\/:verb$/;

type Described = { action: string; target: AuditTarget };
type Params = Record<string, string>;

// Each route family, tried in turn; the first that knows the route describes it.
const describers: ReadonlyArray<(route: string, params: Params, request: FastifyRequest) => Described | undefined> = [
  (route, params) => {
    const verb = objectAction.exec(route)?.[1];
    return verb ? { action: `object.${verb}`, target: { type: 'object', cluster: params.cluster ?? '', name: objectKeyFrom(params) } } : undefined;
  },
  (route, params) => {
    const verb = sourceAction.exec(route)?.[1];
    return verb ? { action: `source.${verb}`, target: { type: 'source', name: params.source ?? '' } } : undefined;
  },
  (route, params) => {
    const verb = clusterAction.exec(route)?.[1];
    return verb ? { action: `cluster.${verb}`, target: { type: 'cluster', name: params.cluster ?? '' } } : undefined;
  },
  (route, params) => (route === '/rollouts/:source/preview' ? { action: 'preview.request', target: { type: 'source', name: params.source ?? '' } } : undefined),
  (route, params) => (rolloutAction.test(route) ? { action: `rollout.${params.verb ?? ''}`, target: { type: 'source', name: params.source ?? '' } } : undefined),
  (route, params) => (pruneConfirm.test(route) ? { action: 'prune.confirm', target: { type: 'prune-hold', cluster: params.cluster ?? '', name: params.source ?? '' } } : undefined),
  (route, params, request) => {
    if (route !== '/queue/:cluster/retry') return undefined;
    const objectKey = stringField(request.query, 'objectKey') ?? stringField(request.body, 'objectKey');
    return { action: 'queue.retry', target: objectKey ? { type: 'object', cluster: params.cluster ?? '', name: objectKey } : { type: 'cluster', name: params.cluster ?? '' } };
  },
  (route, _params, request) => (route === '/previews' ? { action: 'preview.request', target: { type: 'source', name: stringField(request.body, 'source') ?? '' } } : undefined),
];

function actionOf(route: string, request: FastifyRequest): Described {
  const params = (isRecord(request.params) ? request.params : {}) as Params;
  for (const describe of describers) {
    const described = describe(route, params, request);
    if (described) return described;
  }
  // A route added later is still audited, named by its method and pattern.
  return { action: `${request.method.toLowerCase()} ${route}`, target: { type: 'other', name: request.url.split('?')[0] ?? '' } };
}

// As objectKeyOf builds it, without its check: a refused, malformed key is still recorded.
function objectKeyFrom(params: Record<string, string>): string {
  return [params.group, params.kind, params.namespace, params.name].join('/');
}

function stringField(value: unknown, field: string): string | undefined {
  const found = isRecord(value) ? value[field] : undefined;
  return typeof found === 'string' && found.length > 0 ? found : undefined;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && !Buffer.isBuffer(value);
}
