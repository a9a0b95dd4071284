// Records the server-side applies Tidemark sends, and replays them with a minimal client: one
// keep-alive HTTPS agent, the kubeconfig's credentials, no discovery, no parsing beyond the status.
import https from 'node:https';
import http from 'node:http';
import { KubeConfig } from '@kubernetes/client-node';
import { KubeClient, type KubeRequest } from '@tidemark/cluster';

/** RecordedApply is one request as Tidemark sent it: a server-side apply PATCH, or an Event's POST. */
export interface RecordedApply {
  method: 'PATCH' | 'POST';
  path: string;
  query: Record<string, string>;
  body: string;
  /** Which run sent it (recordRequests' `runOf`), when known. */
  run?: string;
  /** When it was sent and when its answer came (performance.now()), to keep a run's order and overlap in a replay. */
  sent?: number;
  answered?: number;
}

/** RecordedRequests: the writes of a run, by what they are. */
export interface RecordedRequests {
  /** Real (not dry-run) server-side applies of objects. */
  applies: RecordedApply[];
  /** Server-side applies of a /status subresource. */
  statusApplies: RecordedApply[];
  /** Event creations. */
  events: RecordedApply[];
  /** All of the above, in the order they were sent. */
  inOrder: RecordedApply[];
}

/** SentCall is what KubeClient's private send receives: the call with its JSON payload already written. */
type SentCall = KubeRequest & { payload: string | undefined };
type Send = (this: KubeClient, call: SentCall) => Promise<{ status: number }>;

/**
 * recordRequests wraps KubeClient's send (bench only) and keeps, while `active()` is true, every
 * real server-side apply of an object, of a /status, and every Event creation, to replay them.
 * It keeps the payload KubeClient already wrote, so recording adds no JSON work to the side it
 * measures. Request counts come from the API server's audit log instead (see countedRequests).
 */
export function recordRequests(active: () => boolean, runOf: () => string | undefined = () => undefined): RecordedRequests {
  const recorded: RecordedRequests = { applies: [], statusApplies: [], events: [], inOrder: [] };
  const prototype = KubeClient.prototype as unknown as { send: Send };
  const original = prototype.send;
  prototype.send = function send(this: KubeClient, call: SentCall) {
    const list = active() ? listFor(recorded, call) : undefined;
    if (!list) return original.call(this, call);
    const query = Object.fromEntries(Object.entries(call.query ?? {}).filter(([, value]) => value !== undefined).map(([key, value]) => [key, String(value)]));
    const run = runOf();
    const entry: RecordedApply = { method: call.method === 'POST' ? 'POST' : 'PATCH', path: call.path, query, body: call.payload ?? '', ...(run === undefined ? {} : { run }), sent: performance.now() };
    list.push(entry);
    recorded.inOrder.push(entry);
    const answered = () => { entry.answered = performance.now(); };
    const response = original.call(this, call);
    response.then(answered, answered);
    return response;
  };
  return recorded;
}

/**
 * RecordedRun is what one run sent, as steps: the requests of a step were in flight together (the
 * pipeline sent each before the step's others were answered); a step began after the one before
 * it was answered.
 */
export type RecordedRun = RecordedApply[][];

/** runsOf groups recorded requests by the run that sent them, each in its order and steps (see RecordedRun); requests of no known run are left out. */
export function runsOf(requests: readonly RecordedApply[]): RecordedRun[] {
  const runs = new Map<string, RecordedRun>();
  const stepEnds = new Map<string, number>();
  for (const request of requests) {
    if (request.run === undefined) continue;
    const steps = runs.get(request.run) ?? [];
    runs.set(request.run, steps);
    const last = steps.at(-1);
    const answered = request.answered ?? Infinity;
    const stepEnd = stepEnds.get(request.run) ?? 0;
    if (last && (request.sent ?? 0) < stepEnd) {
      last.push(request);
      stepEnds.set(request.run, Math.max(stepEnd, answered));
    } else {
      steps.push([request]);
      stepEnds.set(request.run, answered);
    }
  }
  return [...runs.values()];
}

/** recordApplies keeps the real server-side applies of objects (not their /status) while `active()` is true. */
export function recordApplies(active: () => boolean): RecordedApply[] {
  return recordRequests(active).applies;
}

function listFor(recorded: RecordedRequests, call: KubeRequest): RecordedApply[] | undefined {
  if (call.method === 'POST' && /\/namespaces\/[^/]+\/events$/.test(call.path)) return recorded.events;
  if (call.contentType !== 'application/apply-patch+yaml' || call.query?.dryRun !== undefined) return undefined;
  return call.path.endsWith('/status') ? recorded.statusApplies : recorded.applies;
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

  /** apply sends one recorded request (an apply PATCH or an Event POST), with its namespace swapped when asked. */
  async apply(recorded: RecordedApply, swap?: [string, string]): Promise<void> {
    const path = swap ? recorded.path.replace(`/namespaces/${swap[0]}/`, `/namespaces/${swap[1]}/`) : recorded.path;
    const body = swap ? recorded.body.replaceAll(`"namespace":"${swap[0]}"`, `"namespace":"${swap[1]}"`) : recorded.body;
    const query = new URLSearchParams(recorded.query).toString();
    const contentType = recorded.method === 'PATCH' ? 'application/apply-patch+yaml' : 'application/json';
    const { status, text } = await this.exchange(recorded.method, query ? `${path}?${query}` : path, body, contentType);
    if (status >= 300) throw new Error(`raw ${recorded.method} of ${path} answered ${status}: ${messageOf(text)}`);
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
