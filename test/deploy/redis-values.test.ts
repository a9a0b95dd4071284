// The Helm chart's values for an external Redis Sentinel group or Redis Cluster: rendered with
// Helm's own engine, the reconciler's tidemark.yaml and the dashboard's environment are loaded by
// the apps' own config loaders and must name the same Redis, with the passwords from the Secret.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig as loadDashboardConfig } from '../../apps/dashboard/src/config';
import { loadConfig } from '../../apps/reconciler/src/config';
import { component, podSpecOf, type Container, type PodSpec } from './policy';
import { renderHelm, type Manifest } from './render';

/** The Secret `redis-login`'s keys, standing in for what the kubelet would inject. */
const secretData: Record<string, string> = { password: 'data-secret', 'sentinel-password': 'sentinel-secret' };

const sentinelValues = [
  'redis.enabled=false', 'redis.sentinel.name=mymaster',
  'redis.sentinel.nodes[0]=sentinel-0.sentinel:26379', 'redis.sentinel.nodes[1]=sentinel-1.sentinel:26379',
  'redis.auth.existingSecret=redis-login', 'redis.auth.username=tidemark', 'redis.auth.sentinelRequiresPassword=true',
];
const clusterValues = ['redis.enabled=false', 'redis.cluster.nodes[0]=redis-0.redis:7000', 'redis.cluster.nodes[1]=redis-1.redis:7001', 'redis.auth.existingSecret=redis-login'];

type EnvEntry = { name: string; value?: string; valueFrom?: { secretKeyRef?: { name: string; key: string } } };

/** environmentOf is a container's environment as the kubelet would give it, `redis-login` read from secretData. */
function environmentOf(container: Container): Record<string, string> {
  const entries = (container.env ?? []) as EnvEntry[];
  const environment: Record<string, string> = {};
  for (const entry of entries) {
    const ref = entry.valueFrom?.secretKeyRef;
    if (entry.value !== undefined) environment[entry.name] = entry.value;
    else if (ref?.name === 'redis-login' && secretData[ref.key]) environment[entry.name] = secretData[ref.key]!;
  }
  return environment;
}

/** loadBoth loads the rendered reconciler config and dashboard environment with the apps' own loaders. */
async function loadBoth(objects: Manifest[]): Promise<{ reconciler: ReturnType<typeof loadConfig>; dashboard: ReturnType<typeof loadDashboardConfig>; text: string }> {
  const reconcilerContainer = podSpecOf(component(objects, 'Deployment', 'reconciler'))!.containers[0]!;
  const dashboardContainer = podSpecOf(component(objects, 'Deployment', 'dashboard'))!.containers[0]!;
  const configMap = objects.find((object) => object.kind === 'ConfigMap' && object.metadata.name.endsWith('-reconciler-config'));
  const text = (configMap?.data as Record<string, string>)['tidemark.yaml']!;
  const folder = await mkdtemp(join(tmpdir(), 'tidemark-redis-values-'));
  try {
    await writeFile(join(folder, 'tidemark.yaml'), text);
    const tokensFile = join(folder, 'tokens.json');
    await writeFile(tokensFile, JSON.stringify([{ name: 'admin', role: 'operator', token: 'a-token-of-twenty-characters' }]));
    const reconciler = loadConfig(environmentOf(reconcilerContainer), join(folder, 'tidemark.yaml'));
    const dashboard = loadDashboardConfig({ ...environmentOf(dashboardContainer), TIDEMARK_DASHBOARD_TOKENS_FILE: tokensFile, TIDEMARK_DASHBOARD_SESSION_SECRET: 's'.repeat(32) });
    return { reconciler, dashboard, text };
  } finally {
    await rm(folder, { recursive: true, force: true });
  }
}

/** egressPorts lists the TCP ports a component's NetworkPolicy lets it open. */
function egressPorts(objects: Manifest[], name: string): number[] {
  const policy = component(objects, 'NetworkPolicy', name).spec as { egress: { ports?: { port: number }[] }[] };
  return policy.egress.flatMap((rule) => (rule.ports ?? []).map((port) => port.port));
}

describe('Helm values for an external Redis Sentinel group', () => {
  it('render one endpoint that the reconciler and the dashboard both load, passwords from the Secret only', async () => {
    const objects = await renderHelm({ set: sentinelValues });
    const { reconciler, dashboard, text } = await loadBoth(objects);
    const expected = {
      sentinel: {
        name: 'mymaster',
        nodes: [{ host: 'sentinel-0.sentinel', port: 26379 }, { host: 'sentinel-1.sentinel', port: 26379 }],
        auth: { username: 'tidemark', password: 'data-secret' },
        sentinelAuth: { password: 'sentinel-secret' },
      },
    };
    expect(reconciler.redis).toEqual(expected);
    expect(dashboard.redis).toEqual(expected);
    expect(text).not.toMatch(/secret/);
    expect(objects.some((object) => object.kind === 'StatefulSet' || object.metadata.name.endsWith('-redis-auth'))).toBe(false);
    for (const name of ['reconciler', 'dashboard']) expect(egressPorts(objects, name), name).toEqual(expect.arrayContaining([26379, 6379]));
  }, 600_000);
});

describe('Helm values for an external Redis Cluster', () => {
  it('render one endpoint that the reconciler and the dashboard both load, with the hash tag', async () => {
    const objects = await renderHelm({ set: clusterValues });
    const { reconciler, dashboard } = await loadBoth(objects);
    const expected = { cluster: { nodes: [{ host: 'redis-0.redis', port: 7000 }, { host: 'redis-1.redis', port: 7001 }], auth: { password: 'data-secret' } } };
    expect(reconciler.redis).toEqual(expected);
    expect(dashboard.redis).toEqual(expected);
    for (const name of ['reconciler', 'dashboard']) expect(egressPorts(objects, name), name).toEqual(expect.arrayContaining([7000, 7001]));
  }, 600_000);

  it('keep a prefix set in config.redis', async () => {
    const objects = await renderHelm({ set: [...clusterValues, 'config.redis.prefix=team-a'] });
    const { reconciler } = await loadBoth(objects);
    expect(reconciler.redisPrefix).toBe('team-a');
    expect('cluster' in reconciler.redis).toBe(true);
  }, 600_000);
});

describe('the Helm chart refuses an incomplete or doubled Redis', () => {
  it.each([
    ['both a Sentinel group and a Cluster', [...sentinelValues, 'redis.cluster.nodes[0]=redis-0.redis:7000'], /redis.sentinel and redis.cluster: set only one way to reach Redis/],
    ['a Sentinel group beside the bundled Redis', ['redis.sentinel.name=mymaster', 'redis.sentinel.nodes[0]=s-0:26379'], /redis.enabled and redis.sentinel: set only one way/],
    ['a Cluster beside an external URL', ['redis.enabled=false', 'redis.externalUrl=redis://r:6379', 'redis.cluster.nodes[0]=r-0:7000'], /redis.externalUrl and redis.cluster: set only one way/],
    ['sentinels without the primary\'s name', ['redis.enabled=false', 'redis.sentinel.nodes[0]=s-0:26379'], /redis.sentinel.name: name the primary/],
    ['a node that is not host:port', ['redis.enabled=false', 'redis.cluster.nodes[0]=r-0'], /redis.cluster.nodes\[0\]: "r-0" is not host:port/],
    ['a username without the Secret', ['redis.enabled=false', 'redis.cluster.nodes[0]=r-0:7000', 'redis.auth.username=tidemark'], /redis.auth.username: a username needs its password/],
  ])('%s', async (_, set, message) => {
    await expect(renderHelm({ set })).rejects.toThrow(message);
  }, 600_000);
});

/** The TLS Secrets' keys, standing in for what the kubelet would mount (PEM-shaped, never dialled). */
const tlsSecrets: Record<string, Record<string, string>> = {
  'redis-ca': { 'ca.crt': '-----BEGIN CERTIFICATE-----\nCA\n-----END CERTIFICATE-----\n' },
  'redis-client': { 'tls.crt': '-----BEGIN CERTIFICATE-----\nCLIENT\n-----END CERTIFICATE-----\n', 'tls.key': '-----BEGIN PRIVATE KEY-----\nKEY\n-----END PRIVATE KEY-----\n' },
};
const tlsValues = ['redis.tls.enabled=true', 'redis.tls.caSecret=redis-ca', 'redis.tls.clientCertSecret=redis-client', 'redis.tls.serverName=redis.internal'];

type SecretVolume = { name: string; secret?: { secretName: string; items?: { key: string; path: string }[] } };

/**
 * mountTlsSecrets writes, under `root`, each Secret volume a container mounts (only the items the
 * volume projects), and points the container's TIDEMARK_REDIS_TLS_*_FILE variables into `root`.
 */
async function mountTlsSecrets(pod: PodSpec, container: Container, root: string): Promise<Container> {
  for (const mount of container.volumeMounts ?? []) {
    const volume = (pod.volumes as SecretVolume[] | undefined)?.find((candidate) => candidate.name === mount.name);
    const data = volume?.secret && tlsSecrets[volume.secret.secretName];
    if (!data) continue;
    await mkdir(join(root, mount.mountPath), { recursive: true });
    for (const item of volume.secret!.items ?? []) if (data[item.key]) await writeFile(join(root, mount.mountPath, item.path), data[item.key]!);
  }
  const env = (container.env ?? []).map((entry) => (/^TIDEMARK_REDIS_TLS_.*_FILE$/.test(entry.name) && entry.value ? { ...entry, value: join(root, entry.value) } : entry));
  return { ...container, env };
}

describe('Helm values for TLS to Redis', () => {
  it.each([
    ['a Redis Cluster', clusterValues],
    ['a Sentinel group', sentinelValues],
    ['a rediss:// URL', ['redis.enabled=false', 'redis.externalUrl=rediss://redis.internal:6380']],
  ])('mount the CA and client certificate Secrets into both apps, which load the same TLS on %s', async (_, values) => {
    const objects = await renderHelm({ set: [...values, ...tlsValues] });
    const root = await mkdtemp(join(tmpdir(), 'tidemark-redis-tls-values-'));
    try {
      const tlsOf = async (name: string) => {
        const pod = podSpecOf(component(objects, 'Deployment', name))!;
        const container = await mountTlsSecrets(pod, pod.containers[0]!, join(root, name));
        const environment = environmentOf(container);
        if (name === 'dashboard') {
          const tokensFile = join(root, 'tokens.json');
          await writeFile(tokensFile, JSON.stringify([{ name: 'admin', role: 'operator', token: 'a-token-of-twenty-characters' }]));
          return loadDashboardConfig({ ...environment, TIDEMARK_DASHBOARD_TOKENS_FILE: tokensFile, TIDEMARK_DASHBOARD_SESSION_SECRET: 's'.repeat(32) }).redis.tls;
        }
        const configMap = objects.find((object) => object.kind === 'ConfigMap' && object.metadata.name.endsWith('-reconciler-config'));
        await writeFile(join(root, 'tidemark.yaml'), (configMap?.data as Record<string, string>)['tidemark.yaml']!);
        return loadConfig(environment, join(root, 'tidemark.yaml')).redis.tls;
      };
      const expected = { ca: tlsSecrets['redis-ca']!['ca.crt'], cert: tlsSecrets['redis-client']!['tls.crt'], key: tlsSecrets['redis-client']!['tls.key'], serverName: 'redis.internal' };
      for (const name of ['reconciler', 'dashboard']) expect(await tlsOf(name), name).toMatchObject(expected);
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  }, 600_000);

  it.each([
    ['TLS to the bundled Redis', ['redis.tls.enabled=true'], /redis.tls.enabled: the bundled Redis serves plain TCP/],
    ['TLS beside a redis:// URL', ['redis.enabled=false', 'redis.externalUrl=redis://r:6379', 'redis.tls.enabled=true'], /redis.tls.enabled: redis.externalUrl must start with rediss:\/\//],
    ['a CA Secret without TLS on', [...clusterValues, 'redis.tls.caSecret=redis-ca'], /redis.tls: caSecret, clientCertSecret and serverName take effect only with redis.tls.enabled=true/],
  ])('refuse %s', async (_, set, message) => {
    await expect(renderHelm({ set })).rejects.toThrow(message);
  }, 600_000);
});
