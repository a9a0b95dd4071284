import { readFileSync } from 'node:fs';
import { dirname, isAbsolute, resolve } from 'node:path';
import { Type, type Static } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import { parse as parseYaml } from 'yaml';
import { parseSourceSpec, parseSshUrl, SourceSpecError, type CredentialFile, type SourceSpec } from '@tidemark/git-source';
import { parseRedisNode, withRedisTls, type RedisAuth, type RedisEndpoint, type RedisNode, type RedisTlsFiles } from '@tidemark/queue';
import { RenderInput, renderConfig, type RenderConfig } from './render-config';
import { defaultPreventionRules } from '@tidemark/drift';
import { ObjectHealthInput, objectHealthConfig, type ObjectHealthConfig } from './object-health-config';
import { GitHostsInput, gitHostsConfig, type GitHostConfig } from '@tidemark/git-host';
import { SourceObjectsInput, sourceObjectsConfig, type SourceObjectsConfig } from './source-objects-config';
import { ClusterObjectsInput, clusterObjectsConfig, type ClusterObjectsConfig } from './cluster-objects-config';
import { NotificationsInput, notificationsConfig, type NotificationsConfig } from '@tidemark/notify';
import { messageOf } from '@tidemark/contracts';
import { TracingInput, tracingConfig, type TracingConfig } from './tracing-config';
import { SyncWindowsInput, syncWindowsConfig } from './sync-windows-config';
import { ConversionWebhookInput, conversionWebhookConfig, type ConversionWebhookConfig } from '@tidemark/conversion';
import type { SyncWindow } from '@tidemark/placement';
import { rolloutsConfig, type RolloutPolicy } from '@tidemark/fanout';
import { agentSettings } from './agent-config';
import { clusterKeyTags } from './redis-key-tags';

/** ConfigError is a mistake in the configuration; its message names the file and field. */
export class ConfigError extends Error {
  readonly code = 'ConfigInvalid';
  constructor(message: string) {
    super(message);
    this.name = 'ConfigError';
  }
}

const SecretRef = Type.Union([
  Type.Object({ env: Type.String({ minLength: 1 }) }, { additionalProperties: false }),
  Type.Object({ file: Type.String({ minLength: 1 }) }, { additionalProperties: false }),
]);

const SourceAuthInput = Type.Union([
  Type.Object({ token: SecretRef, username: Type.Optional(Type.String()) }, { additionalProperties: false }),
  Type.Object({ username: Type.String({ minLength: 1 }), password: SecretRef }, { additionalProperties: false }),
  // An SSH deploy key with the known_hosts that pins the server (no trust on first use); each is re-read when its file changes.
  Type.Object({ sshPrivateKey: SecretRef, knownHosts: SecretRef, passphrase: Type.Optional(SecretRef) }, { additionalProperties: false }),
]);

const ClusterInput = Type.Object({
  name: Type.String({ pattern: '^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$' }),
  labels: Type.Optional(Type.Record(Type.String(), Type.String())),
  /** Values for units rendered per cluster: `${cluster.variables.NAME}`, and `.Values.tidemark.cluster.variables` in Helm. */
  variables: Type.Optional(Type.Record(Type.String({ pattern: '^[A-Za-z0-9_.-]+$' }), Type.String())),
  kubeconfig: Type.Optional(Type.String({ minLength: 1 })),
  inCluster: Type.Optional(Type.Boolean()),
  kubeconfigSecret: Type.Optional(Type.Object({
    cluster: Type.String({ minLength: 1 }),
    namespace: Type.String({ minLength: 1 }),
    name: Type.String({ minLength: 1 }),
    key: Type.Optional(Type.String({ minLength: 1 })),
  }, { additionalProperties: false })),
  allowExecPlugins: Type.Optional(Type.Boolean()),
  /** Served by an agent inside the cluster (docs/agents.md): the hub gets no kubeconfig for it and never connects to it. */
  agent: Type.Optional(Type.Boolean()),
}, { additionalProperties: false });

/** A Redis login: a password (from the environment or a file, never in the config), as an ACL user when `username` is set. */
const RedisLoginFields = {
  username: Type.Optional(Type.String({ minLength: 1 })),
  password: Type.Optional(SecretRef),
};

const ConfigInput = Type.Object({
  redis: Type.Optional(Type.Object({
    url: Type.Optional(Type.String()),
    /** A Sentinel group: the name of the primary the sentinels watch, some sentinels as host:port, and the logins to the data nodes and to the sentinels. */
    sentinel: Type.Optional(Type.Object({
      name: Type.String({ minLength: 1 }),
      nodes: Type.Array(Type.String({ minLength: 1 }), { minItems: 1 }),
      ...RedisLoginFields,
      sentinelUsername: Type.Optional(Type.String({ minLength: 1 })),
      sentinelPassword: Type.Optional(SecretRef),
    }, { additionalProperties: false })),
    /** A Redis Cluster: some of its nodes as host:port, and the login to every node. Every key then carries the hash tag {prefix}. */
    cluster: Type.Optional(Type.Object({
      nodes: Type.Array(Type.String({ minLength: 1 }), { minItems: 1 }),
      ...RedisLoginFields,
    }, { additionalProperties: false })),
    prefix: Type.Optional(Type.String({ minLength: 1 })),
    /** Name each target cluster's keys under their own hash tag on one server or Sentinel too (a Redis Cluster always does); agents need it. */
    hashTag: Type.Optional(Type.Boolean()),
    allowEviction: Type.Optional(Type.Boolean()),
    /** TLS to Redis: a rediss:// URL, or every Sentinel and Cluster node once this is set. Paths are relative to this file. */
    tls: Type.Optional(Type.Object({
      caFile: Type.Optional(Type.String({ minLength: 1 })),
      certFile: Type.Optional(Type.String({ minLength: 1 })),
      keyFile: Type.Optional(Type.String({ minLength: 1 })),
      serverName: Type.Optional(Type.String({ minLength: 1 })),
    }, { additionalProperties: false })),
  }, { additionalProperties: false })),
  cacheDir: Type.Optional(Type.String()),
  // Empty only when Source objects are served (a cluster bootstrapped from one Source): checked in loadConfig.
  sources: Type.Array(Type.Record(Type.String(), Type.Unknown())),
  clusters: Type.Array(ClusterInput, { minItems: 1 }),
  /** Agents (docs/agents.md): how long a heartbeat lives; one is written every third of it. */
  agents: Type.Optional(Type.Object({ heartbeatTtlMs: Type.Optional(Type.Integer({ minimum: 300, maximum: 600_000 })) }, { additionalProperties: false })),
  workers: Type.Optional(Type.Object({
    concurrency: Type.Optional(Type.Integer({ minimum: 1, maximum: 256 })),
  }, { additionalProperties: false })),
  resyncIntervalMs: Type.Optional(Type.Integer({ minimum: 10_000 })),
  dependencyRecheckMs: Type.Optional(Type.Integer({ minimum: 1_000 })),
  progressingRequeueMs: Type.Optional(Type.Integer({ minimum: 1_000 })),
  healthCheck: Type.Optional(Type.Object({
    intervalMs: Type.Optional(Type.Integer({ minimum: 200 })),
    timeoutMs: Type.Optional(Type.Integer({ minimum: 100 })),
    failureThreshold: Type.Optional(Type.Integer({ minimum: 1, maximum: 100 })), quietIntervalMs: Type.Optional(Type.Integer({ minimum: 200 })),
  }, { additionalProperties: false })),
  fullResyncIntervalMs: Type.Optional(Type.Integer({ minimum: 60_000 })),
  fullCheckIntervalMs: Type.Optional(Type.Integer({ minimum: 60_000 })),
  objectHealth: Type.Optional(ObjectHealthInput),
  /** Who may still change an object whose drift is prevented at admission (tidemark.dev/drift: prevent). */
  driftPrevention: Type.Optional(Type.Object({
    /** Usernames trusted besides Tidemark's own and its tenants' identities (e.g. a controller that writes the objects). */
    trustedUsers: Type.Optional(Type.Array(Type.String({ pattern: '^[\\w.@:/+=-]{1,253}$' }), { maxItems: 100 })),
    /** Username prefixes trusted the same way. @defaultValue ['system:serviceaccount:kube-system:'] */
    trustedUserPrefixes: Type.Optional(Type.Array(Type.String({ pattern: '^[\\w.@:/+=-]{1,253}$' }), { maxItems: 20 })),
    /** Groups whose members may set tidemark.dev/break-glass. @defaultValue ['system:masters'] */
    breakGlassGroups: Type.Optional(Type.Array(Type.String({ pattern: '^[\\w.@:/+=-]{1,253}$' }), { maxItems: 20 })),
  }, { additionalProperties: false })),
  http: Type.Optional(Type.Object({
    port: Type.Integer({ minimum: 0, maximum: 65535 }),
    host: Type.Optional(Type.String()),
  }, { additionalProperties: false })),
  conversionWebhook: Type.Optional(ConversionWebhookInput),
  render: Type.Optional(RenderInput),
  defaultServiceAccount: Type.Optional(Type.Object({
    namespace: Type.String({ pattern: '^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$' }),
    name: Type.String({ pattern: '^[a-z0-9]([a-z0-9.-]{0,251}[a-z0-9])?$' }),
  }, { additionalProperties: false })),
  sourceObjects: Type.Optional(SourceObjectsInput),
  /** Cluster objects (tidemark.dev/v1alpha1 Cluster) in the management cluster, besides the config file's clusters. */
  clusterObjects: Type.Optional(ClusterObjectsInput),
  webhooks: Type.Optional(Type.Array(Type.Object({
    source: Type.String({ minLength: 1 }),
    provider: Type.Union([Type.Literal('github'), Type.Literal('gitea'), Type.Literal('gogs'), Type.Literal('gitlab'), Type.Literal('generic')]),
    secret: SecretRef,
  }, { additionalProperties: false }))),
  gitHosts: Type.Optional(GitHostsInput),
  notifications: Type.Optional(NotificationsInput),
  tracing: Type.Optional(TracingInput),
  syncWindows: Type.Optional(SyncWindowsInput),
  syncWindowRecheckMs: Type.Optional(Type.Integer({ minimum: 1_000 })),
  rollouts: Type.Optional(Type.Array(Type.Unknown(), { maxItems: 200 })), // per source (docs/rollouts.md), checked in rolloutsConfig
}, { additionalProperties: false });
type ConfigInput = Static<typeof ConfigInput>;

export interface ClusterConfig {
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
  /** Values handed to units rendered per cluster. */
  readonly variables: Readonly<Record<string, string>>;
  /** Path of a kubeconfig file; absent with inCluster or kubeconfigSecret. */
  readonly kubeconfigPath?: string;
  readonly inCluster: boolean;
  /** A Secret holding the kubeconfig, read through another registered cluster (the management one). */
  readonly kubeconfigSecret?: { readonly cluster: string; readonly namespace: string; readonly name: string; readonly key: string };
  readonly allowExecPlugins: boolean;
  /** Served by an agent: no connection way is set, and the hub never connects to it. */
  readonly agent: boolean;
}

/** ReconcilerConfig is validated once at start-up and frozen. */
export type { ConversionWebhookConfig } from '@tidemark/conversion';

export interface ReconcilerConfig {
  /** What this process runs; `agent`: the one cluster it runs in, with a heartbeat for the hub (docs/agents.md). */
  readonly role: 'all' | 'poller' | 'worker' | 'agent';
  /** Agents' heartbeats: each lives heartbeatTtlMs, and one is written every third of it. @defaultValue 30_000 */
  readonly agents: { readonly heartbeatTtlMs: number };
  /** How to reach Redis: a URL, a Sentinel group or a Redis Cluster. */
  readonly redis: RedisEndpoint;
  /** The URL, when Redis is reached by one (not through Sentinel or Cluster). */
  readonly redisUrl?: string;
  readonly redisPrefix: string;
  readonly allowEviction: boolean;
  readonly cacheDir: string;
  readonly sources: readonly SourceSpec[];
  /** Sources whose token or password is a file: it is read again whenever it changes, by source name. */
  readonly sourceCredentialFiles: Readonly<Record<string, readonly CredentialFile[]>>;
  /**
   * Lockdown: the ServiceAccount a source without its own `serviceAccount` is applied as. Give it no
   * permissions and every such source fails closed. @defaultValue none: such sources act as the reconciler
   */
  readonly defaultServiceAccount?: { readonly namespace: string; readonly name: string };
  readonly clusters: readonly ClusterConfig[];
  readonly concurrency: number;
  readonly resyncIntervalMs: number;
  /** How soon an object waiting for a dependency looks again by itself, behind the wake-ups. @defaultValue 60_000 */
  readonly dependencyRecheckMs: number;
  /**
   * How soon an object that is applied but not Ready yet is looked at again, at least (then a quarter
   * of its wait, up to resyncIntervalMs); a new revision does not wait for it. @defaultValue 5_000
   */
  readonly progressingRequeueMs: number;
  /** Cluster health checks: how often, how slow counts as down, how many failures make it Unavailable. */
  readonly healthCheck: { readonly intervalMs: number; readonly timeoutMs: number; readonly failureThreshold: number; readonly quietIntervalMs: number };
  readonly fullResyncIntervalMs: number;
  /**
   * A resync of an object nothing changed since its last full run (same revision, Ready, every applied
   * object at the resourceVersion its apply left, as the watch cache holds it) runs no stage; a full run
   * still happens when the last one is older than this (or a share of it, half to all, fixed per object), and once after each start. @defaultValue 3_600_000
   */
  readonly fullCheckIntervalMs: number;
  /** Objects' health: the timeout to become Ready, and CEL rules per kind (compiled at load). */
  readonly objectHealth: ObjectHealthConfig;
  /** Who may change prevented objects besides Tidemark: the operator's choice, never a tenant's. */
  readonly driftPrevention: { readonly trustedUsers: readonly string[]; readonly trustedUserPrefixes: readonly string[]; readonly breakGlassGroups: readonly string[] };
  /** Health, readiness, metrics and webhooks are served here. @defaultValue 0.0.0.0:9464 */
  /** metricsToken (from TIDEMARK_METRICS_TOKEN): when set, /metrics needs it as a bearer token. */
  readonly http: { readonly port: number; readonly host: string; readonly metricsToken?: string };
  /** How Kustomize, Helm and sops units are rendered. */
  readonly render: RenderConfig;
  readonly webhooks: readonly { readonly source: string; readonly provider: 'github' | 'gitea' | 'gogs' | 'gitlab' | 'generic'; readonly secret: string }[];
  readonly logLevel: string;
  /** Where the CRD conversion webhook listens, how API servers reach it, and its certificates. */
  readonly conversionWebhook: ConversionWebhookConfig;
  /** Source objects (tidemark.dev/v1alpha1 Source) in the management cluster, besides the config file's sources. */
  readonly sourceObjects: SourceObjectsConfig;
  /** Cluster objects (tidemark.dev/v1alpha1 Cluster), added, relabelled and removed at runtime. */
  readonly clusterObjects: ClusterObjectsConfig;
  /** Per source, the Git host that gets commit statuses and preview comments. @defaultValue none */
  readonly gitHosts: readonly GitHostConfig[];
  /** Alerts on transitions and the providers they go to; empty lists when the section is absent. */
  readonly notifications: NotificationsConfig;
  /** OTLP export of traces from webhook to Ready. @defaultValue undefined: off, no SDK loaded */
  readonly tracing: TracingConfig;
  /** Allow and deny windows for writes to clusters, compiled (docs/sync-windows.md). @defaultValue none: writes go at any time */
  readonly syncWindows: readonly SyncWindow[];
  /** How soon an object a sync window holds looks again at most (sooner when the window ends sooner). @defaultValue 300_000 */
  readonly syncWindowRecheckMs: number;
  /** Sources whose new revisions roll out in waves, each with its policy (operator-owned). @defaultValue none */
  readonly rollouts: readonly RolloutPolicy[];
}

/**
 * loadConfig reads the config file named by TIDEMARK_CONFIG (or `path`) and the environment,
 * validates both, resolves secret references, and returns a frozen config. Secret values are
 * read here and nowhere else; messages name the file and field, never a value.
 */
export function loadConfig(env: NodeJS.ProcessEnv = process.env, path = env.TIDEMARK_CONFIG): ReconcilerConfig {
  if (!path) throw new ConfigError('TIDEMARK_CONFIG is not set: point it at a tidemark.yaml (see examples/tidemark.yaml).');
  const file = resolve(path);
  const input = readConfigFile(file);
  const base = dirname(file);
  const role = roleOf(env.TIDEMARK_ROLE);
  const where = (field: string) => `${file}: ${field}`;
  const redis = clusterKeyTags(redisTlsOf(env, input, file, redisEndpointOf(env, input, file)), input, role, (field, message) => new ConfigError(`${where(field)}: ${message}`));
  const cacheDir = resolvePath(base, input.cacheDir ?? '.tidemark/cache');
  const clusters = input.clusters.map((cluster) => cluster.name);
  const invalid = (field: string, message: string) => new ConfigError(`${where(field)}: ${message}`);
  const connected = input.clusters.filter((cluster) => !cluster.agent).map((cluster) => cluster.name);
  checkSourcesListed(input, where);
  return deepFreeze({
    role,
    redis,
    ...('url' in redis ? { redisUrl: redis.url } : {}),
    ...redisOptions(input, env),
    cacheDir,
    sources: input.sources.map((source, index) => sourceSpec(resolveSourceAuth(source, where(`sources[${index}]`), base, env), where(`sources[${index}]`))),
    sourceCredentialFiles: credentialFiles(input, base),
    clusters: input.clusters.map((cluster, index) => clusterConfig(cluster, where(`clusters[${index}]`), base)),
    ...(input.defaultServiceAccount ? { defaultServiceAccount: input.defaultServiceAccount } : {}),
    ...agentSettings(input, role, (field, message) => new ConfigError(`${where(field)}: ${message}`)),
    concurrency: input.workers?.concurrency ?? 4,
    ...intervals(input),
    objectHealth: objectHealthConfig(input.objectHealth, where, (message) => new ConfigError(message)),
    driftPrevention: { ...defaultPreventionRules, ...input.driftPrevention },
    http: httpOf(input, env),
    render: renderConfig(input.render, { base, env, cacheDir, clusters, sources: input.sources.map((source) => String(source.name)), invalid: (field, message) => new ConfigError(`${where(field)}: ${message}`) }),
    webhooks: webhooks(input, where, base, env),
    logLevel: env.TIDEMARK_LOG_LEVEL ?? 'info',
    // Source and Cluster objects and the webhook's certificates are read through a cluster this process connects to, never an agent's.
    conversionWebhook: conversionWebhookConfig(input.conversionWebhook ?? {}, connected, invalid),
    ...objectControllers(input, env, connected, invalid),
    gitHosts: gitHostsConfig(input.gitHosts, {
      sourceUrls: new Map(input.sources.map((source) => [String(source.name), String(source.url)])),
      clusters, base, invalid: (field, message) => new ConfigError(`${where(field)}: ${message}`),
    }),
    notifications: notificationsConfig(input.notifications, { readSecret: (ref, field) => readSecret(ref, where(field), base, env), clusters, invalid: (field, message) => new ConfigError(`${where(field)}: ${message}`) }),
    ...syncWindowsOf(input, where),
    rollouts: rolloutsConfig(input.rollouts, { sources: input.sources.map((source) => String(source.name)), sourceObjects: input.sourceObjects?.enabled === true, invalid }),
    tracing: tracingConfig(input.tracing, { role, readSecret: (ref, field) => readSecret(ref, where(field), base, env), invalid: (field, message) => new ConfigError(`${where(field)}: ${message}`) }),
  });
}

/** objectControllers: the settings of the Source and Cluster object controllers. */
function objectControllers(input: ConfigInput, env: NodeJS.ProcessEnv, clusters: readonly string[], invalid: (field: string, message: string) => Error): Pick<ReconcilerConfig, 'sourceObjects' | 'clusterObjects'> {
  const ownNamespace = env.TIDEMARK_NAMESPACE || undefined;
  return {
    sourceObjects: sourceObjectsConfig(input.sourceObjects, { clusters: [...clusters], ownNamespace, invalid }),
    clusterObjects: clusterObjectsConfig(input.clusterObjects, { clusters: [...clusters], managementCluster: input.sourceObjects?.cluster ?? clusters[0] ?? '', ownNamespace, invalid }),
  };
}

function syncWindowsOf(input: ConfigInput, where: (field: string) => string): Pick<ReconcilerConfig, 'syncWindows' | 'syncWindowRecheckMs'> {
  return { syncWindows: syncWindowsConfig(input.syncWindows, where, (message) => new ConfigError(message)), syncWindowRecheckMs: input.syncWindowRecheckMs ?? 300_000 };
}

/** checkSourcesListed: a reconciler with no source in its file must serve Source objects, or it has nothing to do. */
function checkSourcesListed(input: ConfigInput, where: (field: string) => string): void {
  if (input.sources.length === 0 && input.sourceObjects?.enabled !== true) {
    throw new ConfigError(`${where('sources')}: list at least one source, or serve Source objects (sourceObjects.enabled: true)`);
  }
}

function httpOf(input: ConfigInput, env: NodeJS.ProcessEnv): ReconcilerConfig['http'] {
  return { port: input.http?.port ?? 9464, host: input.http?.host ?? '0.0.0.0', ...metricsTokenOf(env) };
}

function metricsTokenOf(env: NodeJS.ProcessEnv): { metricsToken?: string } {
  const token = env.TIDEMARK_METRICS_TOKEN;
  if (token === undefined) return {};
  if (token.length < 16) throw new ConfigError('TIDEMARK_METRICS_TOKEN must be at least 16 characters; generate one with `openssl rand -hex 24`.');
  return { metricsToken: token };
}

function redisOptions(input: ConfigInput, env: NodeJS.ProcessEnv): Pick<ReconcilerConfig, 'redisPrefix' | 'allowEviction'> {
  return { redisPrefix: input.redis?.prefix ?? 'tidemark', allowEviction: input.redis?.allowEviction ?? env.TIDEMARK_ALLOW_EVICTION === 'true' };
}

function intervals(input: ConfigInput): Pick<ReconcilerConfig, 'resyncIntervalMs' | 'dependencyRecheckMs' | 'progressingRequeueMs' | 'fullResyncIntervalMs' | 'fullCheckIntervalMs' | 'healthCheck'> {
  const health = input.healthCheck ?? {};
  return {
    resyncIntervalMs: input.resyncIntervalMs ?? 300_000,
    dependencyRecheckMs: input.dependencyRecheckMs ?? 60_000,
    progressingRequeueMs: input.progressingRequeueMs ?? 5_000,
    fullResyncIntervalMs: input.fullResyncIntervalMs ?? 3_600_000,
    fullCheckIntervalMs: input.fullCheckIntervalMs ?? 3_600_000,
    // A minute between probes of a quiet cluster; a config that sets its own interval keeps it for both.
    healthCheck: { intervalMs: health.intervalMs ?? 5_000, timeoutMs: health.timeoutMs ?? 5_000, failureThreshold: health.failureThreshold ?? 2, quietIntervalMs: health.quietIntervalMs ?? (health.intervalMs === undefined ? 60_000 : health.intervalMs) },
  };
}

/** sourceSpec validates one source; its mistakes are configuration mistakes like any other. */
function sourceSpec(input: Record<string, unknown>, where: string): SourceSpec {
  try {
    return parseSourceSpec(input, where);
  } catch (error) {
    if (error instanceof SourceSpecError) throw new ConfigError(error.message);
    throw error;
  }
}

function roleOf(value = 'all'): ReconcilerConfig['role'] {
  if (value === 'all' || value === 'poller' || value === 'worker' || value === 'agent') return value;
  throw new ConfigError(`TIDEMARK_ROLE: "${value}" is not one of all, poller, worker, agent`);
}

/**
 * redisEndpointOf: exactly one of redis.url (or TIDEMARK_REDIS_URL), redis.sentinel and
 * redis.cluster. The environment's URL wins over the file's URL, never over a sentinel or cluster.
 */
function redisEndpointOf(env: NodeJS.ProcessEnv, input: ConfigInput, file: string): RedisEndpoint {
  const { sentinel, cluster } = input.redis ?? {};
  const url = sentinel || cluster ? input.redis?.url : env.TIDEMARK_REDIS_URL ?? env.REDIS_URL ?? input.redis?.url;
  const given = [url && 'redis.url', sentinel && 'redis.sentinel', cluster && 'redis.cluster'].filter(Boolean);
  if (given.length > 1) throw new ConfigError(`${file}: ${given.join(' and ')}: set only one way to reach Redis`);
  if (sentinel) return sentinelEndpoint(sentinel, file, env);
  if (cluster) {
    const auth = redisLogin({ username: cluster.username, password: cluster.password, fields: ['redis.cluster.username', 'redis.cluster.password'], file, env });
    return { cluster: { nodes: redisNodes(cluster.nodes, `${file}: redis.cluster.nodes`), ...auth } };
  }
  if (!url) throw new ConfigError(`${file}: redis.url: is required (or set TIDEMARK_REDIS_URL, or redis.sentinel, or redis.cluster)`);
  return { url };
}

const tlsVariables = { caFile: 'TIDEMARK_REDIS_TLS_CA_FILE', certFile: 'TIDEMARK_REDIS_TLS_CERT_FILE', keyFile: 'TIDEMARK_REDIS_TLS_KEY_FILE', serverName: 'TIDEMARK_REDIS_TLS_SERVER_NAME' } as const;

/**
 * redisTlsOf: redis.tls in the file, each setting overridden by its TIDEMARK_REDIS_TLS_* variable;
 * on with a rediss:// URL, or for Sentinel and Cluster once any is set. Files are read here, once.
 */
function redisTlsOf(env: NodeJS.ProcessEnv, input: ConfigInput, file: string, endpoint: RedisEndpoint): RedisEndpoint {
  const fromFile = input.redis?.tls;
  const settings: RedisTlsFiles = {};
  for (const [setting, variable] of Object.entries(tlsVariables) as [keyof typeof tlsVariables, string][]) {
    const value = env[variable] ?? fromFile?.[setting];
    if (value) settings[setting] = setting === 'serverName' ? value : resolvePath(dirname(file), value);
  }
  const given = fromFile || Object.keys(settings).length > 0;
  try {
    // A setting given by its variable is named by it: that is where the user must look.
    const where = (setting: keyof RedisTlsFiles | 'url') => (setting !== 'url' && env[tlsVariables[setting]] ? tlsVariables[setting] : `${file}: redis.${setting === 'url' ? 'url' : `tls.${setting}`}`);
    return withRedisTls(endpoint, given ? settings : undefined, where);
  } catch (error) {
    throw new ConfigError(messageOf(error));
  }
}

/** sentinelEndpoint reads redis.sentinel: the sentinels, the primary's name, and the logins to the data nodes and to the sentinels. */
function sentinelEndpoint(sentinel: NonNullable<NonNullable<ConfigInput['redis']>['sentinel']>, file: string, env: NodeJS.ProcessEnv): RedisEndpoint {
  const own = redisLogin({ username: sentinel.sentinelUsername, password: sentinel.sentinelPassword, fields: ['redis.sentinel.sentinelUsername', 'redis.sentinel.sentinelPassword'], file, env }).auth;
  const data = redisLogin({ username: sentinel.username, password: sentinel.password, fields: ['redis.sentinel.username', 'redis.sentinel.password'], file, env });
  return { sentinel: { name: sentinel.name, nodes: redisNodes(sentinel.nodes, `${file}: redis.sentinel.nodes`), ...data, ...(own ? { sentinelAuth: own } : {}) } };
}

/** redisNodes reads host:port entries; `where` names the field in the error. */
function redisNodes(list: readonly string[], where: string): RedisNode[] {
  return list.map((node, index) => {
    try {
      return parseRedisNode(node, `${where}[${index}]`);
    } catch (error) {
      throw new ConfigError((error as Error).message);
    }
  });
}

/** redisLogin reads a Redis login's password (env or file); a username without its password is a mistake, said by field. */
function redisLogin(login: { username: string | undefined; password: Static<typeof SecretRef> | undefined; fields: [string, string]; file: string; env: NodeJS.ProcessEnv }): { auth?: RedisAuth } {
  const { username, password, fields, file } = login;
  if (username && !password) throw new ConfigError(`${file}: ${fields[0]}: a username needs its password in ${fields[1]}`);
  if (!password) return {};
  return { auth: { ...(username ? { username } : {}), password: readSecret(password, `${file}: ${fields[1]}`, dirname(file), login.env) } };
}

function webhooks(input: ConfigInput, where: (field: string) => string, base: string, env: NodeJS.ProcessEnv): ReconcilerConfig['webhooks'] {
  const sources = new Set(input.sources.map((source) => source.name));
  return (input.webhooks ?? []).map((hook, index) => {
    if (!sources.has(hook.source)) throw new ConfigError(`${where(`webhooks[${index}].source`)}: no source is named "${hook.source}"`);
    return { source: hook.source, provider: hook.provider, secret: readSecret(hook.secret, where(`webhooks[${index}].secret`), base, env) };
  });
}

function readConfigFile(file: string): ConfigInput {
  let parsed: unknown;
  try {
    parsed = parseYaml(readFileSync(file, 'utf8'), { maxAliasCount: 0 });
  } catch (error) {
    throw new ConfigError(`${file}: cannot be read: ${messageOf(error)}`);
  }
  if (!Value.Check(ConfigInput, parsed)) {
    const first = Value.Errors(ConfigInput, parsed).First();
    throw new ConfigError(`${file}: ${first?.path ? first.path.slice(1).replaceAll('/', '.') : '(top level)'}: ${first?.message ?? 'is invalid'}`);
  }
  return parsed;
}

function resolveSourceAuth(source: Record<string, unknown>, where: string, base: string, env: NodeJS.ProcessEnv): Record<string, unknown> {
  // Host keys are pinned, never trusted on first use: an SSH source cannot start without known_hosts.
  if (source.auth === undefined && typeof source.url === 'string' && parseSshUrl(source.url)) {
    throw new ConfigError(`${where}.auth: an SSH URL needs {sshPrivateKey, knownHosts} (each {file} or {env}): the deploy key and the known_hosts lines that pin the server`);
  }
  if (source.auth === undefined) return source;
  if (!Value.Check(SourceAuthInput, source.auth)) {
    throw new ConfigError(`${where}.auth: must be {token: {env|file}}, {username, password: {env|file}} or {sshPrivateKey, knownHosts, passphrase?: {env|file}}`);
  }
  const auth = source.auth;
  const read = (field: string, ref: Static<typeof SecretRef>) => readSecret(ref, `${where}.auth.${field}`, base, env);
  if ('sshPrivateKey' in auth) {
    const passphrase = auth.passphrase ? { passphrase: read('passphrase', auth.passphrase) } : {};
    return { ...source, auth: { sshPrivateKey: read('sshPrivateKey', auth.sshPrivateKey), knownHosts: read('knownHosts', auth.knownHosts), ...passphrase } };
  }
  const resolved = 'token' in auth
    ? { token: read('token', auth.token), ...(auth.username ? { username: auth.username } : {}) }
    : { username: auth.username, password: read('password', auth.password) };
  return { ...source, auth: resolved };
}

/** credentialFiles lists the sources whose auth names a file (resolveSourceAuth has checked them). */
function credentialFiles(input: ConfigInput, base: string): Record<string, readonly CredentialFile[]> {
  const files: Record<string, readonly CredentialFile[]> = {};
  for (const source of input.sources) {
    const auth = source.auth;
    if (typeof source.name !== 'string' || !Value.Check(SourceAuthInput, auth)) continue;
    const refs = Object.entries(auth).filter((entry): entry is [CredentialFile['field'], Static<typeof SecretRef>] => typeof entry[1] === 'object');
    const named = refs.flatMap(([field, ref]) => ('file' in ref ? [{ field, path: resolvePath(base, ref.file) }] : []));
    if (named.length > 0) files[source.name] = named;
  }
  return files;
}

function readSecret(ref: Static<typeof SecretRef>, where: string, base: string, env: NodeJS.ProcessEnv): string {
  if ('env' in ref) {
    const value = env[ref.env];
    if (!value) throw new ConfigError(`${where}: environment variable ${ref.env} is not set`);
    return value;
  }
  try {
    return readFileSync(resolvePath(base, ref.file), 'utf8').trim();
  } catch {
    throw new ConfigError(`${where}: cannot read file ${ref.file}`);
  }
}

function clusterConfig(cluster: Static<typeof ClusterInput>, where: string, base: string): ClusterConfig {
  const ways = [cluster.kubeconfig, cluster.inCluster, cluster.kubeconfigSecret].filter(Boolean).length;
  if (cluster.agent && ways > 0) throw new ConfigError(`${where}: a cluster served by an agent (agent: true) has no kubeconfig, inCluster or kubeconfigSecret: the hub holds no credential for it`);
  if (!cluster.agent && ways !== 1) throw new ConfigError(`${where}: set exactly one of kubeconfig (a file path), inCluster: true, or kubeconfigSecret`);
  const secret = cluster.kubeconfigSecret;
  return {
    name: cluster.name,
    labels: cluster.labels ?? {},
    variables: cluster.variables ?? {},
    ...(cluster.kubeconfig ? { kubeconfigPath: resolvePath(base, cluster.kubeconfig) } : {}),
    ...(secret ? { kubeconfigSecret: { ...secret, key: secret.key ?? 'kubeconfig' } } : {}),
    inCluster: cluster.inCluster ?? false,
    allowExecPlugins: cluster.allowExecPlugins ?? false,
    agent: cluster.agent ?? false,
  };
}

function resolvePath(base: string, path: string): string {
  return isAbsolute(path) ? path : resolve(base, path);
}

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object') {
    for (const inner of Object.values(value)) deepFreeze(inner);
    Object.freeze(value);
  }
  return value;
}
