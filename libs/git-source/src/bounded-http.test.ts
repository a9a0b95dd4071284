import { createServer, type IncomingHttpHeaders, type RequestListener, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import type { GitHttpResponse } from 'isomorphic-git';
import { boundedHttp } from './bounded-http';

const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => new Promise((resolve) => {
    server.closeAllConnections();
    server.close(resolve);
  })));
});

async function serve(handler: RequestListener): Promise<string> {
  const server = createServer(handler);
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

async function text(response: GitHttpResponse): Promise<string> {
  const chunks: Uint8Array[] = [];
  for await (const chunk of response.body ?? []) chunks.push(chunk);
  return Buffer.concat(chunks).toString();
}

const advertisement = '001e# service=git-upload-pack\n0000';
const gitAnswer: RequestListener = (_request, response) => {
  response.writeHead(200, { 'content-type': 'application/x-git-upload-pack-advertisement' }).end(advertisement);
};
const secretHeaders = { authorization: 'Basic c2VjcmV0', 'x-extra-token': 'extra-secret' };

describe('boundedHttp', () => {
  it('follows a redirect within the origin, with its headers', async () => {
    const seen: IncomingHttpHeaders[] = [];
    const base = await serve((request, response) => {
      seen.push(request.headers);
      if (request.url?.startsWith('/old.git')) response.writeHead(302, { location: '/new.git/info/refs?service=git-upload-pack' }).end();
      else gitAnswer(request, response);
    });
    const response = await boundedHttp({ source: 'app' }).request({ url: `${base}/old.git/info/refs?service=git-upload-pack`, headers: secretHeaders });
    expect(await text(response)).toBe(advertisement);
    expect(seen.map((headers) => headers['x-extra-token'])).toEqual(['extra-secret', 'extra-secret']);
  });

  it('refuses a redirect to another origin, sending it nothing', async () => {
    const reached: string[] = [];
    const other = await serve((request, response) => {
      reached.push(request.url ?? '');
      response.end('canary-body');
    });
    const base = await serve((_request, response) => response.writeHead(302, { location: `${other}/info/refs?service=git-upload-pack` }).end());
    const request = boundedHttp({ source: 'app' }).request({ url: `${base}/app.git/info/refs?service=git-upload-pack`, headers: secretHeaders });
    await expect(request).rejects.toMatchObject({ code: 'GitRedirectRefused', message: expect.stringMatching(/^Source app: the server answered HTTP 302 to another origin/) });
    expect(reached).toEqual([]);
  });

  it('refuses a redirect from https to http on the same host', async () => {
    // The origin includes the scheme: an https URL redirected to http is another origin.
    const base = await serve((_request, response) => response.writeHead(301, { location: 'https://127.0.0.1:1/x.git/info/refs' }).end());
    await expect(boundedHttp({ source: 'app' }).request({ url: `${base}/x.git/info/refs?service=git-upload-pack` })).rejects.toMatchObject({ code: 'GitRedirectRefused' });
  });

  it('stops after a few redirects', async () => {
    let hops = 0;
    const base = await serve((_request, response) => {
      hops += 1;
      response.writeHead(302, { location: `/loop-${hops}.git/info/refs?service=git-upload-pack` }).end();
    });
    await expect(boundedHttp({ source: 'app' }).request({ url: `${base}/x.git/info/refs?service=git-upload-pack` })).rejects.toMatchObject({ message: /redirected more than 3 times/ });
    expect(hops).toBe(4);
  });

  it('says "not a Git server" without the body of an answer that is not Git', async () => {
    const base = await serve((_request, response) => response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end('<h1>canary-body</h1>'));
    const request = boundedHttp({ source: 'app' }).request({ url: `${base}/x.git/info/refs?service=git-upload-pack` });
    await expect(request).rejects.toMatchObject({ code: 'NotGitServer', message: expect.stringContaining('not a Git server (content-type text/html') });
    await expect(request).rejects.not.toMatchObject({ message: expect.stringContaining('canary') });
  });

  it('hands on an error status without the server\'s body or status text', async () => {
    const base = await serve((_request, response) => {
      response.statusMessage = 'canary-status';
      response.writeHead(404, { 'content-type': 'text/plain' }).end('canary-body');
    });
    const response = await boundedHttp({ source: 'app' }).request({ url: `${base}/x.git/info/refs?service=git-upload-pack` });
    expect(response.statusCode).toBe(404);
    expect(response.statusMessage).toBe('Not Found');
    expect(await text(response)).toBe('');
  });

  it('refuses a ref advertisement larger than its limit', async () => {
    const base = await serve((_request, response) => {
      response.writeHead(200, { 'content-type': 'application/x-git-upload-pack-advertisement' });
      response.end(Buffer.alloc(64 * 1024, 'a'));
    });
    const response = await boundedHttp({ source: 'app', maxAdvertisementBytes: 1024 }).request({ url: `${base}/x.git/info/refs?service=git-upload-pack` });
    await expect(text(response)).rejects.toMatchObject({ code: 'SourceTooLarge', message: /list of refs is more than/ });
  });

  it('ends a request whose server does not answer, and one whose body stalls', async () => {
    const silent = await serve(() => undefined);
    const started = performance.now();
    await expect(boundedHttp({ source: 'app', requestTimeoutMs: 300 }).request({ url: `${silent}/x.git/info/refs?service=git-upload-pack` }))
      .rejects.toMatchObject({ code: 'GitTimeout', message: /did not answer within 0\.3 s/ });
    expect(performance.now() - started).toBeLessThan(5_000);
    const stalling = await serve((_request, response) => {
      response.writeHead(200, { 'content-type': 'application/x-git-upload-pack-advertisement' });
      response.write('001e# service=git-upload-pack\n');
    });
    const response = await boundedHttp({ source: 'app', requestTimeoutMs: 300 }).request({ url: `${stalling}/x.git/info/refs?service=git-upload-pack` });
    await expect(text(response)).rejects.toMatchObject({ code: 'GitTimeout' });
  });
});
