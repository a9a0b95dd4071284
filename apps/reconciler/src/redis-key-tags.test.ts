import { describe, expect, it } from 'vitest';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { needsHashTag } from '@tidemark/queue';
import { loadConfig } from './config';
import { untaggedAgentsWarning } from './redis-key-tags';

async function withFile(lines: readonly string[], run: (path: string) => void): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'tidemark-key-tags-'));
  try {
    await writeFile(join(dir, 'tidemark.yaml'), lines.join('\n'));
    run(join(dir, 'tidemark.yaml'));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

const sources = 'sources: [{ name: app, url: "https://git.example.com/app.git", ref: { branch: main }, intervalMs: 60000 }]';

describe('loadConfig: redis.hashTag', () => {
  it('names keys per cluster on one server when asked, and not otherwise', async () => {
    await withFile(['redis: { url: redis://127.0.0.1:6379, hashTag: true }', sources, 'clusters: [{ name: hub, kubeconfig: hub.kubeconfig }, { name: edge-1, agent: true }]'], (path) => {
      expect(needsHashTag(loadConfig({ TIDEMARK_CONFIG: path }).redis)).toBe(true);
    });
    await withFile(['redis: { url: redis://127.0.0.1:6379 }', sources, 'clusters: [{ name: hub, kubeconfig: hub.kubeconfig }]'], (path) => {
      expect(needsHashTag(loadConfig({ TIDEMARK_CONFIG: path }).redis)).toBe(false);
    });
  });

  it('refuses an agent logged in as its own Redis user without it, naming the field and what to set', async () => {
    await withFile([sources, 'clusters: [{ name: edge-1, inCluster: true }]'], (path) => {
      const env = { TIDEMARK_CONFIG: path, TIDEMARK_ROLE: 'agent', TIDEMARK_REDIS_URL: 'rediss://agent-edge-1:s3cret@hub-redis:6380' };
      expect(() => loadConfig(env)).toThrow(`${path}: redis.hashTag: this agent logs in to Redis as its own user "agent-edge-1"`);
      expect(() => loadConfig(env)).toThrow(/set it here and in the hub's file/);
      expect(() => loadConfig(env)).not.toThrow(/s3cret/);
    });
  });

  it('refuses hashTag: false on a Redis Cluster, which always tags', async () => {
    await withFile(['redis: { cluster: { nodes: ["r-0:7000"] }, hashTag: false }', sources, 'clusters: [{ name: hub, kubeconfig: hub.kubeconfig }]'], (path) => {
      expect(() => loadConfig({ TIDEMARK_CONFIG: path })).toThrow(`${path}: redis.hashTag: a Redis Cluster always names keys with hash tags`);
    });
  });

  it('warns a hub whose agents share untagged keys', () => {
    expect(untaggedAgentsWarning([{ name: 'hub', agent: false }, { name: 'edge-1', agent: true }], false)).toMatch(/clusters edge-1 are served by agents, but without redis.hashTag/);
    expect(untaggedAgentsWarning([{ name: 'edge-1', agent: true }], true)).toBeUndefined();
    expect(untaggedAgentsWarning([{ name: 'hub', agent: false }], false)).toBeUndefined();
  });
});
