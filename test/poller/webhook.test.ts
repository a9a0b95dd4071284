// The webhook receiver over real HTTP: each provider's signature, every refusal, and the triggers it causes.
import { createHmac } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import Fastify, { type FastifyInstance } from 'fastify';
import { registerWebhookRoutes } from '@tidemark/poller';

const secret = 'webhook-secret-for-tests';
const pushBody = JSON.stringify({ ref: 'refs/heads/main', after: 'a'.repeat(40), repository: { full_name: 'org/apps' } });
const sign = (body: string, algorithm = 'sha256') => createHmac(algorithm, secret).update(body).digest('hex');

let app: FastifyInstance;
let baseUrl: string;
const pushes: string[] = [];
const announcements: unknown[] = [];
const previews: Array<{ source: string; ref: string; revision?: string; pullRequest?: { number: number } }> = [];

async function deliver(source: string, headers: Record<string, string>, body = pushBody): Promise<{ status: number; code: string }> {
  const response = await fetch(`${baseUrl}/hooks/${source}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });
  const json = (await response.json()) as { code: string };
  return { status: response.status, code: json.code };
}

beforeAll(async () => {
  app = Fastify();
  await registerWebhookRoutes(app, {
    hooks: [
      { source: 'gh', provider: 'github', secret },
      { source: 'gitea', provider: 'gitea', secret },
      { source: 'gogs', provider: 'gogs', secret },
      { source: 'gl', provider: 'gitlab', secret },
      { source: 'plain', provider: 'generic', secret },
    ],
    onPush: (source, _span, announced) => {
      pushes.push(source);
      announcements.push(announced);
    },
    onPreview: (source, request) => {
      previews.push({ source, ...request });
    },
    bodyLimitBytes: 64 * 1024,
    bodyTimeoutMs: 500,
  });
  baseUrl = await app.listen({ host: '127.0.0.1', port: 0 });
});

afterAll(async () => {
  await app?.close();
});

beforeEach(() => {
  pushes.length = 0;
  announcements.length = 0;
  previews.length = 0;
});

describe('webhook receiver', () => {
  it('a signed pull request opened or updated queues a preview of its branch, and no poll', async () => {
    const body = JSON.stringify({ action: 'opened', number: 4, pull_request: { number: 4, title: 'More replicas', html_url: 'https://git.example/org/apps/pulls/4', head: { ref: 'more', sha: 'b'.repeat(40) } } });
    expect(await deliver('gitea', { 'x-gitea-signature': sign(body), 'x-gitea-event': 'pull_request' }, body)).toEqual({ status: 202, code: 'WebhookPreviewQueued' });
    expect(previews).toEqual([{ source: 'gitea', ref: 'more', revision: 'b'.repeat(40), pullRequest: { number: 4, title: 'More replicas', url: 'https://git.example/org/apps/pulls/4' } }]);
    expect(pushes).toEqual([]);
    const closed = JSON.stringify({ action: 'closed', number: 4, pull_request: { number: 4, head: { ref: 'more', sha: 'b'.repeat(40) } } });
    expect(await deliver('gh', { 'x-hub-signature-256': `sha256=${sign(closed)}`, 'x-github-event': 'pull_request' }, closed)).toEqual({ status: 200, code: 'WebhookIgnored' });
    expect(previews).toHaveLength(1);
  });

  it('a push polls the source and offers its branch for a preview', async () => {
    expect(await deliver('gh', { 'x-hub-signature-256': `sha256=${sign(pushBody)}`, 'x-github-event': 'push' })).toEqual({ status: 202, code: 'WebhookPollTriggered' });
    expect(pushes).toEqual(['gh']);
    expect(previews).toEqual([{ source: 'gh', ref: 'main', revision: 'a'.repeat(40) }]);
  });

  it('hands on the branch and commit a push names, and nothing for a tag, a deletion or a commit id of the wrong shape', async () => {
    expect(await deliver('gh', { 'x-hub-signature-256': `sha256=${sign(pushBody)}`, 'x-github-event': 'push' })).toEqual({ status: 202, code: 'WebhookPollTriggered' });
    const bodies = [
      { ref: 'refs/tags/v1', after: 'b'.repeat(40) },
      { ref: 'refs/heads/main', after: '0'.repeat(40) },
      { ref: 'refs/heads/main', after: 'B'.repeat(40) },
      { ref: 'refs/heads/main', after: `${'c'.repeat(40)}\n` },
      { ref: 'refs/heads/main', after: ['d'.repeat(40)] },
    ].map((body) => JSON.stringify(body));
    for (const body of bodies) expect((await deliver('gh', { 'x-hub-signature-256': `sha256=${sign(body)}`, 'x-github-event': 'push' }, body)).status).toBe(202);
    expect(announcements).toEqual([{ branch: 'main', revision: 'a'.repeat(40) }, undefined, undefined, undefined, undefined, undefined]);
  });

  it.each([
    ['gh', { 'x-hub-signature-256': `sha256=${sign(pushBody)}`, 'x-github-event': 'push' }],
    ['gitea', { 'x-gitea-signature': sign(pushBody), 'x-gitea-event': 'push' }],
    ['gogs', { 'x-gogs-signature': sign(pushBody), 'x-gogs-event': 'push' }],
    ['gl', { 'x-gitlab-token': secret, 'x-gitlab-event': 'Push Hook' }],
    ['plain', { 'x-tidemark-signature': `sha256=${sign(pushBody)}` }],
  ])('a valid push to %s triggers exactly one poll of that source', async (source, headers) => {
    expect(await deliver(source, headers)).toEqual({ status: 202, code: 'WebhookPollTriggered' });
    expect(pushes).toEqual([source]);
  });

  it.each([
    ['a mutated body', { 'x-hub-signature-256': `sha256=${sign(pushBody)}`, 'x-github-event': 'push' }, pushBody.replace('main', 'evil'), 'WebhookSignatureInvalid'],
    ['a mutated signature', { 'x-hub-signature-256': `sha256=${sign(`${pushBody} `)}`, 'x-github-event': 'push' }, pushBody, 'WebhookSignatureInvalid'],
    ['no signature', { 'x-github-event': 'push' }, pushBody, 'WebhookSignatureMissing'],
    ['a SHA-1-only signature', { 'x-hub-signature': `sha1=${sign(pushBody, 'sha1')}`, 'x-github-event': 'push' }, pushBody, 'WebhookSha1Refused'],
  ])('refuses %s with 401 and triggers nothing', async (_name, headers, body, code) => {
    expect(await deliver('gh', headers, body)).toEqual({ status: 401, code });
    expect(pushes).toEqual([]);
  });

  it('refuses an unknown source with 401, like a bad signature', async () => {
    expect(await deliver('nope', { 'x-hub-signature-256': `sha256=${sign(pushBody)}`, 'x-github-event': 'push' })).toEqual({ status: 401, code: 'WebhookSignatureInvalid' });
    expect(pushes).toEqual([]);
  });

  it('answers a signed non-push event or a non-JSON body with 400, a ping with 200, and triggers nothing', async () => {
    expect(await deliver('gh', { 'x-hub-signature-256': `sha256=${sign(pushBody)}`, 'x-github-event': 'issues' })).toEqual({ status: 400, code: 'WebhookNotAPush' });
    expect(await deliver('gh', { 'x-hub-signature-256': `sha256=${sign(pushBody)}`, 'x-github-event': 'ping' })).toEqual({ status: 200, code: 'WebhookPing' });
    expect(await deliver('plain', { 'x-tidemark-signature': `sha256=${sign('[1]')}` }, '[1]')).toEqual({ status: 400, code: 'WebhookBodyInvalid' });
    expect(pushes).toEqual([]);
  });

  it('refuses an oversized body with 413, whether declared or streamed', async () => {
    const big = JSON.stringify({ padding: 'x'.repeat(70 * 1024) });
    expect((await deliver('gh', { 'x-hub-signature-256': `sha256=${sign(big)}`, 'x-github-event': 'push' }, big)).status).toBe(413);
    const streamed = await rawRequest('/hooks/gh', { 'transfer-encoding': 'chunked', 'x-github-event': 'push' }, async (send) => {
      for (let chunk = 0; chunk < 20; chunk += 1) await send('y'.repeat(8 * 1024));
    });
    expect(streamed).toBe(413);
    expect(pushes).toEqual([]);
  });

  it('gives up on a body that arrives too slowly with 408', async () => {
    const status = await rawRequest('/hooks/gh', { 'content-length': '1000', 'x-github-event': 'push' }, async (send) => {
      await send('{');
      await new Promise((resolve) => setTimeout(resolve, 1_500));
    });
    expect(status).toBe(408);
    expect(pushes).toEqual([]);
  });
});

/** rawRequest sends a body in pieces, as a slow or large client would, and returns the status. */
function rawRequest(path: string, headers: Record<string, string>, write: (send: (text: string) => Promise<void>) => Promise<void>): Promise<number> {
  return new Promise((resolve, reject) => {
    const request = httpRequest(`${baseUrl}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers } }, (response) => {
      response.resume();
      resolve(response.statusCode ?? 0);
      request.destroy();
    });
    request.on('error', (error) => (request.destroyed ? undefined : reject(error)));
    const send = (text: string) => new Promise<void>((done) => (request.destroyed ? done() : request.write(text, () => done())));
    void write(send).then(() => (request.destroyed ? undefined : request.end()));
  });
}
