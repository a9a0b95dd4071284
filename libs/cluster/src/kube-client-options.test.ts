import { afterEach, describe, expect, it, vi } from 'vitest';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import { stringify } from 'yaml';
import { KubeClient } from './kube-client';
import { credentialsAreInline } from './kubeconfig-guard';

// A loopback HTTP server standing in for the API server (stand-in: only headers matter here): it answers {} and keeps each request's Authorization header.
async function startServer(): Promise<{ url: string; seen: (string | undefined)[]; close: () => Promise<void> }> {
  const seen: (string | undefined)[] = [];
  const server = http.createServer((request, response) => {
    seen.push(request.headers.authorization);
    request.resume();
    response.setHeader('Content-Type', 'application/json');
    response.end('{}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, seen, close: () => new Promise((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }) };
}

function configWith(server: string, user: Record<string, unknown>, cluster: Record<string, unknown> = {}): KubeConfig {
  const config = new KubeConfig();
  config.loadFromString(stringify({
    apiVersion: 'v1', kind: 'Config', 'current-context': 'x',
    clusters: [{ name: 'x', cluster: { server, ...cluster } }],
    contexts: [{ name: 'x', context: { cluster: 'x', user: 'x' } }],
    users: [{ name: 'x', user }],
  }));
  return config;
}

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

describe('KubeClient request options', () => {
  it('reads a kubeconfig with inline credentials once, and sends the same headers every time', async () => {
    const server = await startServer();
    cleanups.push(server.close);
    const config = configWith(server.url, { token: 'inline-token' }, { 'insecure-skip-tls-verify': true });
    const applied = vi.spyOn(config, 'applyToHTTPSOptions');
    const client = new KubeClient({ cluster: 'edge', kubeconfig: config });
    cleanups.push(async () => client.close());
    for (let index = 0; index < 3; index += 1) await client.request({ method: 'GET', path: '/api', what: 'get /api' });
    expect(applied).toHaveBeenCalledTimes(1);
    expect(server.seen).toEqual(['Bearer inline-token', 'Bearer inline-token', 'Bearer inline-token']);
  });

  it('asks the kubeconfig again on every request when a credential lives in a file', async () => {
    const server = await startServer();
    cleanups.push(server.close);
    const directory = await mkdtemp(path.join(tmpdir(), 'kube-client-options-'));
    cleanups.push(() => rm(directory, { recursive: true, force: true }));
    const ca = path.join(directory, 'ca.crt');
    await writeFile(ca, 'not a real CA; http does not read it');
    const config = configWith(server.url, { token: 'inline-token' }, { 'certificate-authority': ca, 'insecure-skip-tls-verify': true });
    const applied = vi.spyOn(config, 'applyToHTTPSOptions');
    const client = new KubeClient({ cluster: 'edge', kubeconfig: config });
    cleanups.push(async () => client.close());
    for (let index = 0; index < 3; index += 1) await client.request({ method: 'GET', path: '/api', what: 'get /api' });
    expect(applied).toHaveBeenCalledTimes(3);
  });
});

describe('credentialsAreInline', () => {
  it.each([
    ['a token', { token: 't' }, {}, true],
    ['client certificate data', { 'client-certificate-data': 'Y2VydA==', 'client-key-data': 'a2V5' }, { 'certificate-authority-data': 'Y2E=' }, true],
    ['a username and password', { username: 'u', password: 'p' }, {}, true],
    ['a client certificate file', { 'client-certificate': '/etc/cert', 'client-key-data': 'a2V5' }, {}, false],
    ['a client key file', { 'client-certificate-data': 'Y2VydA==', 'client-key': '/etc/key' }, {}, false],
    ['a CA file', { token: 't' }, { 'certificate-authority': '/etc/ca' }, false],
    ['an auth-provider token file', { 'auth-provider': { name: 'tokenFile', config: { tokenFile: '/var/run/secrets/kubernetes.io/serviceaccount/token' } } }, {}, false],
    ['an exec plugin', { exec: { apiVersion: 'client.authentication.k8s.io/v1', command: '/bin/true' } }, {}, false],
  ])('%s: %s', (_name, user, cluster, inline) => {
    expect(credentialsAreInline(configWith('https://127.0.0.1:1', user, cluster))).toBe(inline);
  });
});
