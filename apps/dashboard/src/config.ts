import { readFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { isIP } from 'node:net';
import { Type, type Static } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import type { TokenScope } from './auth/token-scope';
import type { AccessToken } from './auth/principal';
import { parseRedisNode, withRedisTls, type RedisAuth, type RedisEndpoint, type RedisTlsFiles } from '@tidemark/queue';
import { messageOf } from '@tidemark/contracts';
import { parseOidcSettings, type OidcSettings } from './auth/oidc-settings';

/** ConfigError is a mistake in the dashboard configuration; its message names the variable. */
export class ConfigError extends Error {
  readonly code = 'ConfigInvalid';
  constructor(message: string) {
    super(message);
    this.name = 'ConfigError';
  }
}

const TokenInput = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9._@-]+$' }),
  // Tokens are viewers or operators; admin is given by single sign-on groups only.
  role: Type.Union([Type.Literal('viewer'), Type.Literal('operator')]),
  // Short tokens can be guessed; 16 characters is the floor, 32+ random ones are advised.
  token: Type.String({ minLength: 16, maxLength: 512 }),
  // Limits the token to these sources, namespaces and clusters (any list may be left out, not all).
  scope: Type.Optional(Type.Object({
    sources: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 253 }), { maxItems: 256 })),
    namespaces: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 63 }), { maxItems: 256 })),
    clusters: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 63 }), { maxItems: 256 })),
  }, { additionalProperties: false })),
}, { additionalProperties: false });
const TokenList = Type.Array(TokenInput, { minItems: 1 });
type TokenInput = Static<typeof TokenInput>;

/** DashboardConfig is read once at start-up from the environment, validated and frozen. */
export interface DashboardConfig {
  readonly host: string;
  readonly port: number;
  readonly redisUrl: string;
  /** How to reach Redis: TIDEMARK_REDIS_URL, or a Sentinel group, or a Redis Cluster (see redisEndpointOf). */
  readonly redis: RedisEndpoint;
  /** Key prefix shared with the reconciler (status store, queues, source records). */
  readonly redisPrefix: string;
  /** Clusters whose queues are shown even before any status record names them. */
  readonly clusters: readonly string[];
  readonly tokens: readonly AccessToken[];
  /** The tokens file, when tokens come from one: it is watched, and a removed or changed token ends its sessions. */
  readonly tokensFile?: string;
  readonly sessionSecret: string;
  /** True when no secret was configured: sessions then end when the process restarts. */
  readonly sessionSecretGenerated: boolean;
  /** Mark the session cookie Secure; set it when the dashboard is served over HTTPS. */
  readonly secureCookies: boolean;
  /** When set, /metrics needs this bearer token. */
  readonly metricsToken?: string;
  /** Proxies (addresses or CIDRs) whose X-Forwarded-For gives the client address (TIDEMARK_DASHBOARD_TRUSTED_PROXIES). @defaultValue none */
  readonly trustedProxies: readonly string[];
  /** Audit records kept in Redis, about; the oldest are trimmed first (TIDEMARK_DASHBOARD_AUDIT_MAX_RECORDS). @defaultValue 100000 */
  readonly auditMaxRecords: number;
  /**
   * The dashboard's own cluster access, for day-2 actions: a kubeconfig file per cluster
   * (TIDEMARK_DASHBOARD_KUBECONFIGS, JSON `{"prod": "/path"}`) and the cluster it runs in
   * (TIDEMARK_DASHBOARD_IN_CLUSTER). @defaultValue none: day-2 actions answer 503
   */
  readonly kubeconfigs: Readonly<Record<string, string>>;
  readonly inCluster?: string;
  /** The ServiceAccount each source's objects are acted on as (TIDEMARK_DASHBOARD_SOURCE_IDENTITIES, JSON `{"team-a": "team-a/deployer"}`). */
  readonly sourceIdentities: Readonly<Record<string, { readonly namespace: string; readonly name: string }>>;
  /** Single sign-on (TIDEMARK_DASHBOARD_OIDC_FILE and the client secret); without it, tokens only. */
  readonly oidc?: OidcSettings;
  /**
   * A trace UI's page of one trace, with `{traceId}` where the id goes, e.g. https://jaeger.example.com/trace/{traceId}
   * (TIDEMARK_DASHBOARD_TRACE_URL): an object's history then links each traced run to its trace. @defaultValue none
   */
  readonly traceUrl?: string;
}

type Environment = Readonly<Record<string, string | undefined>>;

/**
 * loadConfig reads TIDEMARK_DASHBOARD_* (and REDIS_URL) from the environment. Tokens come from
 * TIDEMARK_DASHBOARD_TOKENS_FILE or TIDEMARK_DASHBOARD_TOKENS, a JSON list of {name, role, token}.
 */
export function loadConfig(env: Environment = process.env): DashboardConfig {
  const secret = env.TIDEMARK_DASHBOARD_SESSION_SECRET;
  if (secret !== undefined && secret.length < 32) {
    throw new ConfigError('TIDEMARK_DASHBOARD_SESSION_SECRET must be at least 32 characters; generate one with `openssl rand -hex 32`.');
  }
  const oidc = readOidc(env);
  const config: DashboardConfig = {
    host: env.TIDEMARK_DASHBOARD_HOST ?? '127.0.0.1',
    port: parsePort(env.TIDEMARK_DASHBOARD_PORT ?? '8080'),
    redisUrl: env.TIDEMARK_REDIS_URL ?? env.REDIS_URL ?? 'redis://127.0.0.1:6379',
    redis: withHashTag(env, redisTlsOf(env, redisEndpointOf(env))),
    redisPrefix: env.TIDEMARK_REDIS_PREFIX ?? 'tidemark',
    clusters: (env.TIDEMARK_DASHBOARD_CLUSTERS ?? '').split(',').map((name) => name.trim()).filter((name) => name.length > 0),
    tokens: readTokens(env, oidc !== undefined),
    ...(env.TIDEMARK_DASHBOARD_TOKENS_FILE ? { tokensFile: env.TIDEMARK_DASHBOARD_TOKENS_FILE } : {}),
    sessionSecret: secret ?? randomBytes(32).toString('hex'),
    sessionSecretGenerated: secret === undefined,
    secureCookies: env.TIDEMARK_DASHBOARD_SECURE_COOKIES === 'true',
    ...metricsToken(env.TIDEMARK_DASHBOARD_METRICS_TOKEN, 'TIDEMARK_DASHBOARD_METRICS_TOKEN'),
    trustedProxies: trustedProxies(env.TIDEMARK_DASHBOARD_TRUSTED_PROXIES),
    auditMaxRecords: auditMaxRecords(env.TIDEMARK_DASHBOARD_AUDIT_MAX_RECORDS ?? '100000'),
    kubeconfigs: stringMap(env.TIDEMARK_DASHBOARD_KUBECONFIGS, 'TIDEMARK_DASHBOARD_KUBECONFIGS', 'a cluster name to the path of its kubeconfig file'),
    ...(env.TIDEMARK_DASHBOARD_IN_CLUSTER ? { inCluster: clusterName(env.TIDEMARK_DASHBOARD_IN_CLUSTER, 'TIDEMARK_DASHBOARD_IN_CLUSTER') } : {}),
    sourceIdentities: sourceIdentities(env.TIDEMARK_DASHBOARD_SOURCE_IDENTITIES),
    ...(oidc ? { oidc } : {}),
    ...traceUrl(env.TIDEMARK_DASHBOARD_TRACE_URL),
  };
  return Object.freeze({ ...config, redis: Object.freeze(config.redis), clusters: Object.freeze([...config.clusters]), trustedProxies: Object.freeze([...config.trustedProxies]), tokens: Object.freeze(config.tokens.map((token) => Object.freeze(token))) });
}

/** stringMap reads a JSON object of strings, naming the variable and what each entry maps when it is not one. */
function stringMap(raw: string | undefined, name: string, what: string): Record<string, string> {
  if (!raw) return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch (error) {
    throw new ConfigError(`${name} is not JSON (${messageOf(error)}); it maps ${what}, like {"prod": "…"}.`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new ConfigError(`${name} must be a JSON object mapping ${what}.`);
  const entries = Object.entries(parsed as Record<string, unknown>);
  for (const [key, value] of entries) {
    clusterName(key, name);
    if (typeof value !== 'string' || value.length === 0) throw new ConfigError(`${name}: "${key}" must map to a non-empty string (${what}).`);
  }
  return Object.freeze(Object.fromEntries(entries)) as Record<string, string>;
}

function clusterName(value: string, name: string): string {
  if (!/^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/.test(value)) throw new ConfigError(`${name}: "${value.slice(0, 80)}" is not a name (lower-case letters, digits and '-', at most 63).`);
  return value;
}

function sourceIdentities(raw: string | undefined): Record<string, { namespace: string; name: string }> {
  const map = stringMap(raw, 'TIDEMARK_DASHBOARD_SOURCE_IDENTITIES', 'a source name to namespace/serviceaccount');
  return Object.freeze(Object.fromEntries(Object.entries(map).map(([source, value]) => {
    const [namespace = '', name = '', ...rest] = value.split('/');
    if (!namespace || !name || rest.length > 0) throw new ConfigError(`TIDEMARK_DASHBOARD_SOURCE_IDENTITIES: "${source}" must map to namespace/serviceaccount, not "${value.slice(0, 80)}".`);
    return [source, Object.freeze({ namespace, name })];
  })));
}

function traceUrl(value: string | undefined): { traceUrl?: string } {
  if (value === undefined || value === '') return {};
  const problem = traceUrlProblem(value);
  if (problem) throw new ConfigError(`TIDEMARK_DASHBOARD_TRACE_URL: ${problem}`);
  return { traceUrl: value };
}

/** traceUrlProblem: the template must be an http(s) URL with no credentials and `{traceId}` in it. */
function traceUrlProblem(value: string): string | undefined {
  if (!value.includes('{traceId}')) return 'must contain {traceId}, where the trace id goes';
  let url: URL;
  try {
    url = new URL(value.replaceAll('{traceId}', '0'));
  } catch {
    return 'is not a URL';
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return `must be an http or https URL; got ${url.protocol}`;
  if (url.username || url.password) return 'must not carry credentials';
  return undefined;
}

function metricsToken(value: string | undefined, name: string): { metricsToken?: string } {
  if (value === undefined) return {};
  if (value.length < 16) throw new ConfigError(`${name} must be at least 16 characters; generate one with \`openssl rand -hex 24\`.`);
  return { metricsToken: value };
}

function auditMaxRecords(raw: string): number {
  const count = Number(raw);
  if (!Number.isInteger(count) || count < 1000) throw new ConfigError(`TIDEMARK_DASHBOARD_AUDIT_MAX_RECORDS: "${raw}" is not a whole number of at least 1000; it is how many audit records Redis keeps.`);
  return count;
}

/** trustedProxies reads a comma-separated list of IP addresses or CIDRs; anything else is refused by name. */
function trustedProxies(value: string | undefined): string[] {
  const entries = (value ?? '').split(',').map((entry) => entry.trim()).filter((entry) => entry.length > 0);
  for (const entry of entries) {
    const [address = '', bits, ...rest] = entry.split('/');
    const version = isIP(address);
    const prefix = Number(bits);
    const validBits = bits === undefined || (/^\d+$/.test(bits) && prefix <= (version === 6 ? 128 : 32));
    if (version === 0 || !validBits || rest.length > 0) {
      throw new ConfigError(`TIDEMARK_DASHBOARD_TRUSTED_PROXIES: "${entry}" is not an IP address or CIDR; list the addresses of the proxies in front of the dashboard, like 10.0.0.0/8,fd00::/8.`);
    }
  }
  return entries;
}

function parsePort(raw: string): number {
  const port = Number(raw);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new ConfigError(`TIDEMARK_DASHBOARD_PORT must be a port number 0-65535; got "${raw}".`);
  }
  return port;
}

/**
 * readOidc reads single sign-on: TIDEMARK_DASHBOARD_OIDC_FILE (JSON: issuer, clientId, redirectUri,
 * groups) and the client secret from TIDEMARK_DASHBOARD_OIDC_CLIENT_SECRET_FILE, else
 * TIDEMARK_DASHBOARD_OIDC_CLIENT_SECRET. Neither the secret nor its file's text is ever quoted.
 */
function readOidc(env: Environment): OidcSettings | undefined {
  const file = env.TIDEMARK_DASHBOARD_OIDC_FILE;
  if (!file) return undefined;
  const secretFile = env.TIDEMARK_DASHBOARD_OIDC_CLIENT_SECRET_FILE;
  let secret = env.TIDEMARK_DASHBOARD_OIDC_CLIENT_SECRET;
  if (secretFile) {
    try {
      secret = readFileSync(secretFile, 'utf8').trim();
    } catch (error) {
      throw new ConfigError(`TIDEMARK_DASHBOARD_OIDC_CLIENT_SECRET_FILE: could not read ${secretFile}: ${messageOf(error)}.`);
    }
  }
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new ConfigError(`TIDEMARK_DASHBOARD_OIDC_FILE: could not read ${file}: ${messageOf(error)}.`);
  }
  try {
    return parseOidcSettings(text, file, secret);
  } catch (error) {
    throw new ConfigError(messageOf(error));
  }
}

function readTokens(env: Environment, signOnConfigured: boolean): AccessToken[] {
  const file = env.TIDEMARK_DASHBOARD_TOKENS_FILE;
  const inline = env.TIDEMARK_DASHBOARD_TOKENS;
  // With single sign-on, tokens are for automation only and may be left out.
  if (file === undefined && inline === undefined && signOnConfigured) return [];
  if (file === undefined && inline === undefined) {
    throw new ConfigError('Set TIDEMARK_DASHBOARD_TOKENS_FILE (or TIDEMARK_DASHBOARD_TOKENS): a JSON list of {"name", "role": "viewer"|"operator", "token"}. Or set TIDEMARK_DASHBOARD_OIDC_FILE for single sign-on. The dashboard refuses to run without auth.');
  }
  const where = file ?? 'TIDEMARK_DASHBOARD_TOKENS';
  return parseTokens(file === undefined ? (inline ?? '') : readTokenFile(file), where);
}

/** reloadTokens reads the tokens file again, with the same checks as at start-up. */
export function reloadTokens(path: string): AccessToken[] {
  return parseTokens(readTokenFile(path), path);
}

function readTokenFile(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (error) {
    throw new ConfigError(`Could not read the tokens file ${path}: ${messageOf(error)}.`);
  }
}

/** parseTokens checks a JSON token list; names and tokens must be unique. */
export function parseTokens(text: string, where: string): AccessToken[] {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new ConfigError(`${where} is not JSON; expected a list of {"name", "role", "token"}.`);
  }
  if (!Value.Check(TokenList, value)) {
    const first = Value.Errors(TokenList, value).First();
    // The message never quotes the value: it could be a token.
    throw new ConfigError(`${where}: ${first ? `${first.path || '/'} ${first.message}` : 'invalid token list'}.`);
  }
  const tokens: TokenInput[] = value;
  const names = new Set(tokens.map((token) => token.name));
  const secrets = new Set(tokens.map((token) => token.token));
  if (names.size !== tokens.length || secrets.size !== tokens.length) {
    throw new ConfigError(`${where}: each token needs its own name and its own value.`);
  }
  return tokens.map((token, index) => ({ name: token.name, role: token.role, token: token.token, ...(token.scope ? { scope: scopeOf(token.scope, `${where}: /${index}/scope`) } : {}) }));
}

function scopeOf(input: { sources?: string[]; namespaces?: string[]; clusters?: string[] }, where: string): TokenScope {
  const scope = { sources: Object.freeze([...(input.sources ?? [])]), namespaces: Object.freeze([...(input.namespaces ?? [])]), clusters: Object.freeze([...(input.clusters ?? [])]) };
  // An empty scope would read as "everything"; a scope that limits nothing is a mistake, not a wish.
  if (scope.sources.length + scope.namespaces.length + scope.clusters.length === 0) throw new ConfigError(`${where} names no source and no namespace, and no cluster; leave scope out for a token that sees everything.`);
  return Object.freeze(scope);
}

/**
 * redisEndpointOf: TIDEMARK_REDIS_SENTINELS (host:port,…) with TIDEMARK_REDIS_SENTINEL_NAME, or
 * TIDEMARK_REDIS_CLUSTER_NODES (host:port,…), or else the URL; the same Redis the reconciler uses.
 * TIDEMARK_REDIS_PASSWORD (with TIDEMARK_REDIS_USERNAME for an ACL user) logs in to the data
 * nodes, TIDEMARK_REDIS_SENTINEL_PASSWORD (and _SENTINEL_USERNAME) to the sentinels.
 */
function redisEndpointOf(env: Environment): RedisEndpoint {
  const list = (name: string) => (env[name] ?? '').split(',').map((node) => node.trim()).filter(Boolean).map((node, index) => {
    try {
      return parseRedisNode(node, `${name}[${index}]`);
    } catch (error) {
      throw new ConfigError((error as Error).message);
    }
  });
  const sentinels = list('TIDEMARK_REDIS_SENTINELS');
  const clusterNodes = list('TIDEMARK_REDIS_CLUSTER_NODES');
  if (sentinels.length > 0 && clusterNodes.length > 0) throw new ConfigError('TIDEMARK_REDIS_SENTINELS and TIDEMARK_REDIS_CLUSTER_NODES: set only one way to reach Redis.');
  if (sentinels.length > 0) {
    const name = env.TIDEMARK_REDIS_SENTINEL_NAME;
    if (!name) throw new ConfigError('TIDEMARK_REDIS_SENTINEL_NAME: name the primary the sentinels watch (their `sentinel monitor` name).');
    const own = redisLogin(env, 'TIDEMARK_REDIS_SENTINEL_USERNAME', 'TIDEMARK_REDIS_SENTINEL_PASSWORD');
    return { sentinel: { name, nodes: sentinels, ...redisLogin(env, 'TIDEMARK_REDIS_USERNAME', 'TIDEMARK_REDIS_PASSWORD'), ...(own.auth ? { sentinelAuth: own.auth } : {}) } };
  }
  if (clusterNodes.length > 0) return { cluster: { nodes: clusterNodes, ...redisLogin(env, 'TIDEMARK_REDIS_USERNAME', 'TIDEMARK_REDIS_PASSWORD') } };
  return { url: env.TIDEMARK_REDIS_URL ?? env.REDIS_URL ?? 'redis://127.0.0.1:6379' };
}

const tlsVariables = { caFile: 'TIDEMARK_REDIS_TLS_CA_FILE', certFile: 'TIDEMARK_REDIS_TLS_CERT_FILE', keyFile: 'TIDEMARK_REDIS_TLS_KEY_FILE', serverName: 'TIDEMARK_REDIS_TLS_SERVER_NAME', url: 'TIDEMARK_REDIS_URL' } as const;

/**
 * redisTlsOf: TLS to Redis with a rediss:// URL, or to a Sentinel group or Redis Cluster once any
 * TIDEMARK_REDIS_TLS_* is set; the CA, certificate and key files are read here, once.
 */
function redisTlsOf(env: Environment, endpoint: RedisEndpoint): RedisEndpoint {
  const given = Object.entries(tlsVariables).filter(([setting, variable]) => setting !== 'url' && env[variable]);
  const files = given.length > 0 ? Object.fromEntries(given.map(([setting, variable]) => [setting, env[variable]])) as RedisTlsFiles : undefined;
  try {
    const secured = withRedisTls(endpoint, files, (setting) => tlsVariables[setting]);
    return secured.tls ? { ...secured, tls: Object.freeze(secured.tls) } : secured;
  } catch (error) {
    throw new ConfigError(messageOf(error));
  }
}

/** withHashTag: TIDEMARK_REDIS_HASH_TAG=true reads keys named per cluster on one server or Sentinel, as the reconciler's redis.hashTag writes them. */
function withHashTag(env: Environment, endpoint: RedisEndpoint): RedisEndpoint {
  const value = env.TIDEMARK_REDIS_HASH_TAG;
  if (value === undefined || value === '' || value === 'false') return endpoint;
  if (value !== 'true') throw new ConfigError(`TIDEMARK_REDIS_HASH_TAG: "${value}" is not true or false`);
  return { ...endpoint, hashTag: true };
}

/** redisLogin reads a Redis login from two variables; a username without its password is a mistake, said by name. */
function redisLogin(env: Environment, usernameVariable: string, passwordVariable: string): { auth?: RedisAuth } {
  const username = env[usernameVariable];
  const password = env[passwordVariable];
  if (username && !password) throw new ConfigError(`${usernameVariable}: a username needs its password in ${passwordVariable}.`);
  return password ? { auth: { ...(username ? { username } : {}), password } } : {};
}
