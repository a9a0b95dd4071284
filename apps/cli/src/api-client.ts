import { CliError, ExitCode } from './cli-error';
import type { CliConfig } from './config';

/** ApiClientOptions are the dashboard's address and token, and the time allowed for one request. */
export interface ApiClientOptions {
  config: CliConfig;
  /** @defaultValue 30_000 */
  timeoutMs?: number;
}

/**
 * ApiClient calls the dashboard's JSON API with the bearer token. Every failure becomes a
 * CliError with the API's stable code; the token never appears in a message.
 */
export class ApiClient {
  constructor(private readonly options: ApiClientOptions) {}

  get server(): string {
    return this.options.config.server;
  }

  get<T>(path: string, query: Record<string, string | number | undefined> = {}): Promise<T> {
    const search = new URLSearchParams();
    for (const [name, value] of Object.entries(query)) if (value !== undefined && value !== '') search.set(name, String(value));
    const suffix = search.size > 0 ? `?${search.toString()}` : '';
    return this.request<T>('GET', `${path}${suffix}`);
  }

  post<T>(path: string, body?: unknown): Promise<T> {
    return this.request<T>('POST', path, body);
  }

  private async request<T>(method: string, path: string, body?: unknown): Promise<T> {
    const { config } = this.options;
    if (!config.token) {
      throw new CliError('NoToken', 'no token for the dashboard: set TIDEMARK_TOKEN, or "token" in the config file (see `tidemark --help`)', 2);
    }
    refusePlainHttp(config.server);
    const headers: Record<string, string> = { authorization: `Bearer ${config.token}`, accept: 'application/json' };
    if (body !== undefined) headers['content-type'] = 'application/json';
    let response: Response;
    try {
      response = await fetch(`${config.server}/api${path}`, {
        method, headers, ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
        signal: AbortSignal.timeout(this.options.timeoutMs ?? 30_000), redirect: 'error',
      });
    } catch (error) {
      const reason = error instanceof Error && error.cause instanceof Error ? error.cause.message : String(error);
      throw new CliError('ServerUnreachable', `cannot reach the dashboard at ${config.server} (${reason}); is it running? Set TIDEMARK_SERVER or --server`, 1, { cause: error });
    }
    const text = await response.text();
    if (response.ok) return parseJson<T>(text, method, path);
    throw apiFailure(response.status, text, config);
  }
}

const loopbackHosts = new Set(['localhost', '[::1]']);

/**
 * refusePlainHttp stops the token from crossing a network in the clear: plain http is for a
 * dashboard on this machine (loopback, a port-forward or an SSH tunnel) only.
 */
export function refusePlainHttp(server: string): void {
  const url = new URL(server);
  if (url.protocol !== 'http:') return;
  if (loopbackHosts.has(url.hostname) || /^127\.\d+\.\d+\.\d+$/.test(url.hostname)) return;
  throw new CliError('InsecureServer', `the dashboard at ${url.origin} is plain http and not on this machine; the token is sent only over https, or over http to a loopback address (kubectl port-forward, an SSH tunnel)`, ExitCode.Usage);
}

function parseJson<T>(text: string, method: string, path: string): T {
  try {
    return JSON.parse(text) as T;
  } catch {
    throw new CliError('BadResponse', `the dashboard answered ${method} ${path} with something that is not JSON`);
  }
}

function apiFailure(status: number, text: string, config: CliConfig): CliError {
  let body: { code?: unknown; message?: unknown } = {};
  try {
    body = JSON.parse(text) as typeof body;
  } catch { /* not JSON: described by the status below */ }
  const code = typeof body.code === 'string' ? body.code : `HTTP${status}`;
  const message = typeof body.message === 'string' ? body.message : `the dashboard answered HTTP ${status}`;
  if (status === 401) return new CliError(code, `${message} (the token from ${config.tokenFrom ?? 'nowhere'} was refused)`);
  return new CliError(code, message);
}
