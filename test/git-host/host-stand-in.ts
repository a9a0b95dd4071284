// A loopback stand-in for the part of each Git host's API Tidemark writes to: commit statuses and
// pull-request (merge-request) comments, kept in memory. It is not the host: Gitea itself runs in
// gitea.test.ts and webhook-preview-comment.test.ts; GitHub's and GitLab's APIs cannot be run here.
// Every request is checked (openapi-check.ts) against the host's own published description of these
// operations, copied unchanged beside this file, and whatever breaks it is listed in `problems`:
//   gitea   gitea-openapi-subset.json   Gitea v1.26.0, templates/swagger/v1_json.tmpl
//   github  github-openapi-subset.json  github/rest-api-description, api.github.com.2022-11-28.json @ 1e9ee98
//   gitlab  gitlab-openapi-subset.json     GitLab's doc/api/openapi/openapi_v2.yaml @ 38605be (commit statuses)
//           gitlab-openapi-v3-subset.json  GitLab's doc/api/openapi/openapi_v3.yaml @ 07fbd7a (merge-request
//           notes: list, create, update; they are not in openapi_v2.yaml)
// Where a description says nothing of the credentials, the header form the host documents is checked
// here instead: Gitea "Authorization: token <t>", GitHub "Authorization: Bearer <t>" (GitHub's description has
// no securitySchemes: github/rest-api-description#237). GitLab's PRIVATE-TOKEN header is openapi_v2.yaml's
// access_token_header; openapi_v3.yaml names only HTTP bearer and OAuth 2, which the checker does not read.
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ApiDescription, type Match } from './openapi-check';

export type StandInProvider = 'gitea' | 'github' | 'gitlab';
export interface StandInStatus { id: number; state: string; context: string; description: string; target_url: string; created_at: string }
export interface StandInComment { id: number; body: string; user: { login: string } }

export interface HostStandIn {
  provider: StandInProvider;
  /** The API root to give the client as `apiUrl`. */
  apiUrl: string;
  token: string;
  /** Requests that break the host's description, as sentences. */
  problems: string[];
  /** statusesOf lists a commit's statuses, newest first. `owner/repo` is GitLab's project path. */
  statusesOf(owner: string, repo: string, sha: string): StandInStatus[];
  /** commentsOf lists a pull request's comments, oldest first. */
  commentsOf(owner: string, repo: string, number: number): StandInComment[];
  /** openPullRequest makes a pull request (GitLab: merge request) that comments may be posted on. */
  openPullRequest(owner: string, repo: string, number: number): void;
  /** pause holds every request unanswered until resume, like a hung host. */
  pause(): void;
  resume(): void;
  stop(): Promise<void>;
}

type Verb = 'createStatus' | 'listComments' | 'createComment' | 'editComment';

/** HostShape: where a host's API lives, the operations Tidemark calls (by path template), and what its description leaves out. */
interface HostShape {
  prefix: string;
  descriptions: ApiDescription[];
  operations: Record<string, Verb>;
  /** The names of a pull request's number and a comment's id among the path parameters. */
  numberParameter: string;
  commentParameter: string;
  /** GitLab names a project by one path parameter (`id`, its path or number); Gitea and GitHub by owner and repo. */
  projectParameter?: string;
  statusAnswer: number;
  /** A page of comments: Gitea answers the whole list whatever the page; GitHub and GitLab page it. */
  pageSize?: number;
  /** The credentials a description does not describe, as the host documents them. */
  documentedAuthorization?: (token: string) => string;
  /** Query parameters the client sends that the host ignores (Gitea lists comments unpaged). */
  ignoreQuery?: string[];
}

const load = (file: string) => ApiDescription.load(new URL(`./${file}`, import.meta.url));

const shapeMakers: Record<StandInProvider, () => HostShape> = {
  gitea: () => ({
    prefix: '/api/v1', descriptions: [load('gitea-openapi-subset.json')], numberParameter: 'index', commentParameter: 'id', statusAnswer: 201,
    operations: { 'POST /repos/{owner}/{repo}/statuses/{sha}': 'createStatus', 'GET /repos/{owner}/{repo}/issues/{index}/comments': 'listComments', 'POST /repos/{owner}/{repo}/issues/{index}/comments': 'createComment', 'PATCH /repos/{owner}/{repo}/issues/comments/{id}': 'editComment' },
    documentedAuthorization: (token) => `token ${token}`, ignoreQuery: ['page', 'per_page'],
  }),
  github: () => ({
    prefix: '', descriptions: [load('github-openapi-subset.json')], numberParameter: 'issue_number', commentParameter: 'comment_id', statusAnswer: 201, pageSize: 30,
    operations: { 'POST /repos/{owner}/{repo}/statuses/{sha}': 'createStatus', 'GET /repos/{owner}/{repo}/issues/{issue_number}/comments': 'listComments', 'POST /repos/{owner}/{repo}/issues/{issue_number}/comments': 'createComment', 'PATCH /repos/{owner}/{repo}/issues/comments/{comment_id}': 'editComment' },
    documentedAuthorization: (token) => `Bearer ${token}`,
  }),
  gitlab: () => ({
    prefix: '', descriptions: [load('gitlab-openapi-subset.json'), load('gitlab-openapi-v3-subset.json')], numberParameter: 'noteable_id', commentParameter: 'note_id', projectParameter: 'id', statusAnswer: 200, pageSize: 20,
    operations: { 'POST /api/v4/projects/{id}/statuses/{sha}': 'createStatus', 'GET /api/v4/projects/{id}/merge_requests/{noteable_id}/notes': 'listComments', 'POST /api/v4/projects/{id}/merge_requests/{noteable_id}/notes': 'createComment', 'PUT /api/v4/projects/{id}/merge_requests/{noteable_id}/notes/{note_id}': 'editComment' },
  }),
};

const shapes = new Map<StandInProvider, HostShape>();
function shapeOf(provider: StandInProvider): HostShape {
  if (!shapes.has(provider)) shapes.set(provider, shapeMakers[provider]());
  return shapes.get(provider)!;
}

/** startHostStandIn listens on a loopback port and answers as `provider` does, checking every request against its description. */
export async function startHostStandIn(provider: StandInProvider, token: string): Promise<HostStandIn> {
  const shape = shapeOf(provider);
  const state = new HostState(shape);
  let held: (() => void)[] | undefined;
  const server: Server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString()));
    request.on('end', () => {
      const answer = () => answerRequest(shape, state, token, { request, body, response });
      // A held request whose client gave up (its timeout) is dropped, as a host that never read it.
      if (held) held.push(() => { if (!response.destroyed && !request.socket.destroyed) answer(); });
      else answer();
    });
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const release = () => {
    const waiting = held ?? [];
    held = undefined;
    for (const answer of waiting) answer();
  };
  return {
    provider, token, problems: state.problems,
    apiUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}${provider === 'gitlab' ? '/api/v4' : shape.prefix}`,
    statusesOf: (owner, repo, sha) => state.statuses.get(`${owner}/${repo}/${sha}`) ?? [],
    commentsOf: (owner, repo, number) => state.threads.get(`${owner}/${repo}/${number}`) ?? [],
    openPullRequest: (owner, repo, number) => void state.threads.set(`${owner}/${repo}/${number}`, []),
    pause: () => { held ??= []; },
    resume: release,
    async stop() {
      release();
      server.closeAllConnections();
      await new Promise<void>((done) => server.close(() => done()));
    },
  };
}

/** HostState is what the stand-in remembers: statuses by `owner/repo/sha`, comment threads by `owner/repo/number`. */
class HostState {
  readonly statuses = new Map<string, StandInStatus[]>();
  readonly threads = new Map<string, StandInComment[]>();
  readonly problems: string[] = [];
  private nextId = 1;

  constructor(private readonly shape: HostShape) {}

  newId(): number {
    return this.nextId++;
  }

  /** repositoryOf names a repository as the tests do: `owner/repo`, or GitLab's project path. */
  repositoryOf(match: Match): string {
    return this.shape.projectParameter ? match.pathValues[this.shape.projectParameter]! : `${match.pathValues.owner}/${match.pathValues.repo}`;
  }

  threadOf(match: Match): StandInComment[] | undefined {
    return this.threads.get(`${this.repositoryOf(match)}/${match.pathValues[this.shape.numberParameter]}`);
  }
}

interface Exchange { request: IncomingMessage; body: string; response: ServerResponse }
type Send = (status: number, value?: unknown) => void;

function answerRequest(shape: HostShape, state: HostState, token: string, { request, body, response }: Exchange): void {
  const send: Send = (status, value) => response.writeHead(status, { 'content-type': 'application/json' }).end(value === undefined ? '' : JSON.stringify(value));
  const authorization = shape.documentedAuthorization?.(token);
  if (authorization !== undefined && request.headers.authorization !== authorization) return send(401, { message: 'token is required' });
  if (authorization === undefined && request.headers['private-token'] !== token) return send(401, { message: '401 Unauthorized' });
  const parsed = body ? parseJson(body) : undefined;
  const checked = checkShape(shape, { method: request.method ?? 'GET', url: request.url ?? '/', headers: request.headers, body: parsed }, token);
  state.problems.push(...checked.problems);
  if (!checked.match || !checked.verb) return send(404, { message: 'not found' });
  verbs[checked.verb](state, checked.match, { parsed, url: new URL(request.url ?? '/', 'http://stand-in'), send, shape });
}

/** ReceivedRequest is a request as it reached a host: `url` is the path and query as sent. */
export interface ReceivedRequest { method: string; url: string; headers: IncomingHttpHeaders; body: unknown }

/** checkHostRequest lists how a request breaks `provider`'s description, and the documented header form where the description has none. */
export function checkHostRequest(provider: StandInProvider, request: ReceivedRequest, token: string): string[] {
  const shape = shapeOf(provider);
  const authorization = shape.documentedAuthorization?.(token);
  const problems = authorization !== undefined && request.headers.authorization !== authorization ? [`Authorization is not "${authorization.split(' ')[0]} <token>"`] : [];
  return [...problems, ...checkShape(shape, request, token).problems];
}

function checkShape(shape: HostShape, request: ReceivedRequest, token: string): { match?: Match; verb?: Verb; problems: string[] } {
  const url = new URL(request.url, 'http://stand-in');
  const path = url.pathname.startsWith(shape.prefix) ? url.pathname.slice(shape.prefix.length) : url.pathname;
  const checked = { method: request.method, path, query: url.searchParams, headers: request.headers, body: request.body };
  const options = { token, ...(shape.ignoreQuery ? { ignoreQuery: shape.ignoreQuery } : {}) };
  const found = shape.descriptions.map((description) => description.check(checked, options)).find((result) => result.match);
  const verb = found?.match ? shape.operations[`${found.match.method} ${found.match.template}`] : undefined;
  if (!found?.match || !verb) return { problems: [`${request.method} ${url.pathname} is not an operation Tidemark should call`] };
  return { match: found.match, verb, problems: found.problems };
}

interface Call { parsed: unknown; url: URL; send: Send; shape: HostShape }

const verbs: Record<Verb, (state: HostState, match: Match, call: Call) => void> = {
  createStatus(state, match, { parsed, send, shape }) {
    const input = (parsed ?? {}) as Partial<StandInStatus> & { name?: string };
    const key = `${state.repositoryOf(match)}/${match.pathValues.sha}`;
    const created: StandInStatus = { id: state.newId(), state: String(input.state), context: input.context ?? input.name ?? '', description: input.description ?? '', target_url: input.target_url ?? '', created_at: new Date().toISOString() };
    state.statuses.set(key, [created, ...(state.statuses.get(key) ?? [])]);
    send(shape.statusAnswer, created);
  },
  listComments(state, match, { url, send, shape }) {
    const thread = state.threadOf(match);
    if (!thread) return send(404, { message: 'issue does not exist' });
    if (!shape.pageSize) return send(200, thread);
    const perPage = Number(url.searchParams.get('per_page') ?? shape.pageSize);
    const page = Number(url.searchParams.get('page') ?? 1);
    send(200, thread.slice((page - 1) * perPage, page * perPage));
  },
  createComment(state, match, { parsed, send }) {
    const thread = state.threadOf(match);
    if (!thread) return send(404, { message: 'issue does not exist' });
    const created = { id: state.newId(), body: String((parsed as { body?: unknown } | undefined)?.body), user: { login: 'tidemark-bot' } };
    thread.push(created);
    send(201, created);
  },
  editComment(state, match, { parsed, send, shape }) {
    const repository = `${state.repositoryOf(match)}/`;
    const candidates = [...state.threads.entries()].filter(([key]) => key.startsWith(repository) && (!match.pathValues[shape.numberParameter] || key === `${repository}${match.pathValues[shape.numberParameter]}`));
    const found = candidates.flatMap(([, thread]) => thread).find((entry) => entry.id === Number(match.pathValues[shape.commentParameter]));
    if (!found) return send(404, { message: 'comment does not exist' });
    found.body = String((parsed as { body?: unknown } | undefined)?.body);
    send(200, found);
  },
};

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
