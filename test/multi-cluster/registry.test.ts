// The cluster registry: kubeconfig files, kubeconfigs kept in a Secret, and exec plugins refused.
import { describe, expect, inject, it } from 'vitest';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { stringify } from 'yaml';
import { applyObject, ClusterConnection, getObject } from '@tidemark/cluster';
import { connectClusters } from '../../apps/reconciler/src/clusters';
import { ConfigError, loadConfig } from '../../apps/reconciler/src/config';

const execKubeconfig = stringify({
  apiVersion: 'v1', kind: 'Config', 'current-context': 'x',
  clusters: [{ name: 'x', cluster: { server: 'https://127.0.0.1:1' } }],
  contexts: [{ name: 'x', context: { cluster: 'x', user: 'x' } }],
  users: [{ name: 'x', user: { exec: { apiVersion: 'client.authentication.k8s.io/v1', command: 'get-token' } } }],
});

async function withConfig(config: unknown, run: (path: string) => Promise<void>): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'tidemark-registry-'));
  try {
    await writeFile(join(dir, 'tidemark.yaml'), stringify(config));
    await run(join(dir, 'tidemark.yaml'));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

const base = { redis: { url: 'redis://127.0.0.1:1' }, sources: [{ name: 's', url: 'http://127.0.0.1:1/r.git', ref: { branch: 'main' }, intervalMs: 60_000 }] };

describe('cluster registry', () => {
  it('reads a cluster\'s kubeconfig from a Secret on the management cluster', async () => {
    const namespace = `registry-${randomUUID().slice(0, 8)}`;
    const admin = ClusterConnection.connect({ cluster: 'mgmt', kubeconfig: inject('kubeconfig') });
    await applyObject(admin, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } });
    await applyObject(admin, { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'edge-kubeconfig', namespace }, data: { kubeconfig: Buffer.from(inject('kubeconfig')).toString('base64') } });
    await withConfig({ ...base, clusters: [
      { name: 'mgmt', kubeconfig: inject('kubeconfigPath') },
      { name: 'edge', labels: { tier: 'edge' }, kubeconfigSecret: { cluster: 'mgmt', namespace, name: 'edge-kubeconfig' } },
    ] }, async (path) => {
      const clusters = await connectClusters(loadConfig({ TIDEMARK_CONFIG: path }).clusters);
      try {
        const edge = clusters.main.get('edge')!;
        expect((await getObject(edge, { apiVersion: 'v1', kind: 'Namespace', name: namespace }))?.metadata.name).toBe(namespace);
      } finally {
        clusters.close();
        admin.close();
      }
    });
  });

  it('names the Secret when it is missing, without showing any credential', async () => {
    await withConfig({ ...base, clusters: [
      { name: 'mgmt', kubeconfig: inject('kubeconfigPath') },
      { name: 'edge', kubeconfigSecret: { cluster: 'mgmt', namespace: 'nowhere', name: 'absent' } },
    ] }, async (path) => {
      await expect(connectClusters(loadConfig({ TIDEMARK_CONFIG: path }).clusters)).rejects.toThrow('cluster edge: kubeconfigSecret nowhere/absent key kubeconfig on cluster mgmt: the Secret or its key does not exist');
    });
  });

  it('refuses an exec-plugin kubeconfig unless the cluster allows it', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'tidemark-exec-'));
    await writeFile(join(dir, 'exec.kubeconfig'), execKubeconfig);
    try {
      await withConfig({ ...base, clusters: [{ name: 'cloud', kubeconfig: join(dir, 'exec.kubeconfig') }] }, async (path) => {
        await expect(connectClusters(loadConfig({ TIDEMARK_CONFIG: path }).clusters)).rejects.toThrow(/cluster cloud: users\[x\]\.exec runs a credential plugin \(get-token\), which is refused unless allowExecPlugins is set/);
      });
      await withConfig({ ...base, clusters: [{ name: 'cloud', kubeconfig: join(dir, 'exec.kubeconfig'), allowExecPlugins: true }] }, async (path) => {
        const clusters = await connectClusters(loadConfig({ TIDEMARK_CONFIG: path }).clusters);
        expect([...clusters.main.keys()]).toEqual(['cloud']);
        clusters.close();
      });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('refuses a cluster registered two ways at once', async () => {
    await withConfig({ ...base, clusters: [{ name: 'both', kubeconfig: 'a', inCluster: true }] }, async (path) => {
      expect(() => loadConfig({ TIDEMARK_CONFIG: path })).toThrow(ConfigError);
      expect(() => loadConfig({ TIDEMARK_CONFIG: path })).toThrow(/clusters\[0\]: set exactly one of kubeconfig \(a file path\), inCluster: true, or kubeconfigSecret/);
    });
  });
});
