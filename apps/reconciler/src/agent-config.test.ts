import { describe, expect, it } from 'vitest';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from './config';

async function withFile(lines: readonly string[], run: (path: string) => void): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'tidemark-agent-config-'));
  try {
    await writeFile(join(dir, 'tidemark.yaml'), lines.join('\n'));
    run(join(dir, 'tidemark.yaml'));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

const head = ['redis: { url: redis://127.0.0.1:6379 }', 'sources: [{ name: app, url: "https://git.example.com/app.git", ref: { branch: main }, intervalMs: 60000 }]'];

describe('loadConfig: clusters served by agents', () => {
  it('takes agent: true with no credential on the hub, and a heartbeat TTL', async () => {
    await withFile([...head, 'clusters: [{ name: hub, kubeconfig: hub.kubeconfig }, { name: edge-1, agent: true, labels: { site: edge } }]', 'agents: { heartbeatTtlMs: 1500 }'], (path) => {
      const config = loadConfig({ TIDEMARK_CONFIG: path });
      expect(config.clusters.map((cluster) => [cluster.name, cluster.agent])).toEqual([['hub', false], ['edge-1', true]]);
      expect(config.clusters[1]).not.toHaveProperty('kubeconfigPath');
      expect(config.agents.heartbeatTtlMs).toBe(1500);
    });
    await withFile([...head, 'clusters: [{ name: hub, kubeconfig: hub.kubeconfig }]'], (path) => {
      expect(loadConfig({ TIDEMARK_CONFIG: path }).agents.heartbeatTtlMs).toBe(30_000);
    });
  });

  it('refuses a credential for an agent-served cluster, naming the field', async () => {
    for (const way of ['kubeconfig: edge.kubeconfig', 'inCluster: true', 'kubeconfigSecret: { cluster: hub, namespace: a, name: b }']) {
      await withFile([...head, `clusters: [{ name: hub, kubeconfig: hub.kubeconfig }, { name: edge-1, agent: true, ${way} }]`], (path) => {
        expect(() => loadConfig({ TIDEMARK_CONFIG: path })).toThrow(`${path}: clusters[1]: a cluster served by an agent (agent: true) has no kubeconfig, inCluster or kubeconfigSecret`);
      });
    }
  });

  it('never reads Source objects or certificates through an agent-served cluster', async () => {
    await withFile([...head, 'clusters: [{ name: edge-1, agent: true }, { name: hub, kubeconfig: hub.kubeconfig }]', 'sourceObjects: { enabled: true, namespaces: [a] }'], (path) => {
      expect(loadConfig({ TIDEMARK_CONFIG: path }).sourceObjects.cluster).toBe('hub');
    });
    await withFile([...head, 'clusters: [{ name: edge-1, agent: true }, { name: hub, kubeconfig: hub.kubeconfig }]', 'sourceObjects: { cluster: edge-1 }'], (path) => {
      expect(() => loadConfig({ TIDEMARK_CONFIG: path })).toThrow(`${path}: sourceObjects.cluster: no cluster is named "edge-1"`);
    });
    await withFile([...head, 'clusters: [{ name: edge-1, agent: true }, { name: hub, kubeconfig: hub.kubeconfig }]', 'conversionWebhook: { secret: { cluster: edge-1, namespace: t } }'], (path) => {
      expect(() => loadConfig({ TIDEMARK_CONFIG: path })).toThrow(`${path}: conversionWebhook.secret.cluster: no cluster is named "edge-1"`);
    });
  });

  it('runs an agent on exactly the one cluster it is in, with its own credentials', async () => {
    await withFile([...head, 'clusters: [{ name: edge-1, inCluster: true, labels: { site: edge } }]'], (path) => {
      expect(loadConfig({ TIDEMARK_CONFIG: path, TIDEMARK_ROLE: 'agent' })).toMatchObject({ role: 'agent', clusters: [{ name: 'edge-1', inCluster: true, agent: false }] });
    });
    await withFile([...head, 'clusters: [{ name: edge-1, inCluster: true }, { name: edge-2, kubeconfig: e.kubeconfig }]'], (path) => {
      expect(() => loadConfig({ TIDEMARK_CONFIG: path, TIDEMARK_ROLE: 'agent' })).toThrow(`${path}: clusters: an agent (TIDEMARK_ROLE=agent) serves one cluster; list only the cluster it runs in, not 2`);
    });
    await withFile([...head, 'clusters: [{ name: edge-1, agent: true }]'], (path) => {
      expect(() => loadConfig({ TIDEMARK_CONFIG: path, TIDEMARK_ROLE: 'agent' })).toThrow(`${path}: clusters[0].agent: the agent's own file gives its cluster's credentials`);
    });
    await withFile([...head, 'clusters: [{ name: edge-1, inCluster: true }]', 'sourceObjects: { enabled: true, namespaces: [a] }'], (path) => {
      expect(() => loadConfig({ TIDEMARK_CONFIG: path, TIDEMARK_ROLE: 'agent' })).toThrow(`${path}: sourceObjects.enabled: an agent reads the sources of its file`);
    });
    await withFile([...head, 'clusters: [{ name: edge-1, inCluster: true }]'], (path) => {
      expect(() => loadConfig({ TIDEMARK_CONFIG: path, TIDEMARK_ROLE: 'Agent' })).toThrow('TIDEMARK_ROLE: "Agent" is not one of all, poller, worker, agent');
    });
  });
});
