// Hole 2: a kubeconfig must not run a command in the reconciler, nor make it read and send one
// of its own files. Whoever can write a kubeconfigSecret controls the kubeconfig's content.
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { stringify } from 'yaml';
import { applyObject, ClusterConnection, deleteObject, getObject } from '@tidemark/cluster';
import { connectClusters } from '../../apps/reconciler/src/clusters';
import { loadConfig } from '../../apps/reconciler/src/config';

const namespace = `kubeconfig-${randomUUID().slice(0, 8)}`;
let dir: string;
let admin: ClusterConnection;
let listener: Server;
let listenerUrl: string;
/** Authorization headers a hostile API server received: what the kubeconfig made the reconciler send. */
const received: string[] = [];

function kubeconfig(user: Record<string, unknown>, cluster: Record<string, unknown> = {}): string {
  return stringify({
    apiVersion: 'v1', kind: 'Config', 'current-context': 'x',
    clusters: [{ name: 'x', cluster: { server: listenerUrl, 'insecure-skip-tls-verify': true, ...cluster } }],
    contexts: [{ name: 'x', context: { cluster: 'x', user: 'x' } }],
    users: [{ name: 'x', user }],
  });
}

/** connectThroughSecret registers cluster `edge` from a Secret and, if that is accepted, sends one request. */
async function connectThroughSecret(name: string, text: string): Promise<void> {
  await applyObject(admin, { apiVersion: 'v1', kind: 'Secret', metadata: { name, namespace }, data: { kubeconfig: Buffer.from(text).toString('base64') } });
  const path = join(dir, `${name}.yaml`);
  await writeFile(path, stringify({
    redis: { url: 'redis://127.0.0.1:1' }, sources: [{ name: 's', url: 'http://127.0.0.1:1/r.git', ref: { branch: 'main' }, intervalMs: 60_000 }],
    clusters: [{ name: 'mgmt', kubeconfig: inject('kubeconfigPath') }, { name: 'edge', kubeconfigSecret: { cluster: 'mgmt', namespace, name } }],
  }));
  const clusters = await connectClusters(loadConfig({ TIDEMARK_CONFIG: path }).clusters);
  try {
    await getObject(clusters.main.get('edge')!, { apiVersion: 'v1', kind: 'Namespace', name: 'default' }).catch(() => undefined);
  } finally {
    clusters.close();
  }
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'tidemark-kubeconfig-'));
  admin = ClusterConnection.connect({ cluster: 'mgmt', kubeconfig: inject('kubeconfig') });
  await applyObject(admin, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } });
  listener = createServer((request, response) => {
    received.push(request.headers.authorization ?? '');
    response.writeHead(404, { 'Content-Type': 'application/json' }).end('{"kind":"Status","code":404}');
  });
  await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
  listenerUrl = `http://127.0.0.1:${(listener.address() as AddressInfo).port}`;
});
afterAll(async () => {
  listener?.close();
  await deleteObject(admin, { group: '', kind: 'Namespace', namespace: '', name: namespace }).catch(() => undefined);
  admin?.close();
  await rm(dir, { recursive: true, force: true });
});

describe('kubeconfig from a Secret', () => {
  it('refuses a legacy gcp auth-provider whose cmd-path is a shell, and the command never runs', async () => {
    const marker = join(dir, 'gcp-ran');
    const text = kubeconfig({ 'auth-provider': { name: 'gcp', config: {
      'cmd-path': '/bin/sh', 'cmd-args': `-c 'touch ${marker}; echo {}'`, 'access-token': 'stale', expiry: '2000-01-01T00:00:00Z',
      'token-key': '{.token}', 'expiry-key': '{.expiry}',
    } } });
    await expect(connectThroughSecret('gcp', text)).rejects.toThrow(/cluster edge: kubeconfigSecret .* on cluster mgmt: users\[x\]\.auth-provider \(gcp\) is a legacy authenticator that can run a command .* refused unless allowExecPlugins is set/);
    expect(existsSync(marker)).toBe(false);
  });

  it('refuses an azure auth-provider the same way', async () => {
    const marker = join(dir, 'azure-ran');
    const text = kubeconfig({ 'auth-provider': { name: 'azure', config: {
      'cmd-path': '/bin/sh', 'cmd-args': `-c 'touch ${marker}; echo {}'`, 'access-token': 'stale', expiry: '2000-01-01T00:00:00Z',
      'token-key': '{.token}', 'expiry-key': '{.expiry}',
    } } });
    await expect(connectThroughSecret('azure', text)).rejects.toThrow(/users\[x\]\.auth-provider \(azure\)/);
    expect(existsSync(marker)).toBe(false);
  });

  it('refuses an auth-provider named tokenFile whose config.exec client-node would run, and the command never runs', async () => {
    // Issue 34, item 1: ExecAuth runs auth-provider.config.exec whatever the provider is called.
    const marker = join(dir, 'token-file-exec-ran');
    const text = kubeconfig({ 'auth-provider': { name: 'tokenFile', config: {
      exec: { apiVersion: 'client.authentication.k8s.io/v1', command: '/bin/sh', args: ['-c', `touch ${marker}; echo '{"status":{"token":"stolen"}}'`] },
    } } });
    await expect(connectThroughSecret('token-file-exec', text)).rejects.toThrow(/users\[x\]\.auth-provider \(tokenFile\) is a legacy authenticator that can run a command .* refused unless allowExecPlugins is set/);
    expect(existsSync(marker)).toBe(false);
    expect(received).not.toContain('Bearer stolen');
  });

  it('refuses an exec plugin', async () => {
    const marker = join(dir, 'exec-ran');
    const text = kubeconfig({ exec: { apiVersion: 'client.authentication.k8s.io/v1', command: '/bin/sh', args: ['-c', `touch ${marker}`] } });
    await expect(connectThroughSecret('exec', text)).rejects.toThrow(/users\[x\]\.exec runs a credential plugin \(\/bin\/sh\)/);
    expect(existsSync(marker)).toBe(false);
  });

  it('refuses token-file and tokenFile, so the reconciler never sends one of its own files', async () => {
    const canary = join(dir, 'own-token');
    await writeFile(canary, `canary-${randomUUID()}`);
    await expect(connectThroughSecret('token-file', kubeconfig({ 'token-file': canary }))).rejects.toThrow(/users\[x\]\.token-file names a file on the reconciler's disk/);
    await expect(connectThroughSecret('provider-file', kubeconfig({ 'auth-provider': { name: 'custom', config: { tokenFile: canary } } })))
      .rejects.toThrow(/users\[x\]\.auth-provider\.config\.tokenFile names a file/);
    await expect(connectThroughSecret('client-key', kubeconfig({ 'client-key': canary, 'client-certificate': canary }))).rejects.toThrow(/users\[x\]\.client-key|client-certificate names a file/);
    // Requests the hostile server saw carrying the file: 0.
    expect(received.filter((header) => header.includes('canary-'))).toEqual([]);
  });

  it('still accepts an inline token kubeconfig, and sends only that token', async () => {
    await connectThroughSecret('inline', kubeconfig({ token: 'inline-token' }));
    expect(received.at(-1)).toBe('Bearer inline-token');
  });
});
