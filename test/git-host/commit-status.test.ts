// postCommitStatus against a real HTTP receiver on loopback, because retries need answers (503, 429
// with Retry-After) no real host can be made to give; gitea.test.ts runs the real Gitea. Each request
// is checked against the host's own published description (checkHostRequest, host-stand-in.ts):
// Gitea v1.26.0's (gitea-openapi-subset.json), GitHub's rest-api-description 2022-11-28
// (github-openapi-subset.json) and GitLab's openapi_v2.yaml (gitlab-openapi-subset.json): method,
// path, the token header, and the body's fields, types and enum.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { postCommitStatus, type GitHostTarget } from '@tidemark/git-host';
import { checkHostRequest, type StandInProvider } from './host-stand-in';

interface Received { method: string; path: string; headers: IncomingMessage['headers']; body: unknown }
type Responder = (received: Received) => { status: number; headers?: Record<string, string> };

const token = 'gitea-token-that-must-never-show';
const sha = 'c'.repeat(40);
let server: Server;
let apiUrl: string;
let received: Received[] = [];
let respond: Responder = () => ({ status: 201 });

/** problemsWith lists how a request breaks the provider's description of the operation it names. */
function problemsWith(provider: StandInProvider, request: Received): string[] {
  return checkHostRequest(provider, { method: request.method, url: request.path, headers: request.headers, body: request.body }, token);
}

beforeAll(async () => {
  server = createServer((request: IncomingMessage, response: ServerResponse) => {
    let text = '';
    request.on('data', (chunk: Buffer) => (text += chunk.toString()));
    request.on('end', () => {
      const entry = { method: request.method ?? '', path: request.url ?? '', headers: request.headers, body: JSON.parse(text || 'null') as unknown };
      received.push(entry);
      const { status, headers } = respond(entry);
      response.writeHead(status, { 'content-type': 'application/json', ...headers }).end('{}');
    });
  });
  await new Promise<void>((ready) => server.listen(0, '127.0.0.1', ready));
  apiUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise((closed) => server.close(closed));
});
beforeEach(() => {
  received = [];
  respond = () => ({ status: 201 });
});

const gitea = (): GitHostTarget => ({ provider: 'gitea', apiUrl: `${apiUrl}/api/v1`, repository: 'shop/deploy', token });
const status = { sha, state: 'pending' as const, context: 'tidemark/production', description: 'Applying on production', targetUrl: 'http://127.0.0.1:8080/objects' };

describe('postCommitStatus', () => {
  it('sends Gitea exactly what its OpenAPI description asks for', async () => {
    for (const state of ['pending', 'success', 'failure', 'error'] as const) {
      expect(await postCommitStatus(gitea(), { ...status, state })).toEqual({ ok: true, attempts: 1, status: 201 });
    }
    expect(received).toHaveLength(4);
    for (const request of received) expect(problemsWith('gitea', request)).toEqual([]);
    expect(received[0]).toMatchObject({ path: `/api/v1/repos/shop/deploy/statuses/${sha}`, body: { state: 'pending', context: 'tidemark/production', target_url: status.targetUrl } });
  });

  it('retries 5xx and 429 with backoff and the host\'s Retry-After, then succeeds', async () => {
    let calls = 0;
    respond = () => (++calls <= 2 ? { status: calls === 1 ? 503 : 429, headers: { 'retry-after': '0' } } : { status: 201 });
    expect(await postCommitStatus(gitea(), status, { baseDelayMs: 5, maxDelayMs: 20 })).toEqual({ ok: true, attempts: 3, status: 201 });
  });

  it('gives up on what a retry cannot fix, and on a host that stays down, without throwing or naming the token', async () => {
    respond = () => ({ status: 404 });
    const missing = await postCommitStatus(gitea(), status, { baseDelayMs: 5 });
    expect(missing).toEqual({ ok: false, attempts: 1, status: 404, error: 'the Git host answered HTTP 404' });
    respond = () => ({ status: 502 });
    const down = await postCommitStatus(gitea(), status, { attempts: 3, baseDelayMs: 5, maxDelayMs: 10 });
    expect(down).toMatchObject({ ok: false, attempts: 3, status: 502 });
    const unreachable = await postCommitStatus({ ...gitea(), apiUrl: 'http://127.0.0.1:1/api/v1' }, status, { attempts: 2, baseDelayMs: 5 });
    expect(unreachable.ok).toBe(false);
    expect(JSON.stringify([missing, down, unreachable])).not.toContain(token);
  });

  it('speaks GitHub (Bearer) and GitLab (PRIVATE-TOKEN, project path, failed)', async () => {
    await postCommitStatus({ provider: 'github', apiUrl, repository: 'shop/deploy', token }, { ...status, state: 'failure' });
    await postCommitStatus({ provider: 'gitlab', apiUrl: `${apiUrl}/api/v4`, repository: 'group/shop', token }, { ...status, state: 'failure' });
    expect(received[0]).toMatchObject({ path: `/repos/shop/deploy/statuses/${sha}`, headers: { authorization: `Bearer ${token}` }, body: { state: 'failure', context: 'tidemark/production' } });
    expect(received[1]).toMatchObject({ path: `/api/v4/projects/group%2Fshop/statuses/${sha}`, headers: { 'private-token': token }, body: { state: 'failed', name: 'tidemark/production' } });
    expect(problemsWith('github', received[0]!)).toEqual([]);
    expect(problemsWith('gitlab', received[1]!)).toEqual([]);
  });

  it('says superseded in each provider\'s word for "no verdict": Gitea warning, GitHub error, GitLab canceled', async () => {
    const superseded = { ...status, state: 'superseded' as const, description: 'Superseded by 2222222 before it was applied on production' };
    await postCommitStatus(gitea(), superseded);
    await postCommitStatus({ provider: 'github', apiUrl, repository: 'shop/deploy', token }, superseded);
    await postCommitStatus({ provider: 'gitlab', apiUrl: `${apiUrl}/api/v4`, repository: 'group/shop', token }, superseded);
    expect(received.map((request, index) => problemsWith((['gitea', 'github', 'gitlab'] as const)[index]!, request))).toEqual([[], [], []]);
    expect(received.map((request) => (request.body as { state: string }).state)).toEqual(['warning', 'error', 'canceled']);
  });

  it('refuses bad input before sending anything', async () => {
    expect(await postCommitStatus(gitea(), { ...status, sha: 'main' })).toMatchObject({ ok: false, attempts: 0, error: '"main" is not a commit id' });
    expect((await postCommitStatus({ ...gitea(), apiUrl: 'http://example.com' }, status)).error).toMatch(/https/);
    expect((await postCommitStatus({ ...gitea(), repository: '../x' }, status)).error).toMatch(/owner\/name/);
    expect(received).toEqual([]);
  });
});
