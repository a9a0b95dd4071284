import type { IncomingMessage } from 'node:http';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { readBody } from './read-body';
import { verifyWebhook, webhookProviders, type WebhookProvider } from './webhook-signature';
import { deliveryDigest, deliveryIdOf, MemoryDeliveryLog, type DeliveryLog } from './webhook-deliveries';
import { previewRequestOf, type WebhookPreviewRequest } from './webhook-preview';
import { noTracing, type TraceSpan, type Tracer } from '@tidemark/tracing';
import type { AnnouncedPush } from '@tidemark/git-source';

/** WebhookHook binds a source to its provider and its (resolved) secret. */
export interface WebhookHook {
  source: string;
  provider: WebhookProvider;
  secret: string;
}

/** WebhookDelivery is where a verified delivery came from, for the audit trail. */
export interface WebhookDelivery {
  requestId: string;
  client: string;
  /** The provider's delivery id, when it sent one. */
  delivery?: string;
}

export interface WebhookRoutesOptions {
  hooks: readonly WebhookHook[];
  /** Finds the hook of a source not in `hooks` (a Source object's, whose secret is in a Secret). @defaultValue none */
  findHook?(source: string): Promise<WebhookHook | undefined>;
  /**
   * Called for a verified push; it should only schedule a poll (e.g. `poller.pushed`, handing on
   * `span` as the poll's parent and `announced`, the branch and commit the body names, unproven).
   */
  onPush(source: string, span: TraceSpan, announced?: AnnouncedPush): void | Promise<void>;
  /**
   * A verified push starts a trace (its span is `webhook`). A traceparent header the sender sent is
   * not followed: the push's trace starts here. @defaultValue noTracing
   */
  tracer?: Tracer;
  /**
   * Called for a verified push to a branch and for a pull request opened or updated, with the
   * branch (and commit) the body names; it should only queue a preview, which writes nothing, and
   * ignore the branch the source follows. Without it, pull-request events are answered 200 and ignored.
   */
  onPreview?(source: string, request: WebhookPreviewRequest, delivery?: WebhookDelivery): void | Promise<void>;
  /** @defaultValue '/hooks' (routes are POST `${prefix}/:source`) */
  prefix?: string;
  /** Largest body accepted; larger gets 413. @defaultValue 1 MiB (GitHub caps payloads at 25 MB, but pushes to a config repo are small) */
  bodyLimitBytes?: number;
  /** Time for the whole body to arrive; slower gets 408. @defaultValue 10000 */
  bodyTimeoutMs?: number;
  /**
   * Remembers deliveries (by deliveryDigest), so a redelivered push triggers once. Pass a
   * RedisDeliveryLog where several replicas receive. @defaultValue a MemoryDeliveryLog per receiver
   */
  deliveries?: DeliveryLog;
}

const outcome = {
  type: 'object',
  properties: { code: { type: 'string' }, message: { type: 'string' }, source: { type: 'string' } },
  required: ['code', 'message'],
} as const;

/**
 * registerWebhookRoutes adds the webhook receiver as an encapsulated plugin. A delivery for an
 * unknown source, with a missing, wrong or SHA-1-only signature gets 401; a verified delivery
 * that is not a push (or not JSON) gets 400; only a verified push calls `onPush`. The payload
 * is never trusted beyond that: the commit it names is only asked for early, and kept only when the
 * Git server's ref points at it.
 */
export async function registerWebhookRoutes(app: FastifyInstance, options: WebhookRoutesOptions): Promise<void> {
  const hooks = new Map(options.hooks.map((hook) => [hook.source, hook]));
  for (const hook of hooks.values()) {
    if (!webhookProviders.includes(hook.provider)) throw new Error(`webhook for source ${hook.source}: unknown provider "${hook.provider}"`);
    if (hook.secret.length < 16) throw new Error(`webhook for source ${hook.source}: the secret must be at least 16 characters`);
  }
  const limit = options.bodyLimitBytes ?? 1024 * 1024;
  const timeoutMs = options.bodyTimeoutMs ?? 10_000;
  const deliveries = options.deliveries ?? new MemoryDeliveryLog();
  // A found hook is held to the same rules; one that breaks them (a short secret) verifies nothing.
  const findHook = async (source: string): Promise<WebhookHook | undefined> => {
    const found = await options.findHook?.(source).catch(() => undefined);
    return found && webhookProviders.includes(found.provider) && found.secret.length >= 16 ? found : undefined;
  };
  await app.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', (_request: FastifyRequest, payload: IncomingMessage) => readBody(payload, limit, timeoutMs));
    scope.post<{ Params: { source: string }; Body: Buffer }>('/:source', {
      bodyLimit: limit,
      schema: {
        params: { type: 'object', properties: { source: { type: 'string', maxLength: 253 } }, required: ['source'] },
        response: { 200: outcome, 202: outcome, 400: outcome, 401: outcome },
      },
    }, async (request, reply) => {
      const hook = hooks.get(request.params.source) ?? (await findHook(request.params.source));
      const body = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
      if (!hook) return reply.code(401).send({ code: 'WebhookSignatureInvalid', message: 'the signature does not match' });
      const verdict = verifyWebhook(hook.provider, hook.secret, request.headers, body);
      if (!verdict.accepted) return reply.code(verdict.status).send({ code: verdict.code, message: verdict.reason });
      if (verdict.event === 'ping') return reply.code(200).send({ code: 'WebhookPing', message: 'pong', source: hook.source });
      const parsed = jsonObject(body);
      if (!parsed) return reply.code(400).send({ code: 'WebhookBodyInvalid', message: 'the body is not a JSON object' });
      // Only a verified delivery is recorded, so a forged one cannot use up a real delivery's id.
      const delivery = deliveryIdOf(request.headers);
      if (delivery && !(await deliveries.firstSeen(hook.source, deliveryDigest(delivery, body)))) {
        return reply.code(200).send({ code: 'WebhookDuplicate', message: 'this delivery was already received; no poll was triggered', source: hook.source });
      }
      const preview = options.onPreview ? previewRequestOf(hook.provider, verdict.event, parsed) : undefined;
      const from: WebhookDelivery = { requestId: String(request.id), client: request.ip, ...(delivery ? { delivery } : {}) };
      if (verdict.event === 'pull-request') {
        if (!preview) return reply.code(200).send({ code: 'WebhookIgnored', message: 'not a pull request opened or updated (or previews are off); nothing was queued', source: hook.source });
        await options.onPreview!(hook.source, preview, from);
        return reply.code(202).send({ code: 'WebhookPreviewQueued', message: `a preview of ${preview.ref} was queued`, source: hook.source });
      }
      await tracedPush(options, hook, delivery, announcedPushOf(hook.provider, parsed));
      if (preview) await options.onPreview!(hook.source, preview, from);
      return reply.code(202).send({ code: 'WebhookPollTriggered', message: 'a poll of the source was triggered', source: hook.source });
    });
  }, { prefix: options.prefix ?? '/hooks' });
}

/** tracedPush hands a verified push on in a `webhook` span: the start of the push's trace. */
async function tracedPush(options: WebhookRoutesOptions, hook: WebhookHook, delivery: string | undefined, announced: AnnouncedPush | undefined): Promise<void> {
  const span = (options.tracer ?? noTracing).start('webhook', { attributes: { 'tidemark.source': hook.source, 'tidemark.webhook.provider': hook.provider, 'tidemark.webhook.delivery': delivery?.slice(0, 128) } });
  try {
    await options.onPush(hook.source, span, announced);
  } finally {
    span.end();
  }
}

/** announcedPushOf is the branch and commit a push body names (a branch push with a commit id), read as a preview reads it. */
function announcedPushOf(provider: WebhookProvider, body: Record<string, unknown>): AnnouncedPush | undefined {
  const named = previewRequestOf(provider, 'push', body);
  return named?.revision ? { branch: named.ref, revision: named.revision } : undefined;
}

function jsonObject(body: Buffer): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(body.toString('utf8'));
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}
