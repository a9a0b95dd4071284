import { createServer, type IncomingHttpHeaders, type RequestListener, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { getBounded, redirectTarget, type BoundedGet } from './chart-download';

const servers: Server[] = [];
afterEach(() => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    server.close();
  }
});

async function serve(handler: RequestListener): Promise<string> {
  const server = createServer(handler);
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

const download = (url: string): BoundedGet => ({
  url: new URL(url), credentials: { origin: new URL(url).origin, value: { username: 'bot', password: 'repo-password' } },
  maxBytes: 1024, tooLarge: 'ChartTooLarge', timeoutMs: 5_000, what: 'charts/web/Chart.yaml: dependency "web" 1.0.0',
});

async function read(get: BoundedGet): Promise<string> {
  const chunks: Uint8Array[] = [];
  await getBounded(get, (chunk) => { chunks.push(chunk); });
  return Buffer.concat(chunks).toString();
}

describe('getBounded redirects', () => {
  it('refuses a redirect to another loopback port, which is never reached', async () => {
    const reached: IncomingHttpHeaders[] = [];
    const internal = await serve((request, response) => {
      reached.push(request.headers);
      response.end('canary');
    });
    const repository = await serve((_request, response) => response.writeHead(302, { location: `${internal}/index.yaml` }).end());
    await expect(read(download(`${repository}/index.yaml`))).rejects.toMatchObject({ message: expect.stringMatching(/redirected to http:\/\/127\.0\.0\.1:\d+, which is refused/) });
    expect(reached).toEqual([]);
  });

  it('follows a redirect within the repository\'s origin, with its credentials', async () => {
    const seen: Array<string | undefined> = [];
    const repository = await serve((request, response) => {
      seen.push(request.headers.authorization);
      if (request.url === '/old/index.yaml') response.writeHead(301, { location: '/index.yaml' }).end();
      else response.end('apiVersion: v1\n');
    });
    expect(await read(download(`${repository}/old/index.yaml`))).toBe('apiVersion: v1\n');
    expect(seen).toHaveLength(2);
    expect(new Set(seen).size).toBe(1);
  });

  it('lets a redirect leave the origin only for https to a public host', () => {
    const get = download('https://charts.example/index.yaml');
    expect(redirectTarget(new URL('https://objects.githubusercontent.com/chart.tgz'), get).host).toBe('objects.githubusercontent.com');
    expect(redirectTarget(new URL('https://charts.example/other/index.yaml'), get).pathname).toBe('/other/index.yaml');
    for (const target of ['http://charts.example:80/x', 'http://mirror.example/x', 'https://127.0.0.1/x', 'https://localhost/x', 'https://169.254.169.254/latest/meta-data', 'https://10.1.2.3/x', 'https://192.168.0.1/x', 'https://172.20.0.1/x', 'https://[::1]/x', 'https://[fd00::1]/x', 'https://[::ffff:7f00:1]/x']) {
      expect(() => redirectTarget(new URL(target), get), target).toThrow(/which is refused/);
    }
  });
});
