// The log endpoint's hostile answers, from a loopback HTTP server standing in for the API server
// (stand-in: the rig's KWOK pods have no kubelet, so the real API server has no log to send).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { ClusterConnection } from './connection';
import { readPodLog } from './pod-log';

let server: http.Server;
let connection: ClusterConnection;
const asked: string[] = [];

beforeAll(async () => {
  server = http.createServer((request, response) => {
    asked.push(request.url ?? '');
    if (request.url?.includes('/pods/endless/')) {
      // Ignores limitBytes and never ends on its own.
      response.writeHead(200, { 'content-type': 'text/plain' });
      const line = `${'x'.repeat(1023)}\n`;
      const timer = setInterval(() => response.write(line), 1);
      response.on('close', () => clearInterval(timer));
      return;
    }
    response.writeHead(404, { 'content-type': 'application/json' });
    response.end(JSON.stringify({ kind: 'Status', message: 'pods "gone" not found', reason: 'NotFound', code: 404 }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const kubeconfig = JSON.stringify({
    apiVersion: 'v1', kind: 'Config', 'current-context': 'c',
    clusters: [{ name: 'c', cluster: { server: `http://127.0.0.1:${port}`, 'insecure-skip-tls-verify': true } }], users: [{ name: 'u', user: {} }], contexts: [{ name: 'c', context: { cluster: 'c', user: 'u' } }],
  });
  connection = ClusterConnection.connect({ cluster: 'logs', kubeconfig });
});
afterAll(async () => {
  connection.close();
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

describe('readPodLog', () => {
  it('asks for the tail only, and reads no more than its bound from a server that ignores it', async () => {
    const text = await readPodLog(connection, 'app', 'endless', { container: 'main', tailLines: 5, limitBytes: 4096 });
    expect(text.length).toBeLessThanOrEqual(4096);
    expect(asked.at(-1)).toMatch(/^\/api\/v1\/namespaces\/app\/pods\/endless\/log\?(.*&)?tailLines=5/);
    expect(asked.at(-1)).toContain('limitBytes=4096');
  });

  it('names the pod when the API server refuses', async () => {
    await expect(readPodLog(connection, 'app', 'gone', { container: 'main' })).rejects.toThrow(/app\/gone \(main\)/);
  });
});
