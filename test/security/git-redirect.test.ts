// Issue 34, item 8: a Git redirect is not a way into other servers. A source whose server answers
// 302 to another loopback port must not reach it with its credentials, and nothing that port says
// may land in the poll's error (which is Source.status.lastError and the reconciler's log line).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer, request as httpRequest, type IncomingHttpHeaders, type RequestListener, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { GitSource, parseSourceSpec } from '@tidemark/git-source';
import { startGitServer, type GitServer } from '@tidemark/testing';

const canary = `canary-${randomUUID()}`;
const extraHeader = `X-Deploy-Token: token-${randomUUID()}`;
let git: GitServer;
let work: string;
const servers: Server[] = [];
const canaryRequests: IncomingHttpHeaders[] = [];
let canaryUrl: string;

async function serve(handler: RequestListener): Promise<string> {
  const server = createServer(handler);
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** pollOnce polls a source at `url` once, with an extraHeader credential, and returns the error's code and message. */
async function pollOnce(url: string): Promise<{ ok: boolean; code?: string; message?: string; objects?: number }> {
  const cacheDir = await mkdtemp(join(work, 'cache-'));
  const source = new GitSource({ spec: parseSourceSpec({ name: 'redirected', url, ref: { branch: 'main' }, intervalMs: 1000, auth: { extraHeader } }, 'test'), cacheDir });
  await source.open();
  try {
    const poll = await source.poll();
    return { ok: true, objects: poll.changes.length };
  } catch (error) {
    return { ok: false, code: (error as { code?: string }).code, message: (error as Error).message };
  } finally {
    await source.close();
  }
}

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'tidemark-redirect-'));
  git = await startGitServer();
  await git.createRepository('app');
  const copy = await git.workingCopy('app');
  await copy.write('settings.yaml', 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\n  namespace: default\ndata:\n  a: "1"\n');
  await copy.commitAndPush('settings');
  // The internal endpoint a tenant would like to read: it answers anything with the canary.
  canaryUrl = await serve((request, response) => {
    canaryRequests.push(request.headers);
    response.writeHead(200, { 'content-type': 'text/plain' }).end(canary);
  });
}, 120_000);

afterAll(async () => {
  for (const server of servers) {
    server.closeAllConnections();
    server.close();
  }
  await git?.stop();
  await rm(work, { recursive: true, force: true });
});

describe('Git redirects', () => {
  it('refuses a 302 to another loopback port: the canary is in no message and the credential goes nowhere', async () => {
    const redirecting = await serve((request, response) => response.writeHead(302, { location: `${canaryUrl}${request.url}` }).end());
    const outcome = await pollOnce(`${redirecting}/app.git`);
    expect(outcome).toMatchObject({ ok: false, code: 'GitRedirectRefused' });
    expect(outcome.message).toMatch(/the server answered HTTP 302 to another origin/);
    expect(outcome.message).not.toContain(canary);
    expect(canaryRequests).toEqual([]);
  });

  it('says "not a Git server" for a page that is not Git, without its body', async () => {
    const outcome = await pollOnce(`${canaryUrl}/app.git`);
    expect(outcome).toMatchObject({ ok: false, code: 'NotGitServer' });
    expect(outcome.message).toMatch(/not a Git server \(content-type text\/plain/);
    expect(outcome.message).not.toContain(canary);
  });

  it('follows a redirect within the origin to the real repository, with the credential', async () => {
    const upstream = new URL(git.baseUrl);
    const seen: Array<string | string[] | undefined> = [];
    // A front server that moved the repository: /old.git redirects (308: a POST stays a POST) to /app.git on itself, which it proxies to Git.
    const front = await serve((request, response) => {
      seen.push(request.headers['x-deploy-token']);
      if (request.url?.startsWith('/old.git/')) {
        response.writeHead(308, { location: request.url.replace('/old.git/', '/app.git/') }).end();
        return;
      }
      const proxied = httpRequest({ host: upstream.hostname, port: upstream.port, path: request.url, method: request.method, headers: request.headers }, (answer) => {
        response.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(response);
      });
      request.pipe(proxied);
    });
    const outcome = await pollOnce(`${front}/old.git`);
    expect(outcome).toMatchObject({ ok: true, objects: 1 });
    expect(seen.length).toBeGreaterThan(1);
    expect(seen.every((value) => value === extraHeader.split(': ')[1])).toBe(true);
  });
});
