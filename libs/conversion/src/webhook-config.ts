import { Type, type Static } from '@sinclair/typebox';

/** ConversionWebhookInput is the `conversionWebhook` section of tidemark.yaml. */
export const ConversionWebhookInput = Type.Object({
    host: Type.Optional(Type.String({ minLength: 1 })),
    port: Type.Optional(Type.Integer({ minimum: 0, maximum: 65535 })),
    url: Type.Optional(Type.String({ pattern: '^https://' })),
    service: Type.Optional(Type.Object({
      namespace: Type.String({ minLength: 1 }),
      name: Type.String({ minLength: 1 }),
      port: Type.Optional(Type.Integer({ minimum: 1, maximum: 65535 })),
    }, { additionalProperties: false })),
    certificateHosts: Type.Optional(Type.Array(Type.String({ minLength: 1 }))),
    checkIntervalMs: Type.Optional(Type.Integer({ minimum: 1_000 })),
    caValidityHours: Type.Optional(Type.Integer({ minimum: 1 })),
    servingValidityHours: Type.Optional(Type.Integer({ minimum: 1 })),
    migrationObjectsPerSecond: Type.Optional(Type.Number({ exclusiveMinimum: 0, maximum: 1000 })),
    maxReviewMiB: Type.Optional(Type.Number({ exclusiveMinimum: 0, maximum: 32 })),
    maxConcurrentReviews: Type.Optional(Type.Integer({ minimum: 1, maximum: 1024 })),
    thread: Type.Optional(Type.Boolean()),
    secret: Type.Optional(Type.Object({
      cluster: Type.Optional(Type.String({ minLength: 1 })),
      namespace: Type.String({ minLength: 1 }),
      name: Type.Optional(Type.String({ minLength: 1 })),
    }, { additionalProperties: false })),
  }, { additionalProperties: false });
export type ConversionWebhookInput = Static<typeof ConversionWebhookInput>;

/**
 * ConversionWebhookConfig: with `service`, the API servers call the Service (deploy/ sets it);
 * with `url`, that URL; with neither, https://127.0.0.1:<port>/convert, for API servers on the
 * same machine (the test rig, scripts/tidemark-local).
 */
export interface ConversionWebhookConfig {
  /** @defaultValue 0.0.0.0 with a service or url, 127.0.0.1 otherwise */
  readonly host: string;
  /** @defaultValue 9443 with a service or url, 0 (a free port) otherwise */
  readonly port: number;
  readonly clientConfig: { readonly loopback: true } | { readonly url: string } | { readonly service: { readonly namespace: string; readonly name: string; readonly port: number } };
  /** Names and IPs the serving certificate covers. @defaultValue the Service's DNS names, the URL's host, or 127.0.0.1 */
  readonly certificateHosts: readonly string[];
  /** How often certificates are checked for renewal and the CRDs' caBundle re-applied. @defaultValue 60000 */
  readonly checkIntervalMs: number;
  /** @defaultValue one year */
  readonly caValidityMs: number;
  /** @defaultValue 30 days */
  readonly servingValidityMs: number;
  /** Storage version migration: most objects rewritten per second, per cluster. @defaultValue 20 */
  readonly migrationObjectsPerSecond: number;
  /**
   * Largest ConversionReview body, in bytes (maxReviewMiB); larger ones are answered 413. Raise it only
   * for unpaginated lists of many objects at a deprecated version. @defaultValue 3 MiB
   */
  readonly maxReviewBytes?: number;
  /** Reviews converted at once; more are answered 429 with Retry-After, which the API server retries. @defaultValue 32 */
  readonly maxConcurrentReviews?: number;
  /**
   * Serve the webhook from a worker thread of its own (ConversionWebhookThread), off the event loop
   * that reconciles: the API server's reviews (one per write of a multi-version CR) then neither
   * wait behind the pipeline nor take its time. @defaultValue false
   */
  readonly thread?: boolean;
  /**
   * The Secret every replica shares the certificates through. @defaultValue with a service:
   * tidemark-conversion-webhook in the Service's namespace on the first cluster; else none (kept in memory)
   */
  readonly secret?: { readonly cluster: string; readonly namespace: string; readonly name: string };
}

/**
 * conversionWebhookConfig resolves the `conversionWebhook` section: where the API servers call,
 * what the certificates cover, and the Secret every replica shares them through. `clusters` are
 * the config file's cluster names; `invalid` makes the error for a field.
 */
export function conversionWebhookConfig(hook: ConversionWebhookInput, clusters: readonly string[], invalid: (field: string, message: string) => Error): ConversionWebhookConfig {
  if (hook.url && hook.service) throw invalid('conversionWebhook', 'set url or service, not both');
  const clientConfig = conversionClientConfig(hook);
  const remote = !('loopback' in clientConfig);
  return {
    host: hook.host ?? (remote ? '0.0.0.0' : '127.0.0.1'),
    port: hook.port ?? (remote ? 9443 : 0),
    clientConfig,
    certificateHosts: hook.certificateHosts ?? certificateHostsFor(clientConfig),
    checkIntervalMs: hook.checkIntervalMs ?? 60_000,
    caValidityMs: (hook.caValidityHours ?? 365 * 24) * 3600_000,
    servingValidityMs: (hook.servingValidityHours ?? 30 * 24) * 3600_000,
    migrationObjectsPerSecond: hook.migrationObjectsPerSecond ?? 20,
    maxReviewBytes: Math.floor((hook.maxReviewMiB ?? 3) * 1024 * 1024),
    maxConcurrentReviews: hook.maxConcurrentReviews ?? 32,
    thread: hook.thread ?? false,
    ...certificateSecret(hook, clusters, clientConfig, invalid),
  };
}

function certificateSecret(hook: ConversionWebhookInput, clusters: readonly string[], clientConfig: ConversionWebhookConfig['clientConfig'], invalid: (field: string, message: string) => Error): Pick<ConversionWebhookConfig, 'secret'> {
  const secret = hook.secret;
  const cluster = secret?.cluster ?? clusters[0] ?? '';
  if (secret?.cluster && !clusters.includes(secret.cluster)) {
    throw invalid('conversionWebhook.secret.cluster', `no cluster is named "${secret.cluster}"`);
  }
  if (secret) return { secret: { cluster, namespace: secret.namespace, name: secret.name ?? 'tidemark-conversion-webhook' } };
  return 'service' in clientConfig ? { secret: { cluster, namespace: clientConfig.service.namespace, name: 'tidemark-conversion-webhook' } } : {};
}

function conversionClientConfig(hook: ConversionWebhookInput): ConversionWebhookConfig['clientConfig'] {
  if (hook.service) return { service: { namespace: hook.service.namespace, name: hook.service.name, port: hook.service.port ?? 9443 } };
  return hook.url ? { url: hook.url } : { loopback: true };
}

function certificateHostsFor(clientConfig: ConversionWebhookConfig['clientConfig']): string[] {
  if ('service' in clientConfig) {
    const { name, namespace } = clientConfig.service;
    return [`${name}.${namespace}.svc`, `${name}.${namespace}.svc.cluster.local`];
  }
  return 'url' in clientConfig ? [new URL(clientConfig.url).hostname.replace(/^\[|\]$/g, '')] : ['127.0.0.1'];
}
