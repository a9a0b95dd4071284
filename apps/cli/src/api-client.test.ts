import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { ApiClient, refusePlainHttp } from './api-client';

describe('ApiClient', () => {
  it('refuses to send its token over plain http to a server that is not on this machine', async () => {
    const client = new ApiClient({ config: { server: 'http://10.0.0.1:8080', token: 'secret-token-0123456789', tokenFrom: 'TIDEMARK_TOKEN' }, timeoutMs: 2_000 });
    await expect(client.get('/sources')).rejects.toMatchObject({ code: 'InsecureServer', message: expect.stringContaining('http://10.0.0.1:8080 is plain http') });
    for (const server of ['http://dash.example', 'http://[::2]:80', 'http://127.example']) expect(() => refusePlainHttp(server)).toThrow(/plain http/);
    for (const server of ['https://dash.example', 'http://127.0.0.1:8080', 'http://localhost:8080', 'http://[::1]:8080', 'http://127.1.2.3']) expect(() => refusePlainHttp(server)).not.toThrow();
  });

  it('sends it over http to loopback', async () => {
    const seen: IncomingHttpHeaders[] = [];
    const server = createServer((request, response) => {
      seen.push(request.headers);
      response.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const client = new ApiClient({ config: { server: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, token: 'secret-token-0123456789' } });
      expect(await client.get('/sources')).toEqual({ ok: true });
      expect(seen[0]?.authorization).toBe('Bearer secret-token-0123456789');
    } finally {
      server.close();
    }
  });
});
