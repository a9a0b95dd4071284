// Records the server-side applies Tidemark sends, and replays them with a minimal client: one
// keep-alive HTTPS agent, the kubeconfig's credentials, no discovery, no parsing beyond the status.
import https from 'node:https';
import http from 'node:http';
import { KubeConfig } from '@kubernetes/client-node';
import { KubeClient, type KubeRequest } from '@tidemark/cluster';

/** RecordedApply is one SSA PATCH as Tidemark sent it. */
export interface RecordedApply {
  path: string;
  query: Record<string, string>;
  body: string;
}

/**
 * recordApplies wraps KubeClient.request (bench only) and keeps every real (not dry-run) server-
 * side apply of an object (not its /status) while `active()` is true, to replay them. Request
 * counts come from the API server's audit log instead (see countedRequests).
 */
export function recordApplies(active: () => boolean): RecordedApply[] {
  const recorded: RecordedApply[] = [];
  const original = KubeClient.prototype.request;
  KubeClient.prototype.request = function request<T>(this: KubeClient, call: KubeRequest): Promise<T> {
    const isApply = call.contentType === 'application/apply-patch+yaml' && call.query?.dryRun === undefined && !call.path.endsWith('/status');
    if (isApply && active()) {
      const query = Object.fromEntries(Object.entries(call.query ?? {}).filter(([, value]) => value !== undefined).map(([key, value]) => [key, String(value)]));
      recorded.push({ path: call.path, query, body: JSON.stringify(call.body) });
    }
    return original.call(this, call) as Promise<T>;
  };
  return recorded;
}

/** RawClient sends requests as plainly as Node can. */
export class RawClient {
  private readonly agent: https.Agent | http.Agent;
  private readonly server: URL;
  private readonly options: https.RequestOptions = {};

  private constructor(private readonly config: KubeConfig, concurrency: number) {
    this.server = new URL(config.getCurrentCluster()!.server);
    this.agent = this.server.protocol === 'https:' ? new https.Agent({ keepAlive: true, maxSockets: concurrency }) : new http.Agent({ keepAlive: true, maxSockets: concurrency });
  }

  static async connect(kubeconfig: string, concurrency: number): Promise<RawClient> {
    const config = new KubeConfig();
    config.loadFromString(kubeconfig);
    const client = new RawClient(config, concurrency);
    await config.applyToHTTPSOptions(client.options);
    return client;
  }

  /** send returns the HTTP status, and the start of the body when the status is an error (a success's body is dropped). */
  send(method: string, path: string, body?: string, contentType = 'application/json'): Promise<number> {
    return this.exchange(method, path, body, contentType).then(({ status }) => status);
  }

  /** get returns the HTTP status and the whole body. */
  get(path: string): Promise<{ status: number; text: string }> {
    return this.exchange('GET', path, undefined, 'application/json', true);
  }

  private exchange(method: string, path: string, body?: string, contentType = 'application/json', keepBody = false): Promise<{ status: number; text: string }> {
    const transport = this.server.protocol === 'https:' ? https : http;
    const headers: Record<string, string> = { ...(this.options.headers as Record<string, string> | undefined), accept: 'application/json' };
    if (body !== undefined) Object.assign(headers, { 'content-type': contentType, 'content-length': String(Buffer.byteLength(body)) });
    return new Promise((resolve, reject) => {
      const request = transport.request({ ...this.options, host: this.server.hostname, port: this.server.port, method, path, headers, agent: this.agent }, (response) => {
        const status = response.statusCode ?? 0;
        const chunks: Buffer[] = [];
        let kept = 0;
        response.on('data', (chunk: Buffer) => {
          if (!keepBody && (status < 300 || kept >= 4096)) return;
          chunks.push(chunk);
          kept += chunk.length;
        });
        response.on('end', () => resolve({ status, text: Buffer.concat(chunks).toString() }));
      });
      request.on('error', reject);
      request.end(body);
    });
  }

  /** apply sends one recorded SSA PATCH, with its namespace swapped when asked. */
  async apply(recorded: RecordedApply, swap?: [string, string]): Promise<void> {
    const path = swap ? recorded.path.replace(`/namespaces/${swap[0]}/`, `/namespaces/${swap[1]}/`) : recorded.path;
    const body = swap ? recorded.body.replaceAll(`"namespace":"${swap[0]}"`, `"namespace":"${swap[1]}"`) : recorded.body;
    const { status, text } = await this.exchange('PATCH', `${path}?${new URLSearchParams(recorded.query)}`, body, 'application/apply-patch+yaml');
    if (status >= 300) throw new Error(`raw apply of ${path} answered ${status}: ${messageOf(text)}`);
  }

  close(): void {
    this.agent.destroy();
  }
}

/** messageOf is a Kubernetes Status body's message, or the body's start. */
function messageOf(text: string): string {
  try {
    const status = JSON.parse(text) as { message?: unknown };
    if (typeof status.message === 'string') return status.message;
  } catch {
    // not JSON: show it as it came
  }
  return text.slice(0, 500);
}
