// A loopback stand-in for the part of Gitea's API Tidemark writes to: commit statuses and
// pull-request (issue) comments, kept in memory. It is not Gitea: the real one (test/gitea) runs in
// gitea.test.ts and webhook-preview-comment.test.ts; this stays where a test needs more than Gitea can be
// made to do (see test/gitea/README.md). Every request is
// checked against Gitea v1.26.0's own OpenAPI description of these operations
// (gitea-openapi-subset.json, copied from the module): method, path, the `token` Authorization
// header, and the body's fields and types; whatever breaks it is listed in `problems`.
import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

interface Schema { required?: string[]; properties: Record<string, { type: string }> }
const spec = JSON.parse(readFileSync(new URL('./gitea-openapi-subset.json', import.meta.url), 'utf8')) as { definitions: Record<string, Schema> };
const statusStates = ['pending', 'success', 'error', 'failure', 'warning'];

export interface StandInStatus { id: number; state: string; context: string; description: string; target_url: string; created_at: string }
export interface StandInComment { id: number; body: string; user: { login: string } }

export interface GiteaStandIn {
  apiUrl: string;
  token: string;
  /** Requests that break Gitea's description, as sentences. */
  problems: string[];
  /** statusesOf lists a commit's statuses, newest first, as Gitea's GET .../statuses/{sha} does. */
  statusesOf(owner: string, repo: string, sha: string): StandInStatus[];
  /** commentsOf lists a pull request's comments, oldest first. */
  commentsOf(owner: string, repo: string, number: number): StandInComment[];
  /** openPullRequest makes a pull request (an issue) that comments may be posted on. */
  openPullRequest(owner: string, repo: string, number: number): void;
  /** pause holds every request unanswered until resume, like a hung host. */
  pause(): void;
  resume(): void;
  stop(): Promise<void>;
}

export async function startGiteaStandIn(token: string): Promise<GiteaStandIn> {
  const statuses = new Map<string, StandInStatus[]>();
  const comments = new Map<string, StandInComment[]>();
  const problems: string[] = [];
  let nextId = 1;
  let held: (() => void)[] | undefined;
  type Send = (status: number, value?: unknown) => void;
  const postStatus = (path: string, parsed: unknown, send: Send): boolean => {
    const status = /^\/api\/v1\/repos\/([^/]+)\/([^/]+)\/statuses\/([0-9a-f]{40})$/.exec(path);
    if (!status) return false;
    check('CreateStatusOption', parsed, problems);
    const input = parsed as Partial<StandInStatus>;
    if (!statusStates.includes(String(input.state))) problems.push(`status state ${String(input.state)}`);
    const key = `${status[1]}/${status[2]}/${status[3]}`;
    const created: StandInStatus = { id: nextId++, state: String(input.state), context: input.context ?? '', description: input.description ?? '', target_url: input.target_url ?? '', created_at: new Date().toISOString() };
    statuses.set(key, [created, ...(statuses.get(key) ?? [])]);
    send(201, created);
    return true;
  };
  const listOrCreateComment = (method: string, path: string, parsed: unknown, send: Send): boolean => {
    const list = /^\/api\/v1\/repos\/([^/]+)\/([^/]+)\/issues\/(\d+)\/comments$/.exec(path);
    if (!list || (method !== 'GET' && method !== 'POST')) return false;
    const thread = comments.get(`${list[1]}/${list[2]}/${list[3]}`);
    if (!thread) send(404, { message: 'issue does not exist' });
    else if (method === 'GET') send(200, thread);
    else {
      check('CreateIssueCommentOption', parsed, problems);
      const created = { id: nextId++, body: String((parsed as { body?: unknown }).body), user: { login: 'tidemark-bot' } };
      thread.push(created);
      send(201, created);
    }
    return true;
  };
  const editComment = (path: string, parsed: unknown, send: Send): boolean => {
    const one = /^\/api\/v1\/repos\/([^/]+)\/([^/]+)\/issues\/comments\/(\d+)$/.exec(path);
    if (!one) return false;
    check('EditIssueCommentOption', parsed, problems);
    const found = [...comments.entries()].filter(([key]) => key.startsWith(`${one[1]}/${one[2]}/`)).flatMap(([, thread]) => thread).find((entry) => entry.id === Number(one[3]));
    if (!found) send(404, { message: 'comment does not exist' });
    else {
      found.body = String((parsed as { body?: unknown }).body);
      send(200, found);
    }
    return true;
  };
  const handle = (request: IncomingMessage, body: string, response: ServerResponse) => {
    const path = new URL(request.url ?? '/', 'http://stand-in').pathname;
    const send: Send = (status, value) => response.writeHead(status, { 'content-type': 'application/json' }).end(value === undefined ? '' : JSON.stringify(value));
    if (request.headers.authorization !== `token ${token}`) return send(401, { message: 'token is required' });
    const parsed = body ? parseJson(body) : undefined;
    const method = request.method ?? 'GET';
    if (method === 'POST' && postStatus(path, parsed, send)) return;
    if (listOrCreateComment(method, path, parsed, send)) return;
    if (method === 'PATCH' && editComment(path, parsed, send)) return;
    problems.push(`${method} ${path} is not an operation Tidemark should call`);
    send(404, { message: 'not found' });
  };
  const server: Server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString()));
    request.on('end', () => {
      // A held request whose client gave up (its timeout) is dropped, as a host that never read it.
      if (held) held.push(() => { if (!response.destroyed && !request.socket.destroyed) handle(request, body, response); });
      else handle(request, body, response);
    });
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const apiUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/v1`;
  return {
    apiUrl, token, problems,
    statusesOf: (owner, repo, sha) => statuses.get(`${owner}/${repo}/${sha}`) ?? [],
    commentsOf: (owner, repo, number) => comments.get(`${owner}/${repo}/${number}`) ?? [],
    openPullRequest: (owner, repo, number) => void comments.set(`${owner}/${repo}/${number}`, []),
    pause: () => { held ??= []; },
    resume: () => {
      const waiting = held ?? [];
      held = undefined;
      for (const answer of waiting) answer();
    },
    async stop() {
      const waiting = held ?? [];
      held = undefined;
      for (const answer of waiting) answer();
      server.closeAllConnections();
      await new Promise<void>((done) => server.close(() => done()));
    },
  };
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** check lists how a body breaks one of Gitea's option schemas: missing required fields, unknown fields, wrong types. */
function check(definition: string, body: unknown, problems: string[]): void {
  const schema = spec.definitions[definition]!;
  if (!body || typeof body !== 'object') {
    problems.push(`${definition}: the body is not a JSON object`);
    return;
  }
  for (const field of schema.required ?? []) if (!(field in body)) problems.push(`${definition}: ${field} is required`);
  for (const [field, value] of Object.entries(body)) {
    const declared = schema.properties[field];
    if (!declared) problems.push(`${definition}: unknown field ${field}`);
    else if (typeof value !== declared.type) problems.push(`${definition}: ${field} is not a ${declared.type}`);
  }
}
