// The Helm chart's agent mode: rendered with Helm's own engine, the reconciler runs as an agent of
// the one cluster it is in (its ServiceAccount, the reconciler's RBAC), its tidemark.yaml loads with
// the app's own loader, and the hub's Redis address and the agent's ACL login come from a Secret only.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../apps/reconciler/src/config';
import { component, podSpecOf, type Container } from './policy';
import { renderHelm } from './render';

const agentValues = [
  'agent.enabled=true', 'agent.cluster.name=edge-1', 'agent.cluster.labels.site=edge', 'agent.heartbeatTtlMs=15000',
  'agent.redis.secret=hub-redis-login', 'agent.redis.port=6380', 'redis.enabled=false', 'dashboard.enabled=false',
];
/** The Secret's keys, standing in for what the kubelet would inject. */
const secretData: Record<string, string> = { address: 'hub-redis.example:6380', username: 'agent-edge-1', password: 'agentpassword1' };

type EnvEntry = { name: string; value?: string; valueFrom?: { secretKeyRef?: { name: string; key: string } } };

/** environmentOf is the container's environment as the kubelet gives it: Secret keys read, $(VAR) expanded. */
function environmentOf(container: Container): Record<string, string> {
  const environment: Record<string, string> = {};
  for (const entry of (container.env ?? []) as EnvEntry[]) {
    const ref = entry.valueFrom?.secretKeyRef;
    if (entry.value !== undefined) environment[entry.name] = entry.value.replace(/\$\((\w+)\)/g, (_, name: string) => environment[name] ?? '');
    else if (ref?.name === 'hub-redis-login' && secretData[ref.key]) environment[entry.name] = secretData[ref.key]!;
  }
  return environment;
}

describe('Helm agent mode', () => {
  it('runs one agent for its own cluster, in cluster, on the hub Redis with the ACL login from the Secret', async () => {
    const objects = await renderHelm({ set: agentValues });
    expect(objects.filter((object) => object.kind === 'Deployment').map((object) => object.metadata.name)).toEqual(['tidemark-reconciler']);
    expect(objects.some((object) => object.kind === 'ClusterRole' && object.metadata.name === 'tidemark-reconciler')).toBe(true);
    const container = podSpecOf(component(objects, 'Deployment', 'reconciler'))!.containers[0]!;
    const environment = environmentOf(container);
    expect(environment).toMatchObject({ TIDEMARK_ROLE: 'agent', TIDEMARK_REDIS_URL: 'rediss://agent-edge-1:agentpassword1@hub-redis.example:6380' });
    // The password is never in the rendered chart, only in the Secret.
    expect(JSON.stringify(objects)).not.toContain('agentpassword1');
    // Its NetworkPolicy lets it reach the hub Redis's port.
    const policy = component(objects, 'NetworkPolicy', 'reconciler').spec as { egress: { ports?: { port: number }[] }[] };
    expect(policy.egress.flatMap((rule) => (rule.ports ?? []).map((port) => port.port))).toContain(6380);
    const configMap = objects.find((object) => object.kind === 'ConfigMap' && object.metadata.name.endsWith('-reconciler-config'));
    const folder = await mkdtemp(join(tmpdir(), 'tidemark-agent-values-'));
    try {
      await writeFile(join(folder, 'tidemark.yaml'), (configMap?.data as Record<string, string>)['tidemark.yaml']!);
      const config = loadConfig(environment, join(folder, 'tidemark.yaml'));
      expect(config).toMatchObject({ role: 'agent', agents: { heartbeatTtlMs: 15_000 }, clusters: [{ name: 'edge-1', inCluster: true, labels: { site: 'edge' }, agent: false }] });
      expect(config.redis).toMatchObject({ url: 'rediss://agent-edge-1:agentpassword1@hub-redis.example:6380' });
      // Keys per cluster on any Redis, or the agent's ACL user could reach none (docs/agents.md#redis-on-one-server).
      expect(config.redis).toMatchObject({ hashTag: true });
    } finally {
      await rm(folder, { recursive: true, force: true });
    }
  }, 300_000);

  it('refuses agent mode without its cluster or Secret, or with a bundled Redis', async () => {
    await expect(renderHelm({ set: agentValues.filter((value) => !value.startsWith('agent.cluster.name')) })).rejects.toThrow(/agent\.cluster\.name: name the cluster this agent serves/);
    await expect(renderHelm({ set: agentValues.filter((value) => !value.startsWith('agent.redis.secret')) })).rejects.toThrow(/agent\.redis\.secret: name the Secret/);
    await expect(renderHelm({ set: agentValues.filter((value) => value !== 'redis.enabled=false') })).rejects.toThrow(/set redis\.enabled=false and dashboard\.enabled=false/);
  }, 300_000);

  it('mounts the hub Redis\'s CA from the agent\'s Secret when agent.redis.caKey names it', async () => {
    const objects = await renderHelm({ set: [...agentValues, 'agent.redis.caKey=ca.crt'] });
    const pod = podSpecOf(component(objects, 'Deployment', 'reconciler'))!;
    expect(environmentOf(pod.containers[0]!)).toMatchObject({ TIDEMARK_REDIS_TLS_CA_FILE: '/etc/tidemark/agent-redis/ca.crt' });
    expect(JSON.stringify(pod.volumes)).toContain('{"name":"agent-redis-ca","secret":{"secretName":"hub-redis-login","items":[{"key":"ca.crt","path":"ca.crt"}]}}');
  }, 300_000);
});
