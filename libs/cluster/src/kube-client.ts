import https from 'node:https';
import http from 'node:http';
import { KubeConfig } from '@kubernetes/client-node';
import { ApiError, KubeTransportError, type KubeStatus } from './api-error';
import { credentialsAreInline, refuseCommandRunningUsers } from './kubeconfig-guard';

/** RequestOptions describe one call to the API server. */
export interface KubeRequest {
  method: 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';
  path: string;
  query?: Record<string, string | number | boolean | undefined>;
  body?: unknown;
  contentType?: string;
  /** A short description for errors, e.g. "apply apps/v1 Deployment web/frontend". */
  what: string;
  /** @defaultValue 30_000 */
  timeoutMs?: number;
  /** Receives the API server's Warning headers (deprecations, ignored fields), as kubectl prints them. */
  warnings?: string[];
  /** The most body bytes read; the rest is dropped unread (requestText). @defaultValue unbounded for JSON calls */
  maxBytes?: number;
}

export interface KubeClientOptions {
  /** The cluster's name in Tidemark, used in messages and metrics. */
  cluster: string;
  /** A kubeconfig as text, or a loaded KubeConfig (in-cluster config, for instance). */
  kubeconfig: string | KubeConfig;
  /** Kubeconfigs with a user that can run a command (exec plugin, legacy auth-provider) are refused unless this is true. @defaultValue false */
  allowExecPlugins?: boolean;
  /** Called after every request, for metrics; `apply` marks a server-side apply, `dryRun` a dry-run, `path` is without the query. */
  onResponse?: (event: { method: string; path: string; status: number; durationMs: number; apply: boolean; dryRun: boolean }) => void;
}

/**
 * KubeClient is the one transport to a cluster's API server: a keep-alive HTTPS agent built
 * from the kubeconfig, JSON in and out, and non-2xx answers turned into ApiError.
 * The constructor opens nothing; the first request does.
 */
export class KubeClient {
  readonly cluster: string;
  readonly server: URL;
  /** The user every request impersonates (Impersonate-User), or undefined for the kubeconfig's own identity. */
  readonly impersonatedUser: string | undefined;
  private readonly config: KubeConfig;
  // Shared by this client and every impersonating view of it: one pool of sockets per cluster.
  private readonly sockets: { agent: https.Agent | http.Agent | undefined };
  // Shared with every view too: a health check asks whether anything went wrong since it last looked.
  private readonly signals: { troubles: number };
  // The kubeconfig's request options when nothing in them can change between requests (see httpsOptions).
  private fixedOptions: Readonly<https.RequestOptions> | undefined;

  constructor(private readonly options: KubeClientOptions, view?: { of: KubeClient; user: string }) {
    this.cluster = options.cluster;
    if (view) {
      this.config = view.of.config;
      this.sockets = view.of.sockets;
      this.signals = view.of.signals;
      this.server = view.of.server;
      this.impersonatedUser = view.user;
      return;
    }
    this.config = typeof options.kubeconfig === 'string' ? loadKubeConfig(options.kubeconfig) : options.kubeconfig;
    const current = this.config.getCurrentCluster();
    if (!current) throw new Error(`cluster ${options.cluster}: the kubeconfig has no current cluster; set current-context.`);
    refuseCommandRunningUsers(this.config, options.cluster, options.allowExecPlugins ?? false);
    this.server = new URL(current.server);
    this.sockets = { agent: undefined };
    this.signals = { troubles: 0 };
    this.impersonatedUser = undefined;
  }

  /**
   * impersonating is a view of this client whose every request (reads, dry-runs, applies, deletes,
   * watches) acts as `user`, so the API server checks that user's RBAC, not the reconciler's.
   */
  impersonating(user: string): KubeClient {
    if (this.impersonatedUser !== undefined) throw new Error(`cluster ${this.cluster}: a client already impersonating ${this.impersonatedUser} cannot impersonate ${user}`);
    return new KubeClient(this.options, { of: this, user });
  }

  /**
   * troubles counts the requests and watch connections of this cluster that failed in transport or
   * got a 5xx answer: a health check that sees it unchanged since its last probe may wait longer.
   */
  troubles(): number {
    return this.signals.troubles;
  }

  /** request sends one call and returns the parsed JSON body. */
  async request<T>(call: KubeRequest): Promise<T> {
    const options = await this.httpsOptions();
    const headers = this.headersFor(options);
    const payload = call.body === undefined ? undefined : JSON.stringify(call.body);
    if (payload !== undefined) {
      headers['Content-Type'] = call.contentType ?? 'application/json';
      headers['Content-Length'] = String(Buffer.byteLength(payload));
    }
    const started = performance.now();
    const { status, text, warnings } = await this.send({ ...call, headers, payload, tls: options }).catch((error: unknown) => {
      this.signals.troubles += 1;
      throw new KubeTransportError(call.what, { cause: error });
    });
    if (status >= 500) this.signals.troubles += 1;
    this.options.onResponse?.({ method: call.method, path: call.path, status, durationMs: performance.now() - started, apply: call.contentType === 'application/apply-patch+yaml', dryRun: call.query?.dryRun !== undefined });
    call.warnings?.push(...warnings);
    const body = text.length > 0 ? safeJson(text) : {};
    if (status < 200 || status >= 300) throw new ApiError(status, body as KubeStatus, call.what);
    return body as T;
  }

  /**
   * requestText sends one call whose answer is text (a pod's log) and returns at most
   * `call.maxBytes` of it: the connection is cut once that much arrived.
   */
  async requestText(call: KubeRequest): Promise<string> {
    const options = await this.httpsOptions();
    const { status, text } = await this.send({ ...call, headers: this.headersFor(options), payload: undefined, tls: options }).catch((error: unknown) => {
      this.signals.troubles += 1;
      throw new KubeTransportError(call.what, { cause: error });
    });
    if (status >= 500) this.signals.troubles += 1;
    if (status < 200 || status >= 300) throw new ApiError(status, safeJson(text) as KubeStatus, call.what);
    return text;
  }

  /** close ends the keep-alive connections (of every view: they share them). */
  close(): void {
    this.sockets.agent?.destroy();
    this.sockets.agent = undefined;
  }

  /**
   * httpsOptions are the kubeconfig's TLS material and headers for one request. client-node decodes
   * (or reads) them anew on every call; when the current user's credentials are all inline (no file,
   * no token source, no plugin: credentialsAreInline) the answer cannot change, so it is kept.
   */
  private async httpsOptions(): Promise<Readonly<https.RequestOptions>> {
    if (this.fixedOptions) return this.fixedOptions;
    const options: https.RequestOptions = {};
    await this.config.applyToHTTPSOptions(options);
    if (credentialsAreInline(this.config)) this.fixedOptions = Object.freeze(options);
    return options;
  }

  private headersFor(options: https.RequestOptions): Record<string, string> {
    const headers = headersOf(options);
    // A kubeconfig's own `as:` impersonation must not survive under a source's identity.
    for (const name of Object.keys(headers)) {
      if (name.toLowerCase().startsWith('impersonate-')) delete headers[name];
    }
    if (this.impersonatedUser !== undefined) headers['Impersonate-User'] = this.impersonatedUser;
    return headers;
  }

  /** stream opens a long-lived GET (a watch) and hands back the raw response. */
  async stream(path: string, query: KubeRequest['query'], signal: AbortSignal): Promise<http.IncomingMessage> {
    const options = await this.httpsOptions();
    return new Promise((resolve, reject) => {
      const request = this.transport().request(this.requestOptions('GET', path, query, this.headersFor(options), options), (response) => {
        if ((response.statusCode ?? 0) >= 500) this.signals.troubles += 1;
        // A watch cut by the server's end (not by its own timeout) is a sign of trouble too.
        response.once('aborted', () => { if (!signal.aborted) this.signals.troubles += 1; });
        resolve(response);
      });
      // The signal outlives this request (a watch reconnects under one signal): drop the listener when the request ends.
      const abort = () => request.destroy();
      signal.addEventListener('abort', abort, { once: true });
      request.once('close', () => signal.removeEventListener('abort', abort));
      request.on('error', (error) => {
        if (!signal.aborted) this.signals.troubles += 1;
        reject(error);
      });
      request.end();
    });
  }

  private send(call: KubeRequest & { headers: Record<string, string>; payload: string | undefined; tls: https.RequestOptions }): Promise<{ status: number; text: string; warnings: string[] }> {
    return new Promise((resolve, reject) => {
      const request = this.transport().request(this.requestOptions(call.method, call.path, call.query, call.headers, call.tls), (response) => {
        const chunks: Buffer[] = [];
        let size = 0;
        const done = () => resolve({ status: response.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8').slice(0, call.maxBytes), warnings: parseWarnings(response.headers.warning) });
        response.on('data', (chunk: Buffer) => {
          chunks.push(chunk);
          size += chunk.length;
          if (call.maxBytes !== undefined && size >= call.maxBytes) {
            done();
            response.destroy();
          }
        });
        response.on('end', done);
        response.on('error', reject);
      });
      request.setTimeout(call.timeoutMs ?? 30_000, () => request.destroy(new Error(`${call.what}: no answer within ${call.timeoutMs ?? 30_000} ms`)));
      request.on('error', reject);
      request.end(call.payload);
    });
  }

  private transport(): typeof https | typeof http {
    return this.server.protocol === 'http:' ? http : https;
  }

  private requestOptions(method: string, path: string, query: KubeRequest['query'], headers: Record<string, string>, tls: https.RequestOptions): https.RequestOptions {
    const search = new URLSearchParams();
    for (const [name, value] of Object.entries(query ?? {})) {
      if (value !== undefined) search.set(name, String(value));
    }
    const prefix = this.server.pathname.replace(/\/$/, '');
    return {
      protocol: this.server.protocol,
      hostname: this.server.hostname,
      port: this.server.port,
      path: `${prefix}${path}${search.size > 0 ? `?${search}` : ''}`,
      method,
      headers,
      agent: this.agentFor(tls),
    };
  }

  private agentFor(tls: https.RequestOptions): https.Agent | http.Agent {
    if (!this.sockets.agent) {
      this.sockets.agent = this.server.protocol === 'http:'
        ? new http.Agent({ keepAlive: true, maxSockets: 32 })
        : new https.Agent({
          keepAlive: true,
          maxSockets: 32,
          ca: tls.ca,
          cert: tls.cert,
          key: tls.key,
          ...(tls.rejectUnauthorized === false ? { rejectUnauthorized: false } : {}),
          ...(tls.servername ? { servername: tls.servername } : {}),
        });
    }
    return this.sockets.agent;
  }
}

/**
 * parseWarnings reads RFC 7234 Warning headers as the API server sends them,
 * `299 - "apps/v1beta1 Deployment is deprecated"`, and keeps the text.
 */
export function parseWarnings(header: string | string[] | undefined): string[] {
  if (!header) return [];
  const values = Array.isArray(header) ? header : [header];
  const warnings: string[] = [];
  for (const value of values) {
    for (const match of value.matchAll(/\d{3} \S+ "((?:[^"\\]|\\.)*)"/g)) warnings.push((match[1] ?? '').replace(/\\(.)/g, '$1'));
  }
  return warnings;
}

/** kubeUserAgent is the User-Agent of every request Tidemark sends to an API server. */
export const kubeUserAgent = 'tidemark';

function headersOf(options: https.RequestOptions): Record<string, string> {
  // The User-Agent names Tidemark in the API server's audit log and metrics.
  const headers: Record<string, string> = { Accept: 'application/json', 'User-Agent': kubeUserAgent };
  for (const [name, value] of Object.entries(options.headers ?? {})) {
    if (typeof value === 'string') headers[name] = value;
  }
  if (options.auth) headers.Authorization = `Basic ${Buffer.from(options.auth).toString('base64')}`;
  return headers;
}

function loadKubeConfig(text: string): KubeConfig {
  const config = new KubeConfig();
  config.loadFromString(text);
  return config;
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return { message: text.slice(0, 500) };
  }
}
