import { describe, expect, it } from 'vitest';
import { writeFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ConfigError, loadConfig } from './config';

const example = fileURLToPath(new URL('../../../examples/tidemark.yaml', import.meta.url));

async function withFile(content: string, run: (path: string, dir: string) => void): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'tidemark-config-'));
  try {
    await writeFile(join(dir, 'tidemark.yaml'), content);
    run(join(dir, 'tidemark.yaml'), dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

describe('loadConfig: conversionWebhook bounds', () => {
  const base = (hook: string) => [
    'redis: { url: redis://127.0.0.1:6379 }',
    'sources: [{ name: app, url: "https://git.example.com/app.git", ref: { branch: main }, intervalMs: 60000 }]',
    'clusters: [{ name: dev, kubeconfig: dev.kubeconfig }]',
    ...(hook ? [`conversionWebhook: ${hook}`] : []),
  ].join('\n');

  it('bounds reviews to 3 MiB and 32 at once unless told otherwise, and refuses more than 32 MiB', async () => {
    await withFile(base(''), (path) => {
      expect(loadConfig({ TIDEMARK_CONFIG: path }).conversionWebhook).toMatchObject({ maxReviewBytes: 3 * 1024 * 1024, maxConcurrentReviews: 32 });
    });
    await withFile(base('{ maxReviewMiB: 8, maxConcurrentReviews: 4 }'), (path) => {
      expect(loadConfig({ TIDEMARK_CONFIG: path }).conversionWebhook).toMatchObject({ maxReviewBytes: 8 * 1024 * 1024, maxConcurrentReviews: 4 });
    });
    await withFile(base('{ maxReviewMiB: 64 }'), (path) => {
      expect(() => loadConfig({ TIDEMARK_CONFIG: path })).toThrow(/maxReviewMiB/);
    });
  });
});

describe('loadConfig', () => {
  it('accepts the documented example up to its secret files, and names the one it cannot read', () => {
    expect(() => loadConfig({ TIDEMARK_CONFIG: example, PLATFORM_WEBHOOK_SECRET: 'x' }))
      .toThrow(`${example}: sources[0].auth.token: cannot read file /etc/tidemark/git-token`);
  });

  it('resolves secrets from the environment, freezes the result, and never puts them in the URL', async () => {
    await withFile([
      'redis: { url: redis://127.0.0.1:6379 }',
      'sources: [{ name: app, url: "https://git.example.com/app.git", ref: { branch: main }, intervalMs: 60000, auth: { token: { env: APP_TOKEN } } }]',
      'clusters: [{ name: dev, kubeconfig: dev.kubeconfig, labels: { env: dev } }]',
    ].join('\n'), (path, dir) => {
      const config = loadConfig({ TIDEMARK_CONFIG: path, APP_TOKEN: 's3cret' });
      expect(config.sources[0]?.auth).toEqual({ token: 's3cret' });
      expect(config.sources[0]?.url).toBe('https://git.example.com/app.git');
      expect(config.clusters[0]).toMatchObject({ name: 'dev', kubeconfigPath: join(dir, 'dev.kubeconfig'), labels: { env: 'dev' } });
      expect(Object.isFrozen(config.clusters[0])).toBe(true);
    });
  });

  it('reads an SSH deploy key and known_hosts from files (re-read on change), its passphrase from the environment', async () => {
    await withFile([
      'redis: { url: redis://x }',
      'sources: [{ name: app, url: "git@github.com:org/app.git", ref: { branch: main }, intervalMs: 60000, auth: { sshPrivateKey: { file: ./identity }, knownHosts: { file: ./known_hosts }, passphrase: { env: KEY_PASSPHRASE } } }]',
      'clusters: [{ name: dev, inCluster: true }]',
    ].join('\n'), (path, dir) => {
      writeFileSync(join(dir, 'identity'), 'PRIVATE KEY TEXT\n');
      writeFileSync(join(dir, 'known_hosts'), 'github.com ssh-ed25519 AAAA\n');
      const config = loadConfig({ TIDEMARK_CONFIG: path, KEY_PASSPHRASE: 'pass phrase' });
      expect(config.sources[0]?.auth).toEqual({ sshPrivateKey: 'PRIVATE KEY TEXT', knownHosts: 'github.com ssh-ed25519 AAAA', passphrase: 'pass phrase' });
      expect(config.sourceCredentialFiles.app).toEqual([{ field: 'sshPrivateKey', path: join(dir, 'identity') }, { field: 'knownHosts', path: join(dir, 'known_hosts') }]);
    });
    await withFile('redis: { url: redis://x }\nsources: [{ name: app, url: "ssh://git@github.com/org/app.git", ref: { branch: main }, intervalMs: 60000 }]\nclusters: [{ name: dev, inCluster: true }]', (path) => {
      expect(() => loadConfig({ TIDEMARK_CONFIG: path })).toThrow(/sources\[0\]\.auth: an SSH URL needs \{sshPrivateKey, knownHosts\}/);
    });
  });

  it('takes no config-file source only when Source objects are served', async () => {
    await withFile('redis: { url: redis://x }\nsources: []\nclusters: [{ name: dev, inCluster: true }]', (path) => {
      expect(() => loadConfig({ TIDEMARK_CONFIG: path })).toThrow(`${path}: sources: list at least one source, or serve Source objects (sourceObjects.enabled: true)`);
    });
    await withFile('redis: { url: redis://x }\nsources: []\nclusters: [{ name: dev, inCluster: true }]\nsourceObjects: { enabled: true }', (path) => {
      expect(loadConfig({ TIDEMARK_CONFIG: path, TIDEMARK_NAMESPACE: 'tidemark' }).sources).toEqual([]);
    });
  });

  it('names the file and field of a mistake, and never echoes a secret', async () => {
    await withFile('redis: { url: redis://x }\nsources: [{ name: app, url: "https://h/a.git", ref: { branch: main }, intervalMs: 5 }]\nclusters: [{ name: dev, inCluster: true }]', (path) => {
      expect(() => loadConfig({ TIDEMARK_CONFIG: path })).toThrow(ConfigError);
      expect(() => loadConfig({ TIDEMARK_CONFIG: path })).toThrow(/sources\[0\]\.intervalMs/);
    });
    await withFile('redis: { url: redis://x }\nsources: [{ name: app, url: "https://h/a.git", ref: { branch: main }, intervalMs: 60000, auth: { token: { env: MISSING } } }]\nclusters: [{ name: dev, inCluster: true }]', (path) => {
      expect(() => loadConfig({ TIDEMARK_CONFIG: path })).toThrow(/sources\[0\]\.auth\.token: environment variable MISSING is not set/);
    });
  });

  it('serves Source objects in the listed namespaces, by default the reconciler\'s own, and cluster-wide only with "*" alone', async () => {
    const base = 'redis: { url: redis://x }\nsources: [{ name: app, url: "https://h/a.git", ref: { branch: main }, intervalMs: 60000 }]\nclusters: [{ name: dev, inCluster: true }]\n';
    await withFile(`${base}sourceObjects: { enabled: true, namespaces: [team-a, team-b] }`, (path) => {
      expect(loadConfig({ TIDEMARK_CONFIG: path, TIDEMARK_NAMESPACE: 'tidemark' }).sourceObjects).toMatchObject({ enabled: true, cluster: 'dev', namespaces: ['team-a', 'team-b'] });
    });
    await withFile(`${base}sourceObjects: { enabled: true }`, (path) => {
      expect(loadConfig({ TIDEMARK_CONFIG: path, TIDEMARK_NAMESPACE: 'tidemark' }).sourceObjects.namespaces).toEqual(['tidemark']);
      expect(() => loadConfig({ TIDEMARK_CONFIG: path })).toThrow(`${path}: sourceObjects.namespaces: none given, and TIDEMARK_NAMESPACE`);
    });
    await withFile(`${base}sourceObjects: { enabled: true, namespaces: ["*"] }`, (path) => {
      expect(loadConfig({ TIDEMARK_CONFIG: path }).sourceObjects.namespaces).toBe('all');
    });
    await withFile(`${base}sourceObjects: { enabled: true, namespaces: ["*", team-a] }`, (path) => {
      expect(() => loadConfig({ TIDEMARK_CONFIG: path })).toThrow(`${path}: sourceObjects.namespaces: "*" (every namespace) cannot be listed with other namespaces`);
    });
    await withFile(`${base}sourceObjects: { enabled: true, namespaces: [Team_A] }`, (path) => {
      expect(() => loadConfig({ TIDEMARK_CONFIG: path })).toThrow(/sourceObjects\/namespaces\/0|sourceObjects\.namespaces/);
    });
    // Off (the default): nothing is asked of the environment.
    await withFile(base, (path) => {
      expect(loadConfig({ TIDEMARK_CONFIG: path }).sourceObjects).toMatchObject({ enabled: false, namespaces: [] });
    });
  });

  it('compiles CEL health rules at load: a broken expression is a ConfigError naming the file and field', async () => {
    const base = 'redis: { url: redis://x }\nsources: [{ name: app, url: "https://h/a.git", ref: { branch: main }, intervalMs: 60000 }]\nclusters: [{ name: dev, inCluster: true }]\n';
    await withFile(`${base}objectHealth: { timeoutMs: 120000, rules: [{ apiVersion: cert-manager.io/v1, kind: Certificate, current: "status.conditions.exists(c, c.type == 'Ready' && c.status == 'True')" }] }`, (path) => {
      expect(loadConfig({ TIDEMARK_CONFIG: path }).objectHealth).toEqual({ timeoutMs: 120_000, rules: [expect.objectContaining({ kind: 'Certificate' })] });
    });
    await withFile(`${base}objectHealth: { rules: [{ apiVersion: example.com/v1, kind: Database, current: "true", failed: "status.phase ==" }] }`, (path) => {
      expect(() => loadConfig({ TIDEMARK_CONFIG: path })).toThrow(ConfigError);
      expect(() => loadConfig({ TIDEMARK_CONFIG: path })).toThrow(`${path}: objectHealth.rules[0].failed: "status.phase ==" does not parse`);
    });
    await withFile(base, (path) => {
      expect(loadConfig({ TIDEMARK_CONFIG: path }).objectHealth).toEqual({ timeoutMs: 600_000, rules: [] });
    });
  });

  it("reads a source's health timeout and the progressing requeue, with their defaults", async () => {
    const source = '{ name: app, url: "https://h/a.git", ref: { branch: main }, intervalMs: 60000, healthTimeoutMs: 1800000 }';
    await withFile(`redis: { url: redis://x }\nsources: [${source}]\nclusters: [{ name: dev, inCluster: true }]\nprogressingRequeueMs: 600000\n`, (path) => {
      const config = loadConfig({ TIDEMARK_CONFIG: path });
      expect(config.sources[0]?.healthTimeoutMs).toBe(1_800_000);
      expect(config.progressingRequeueMs).toBe(600_000);
    });
    await withFile('redis: { url: redis://x }\nsources: [{ name: app, url: "https://h/a.git", ref: { branch: main }, intervalMs: 60000 }]\nclusters: [{ name: dev, inCluster: true }]\n', (path) => {
      expect(loadConfig({ TIDEMARK_CONFIG: path }).progressingRequeueMs).toBe(5_000);
    });
  });

  it('says what to set when there is no config at all', () => {
    expect(() => loadConfig({})).toThrow(/TIDEMARK_CONFIG is not set/);
  });

  it('reaches Redis through a Sentinel group or a Redis Cluster, one way only, naming the field it cannot read', async () => {
    const rest = [
      'sources: [{ name: app, url: "https://git.example.com/app.git", ref: { branch: main }, intervalMs: 60000 }]',
      'clusters: [{ name: dev, kubeconfig: dev.kubeconfig }]',
    ];
    await withFile(['redis: { sentinel: { name: main, nodes: ["sentinel-0.sentinel:26379", "10.0.0.7:26379"] } }', ...rest].join('\n'), (path) => {
      const config = loadConfig({ TIDEMARK_CONFIG: path, TIDEMARK_REDIS_URL: 'redis://ignored:6379' });
      expect(config.redis).toEqual({ sentinel: { name: 'main', nodes: [{ host: 'sentinel-0.sentinel', port: 26379 }, { host: '10.0.0.7', port: 26379 }] } });
      expect(config.redisUrl).toBeUndefined();
    });
    await withFile(['redis: { cluster: { nodes: ["redis-0:7000"] } }', ...rest].join('\n'), (path) => {
      expect(loadConfig({ TIDEMARK_CONFIG: path }).redis).toEqual({ cluster: { nodes: [{ host: 'redis-0', port: 7000 }] } });
    });
    await withFile(['redis: { cluster: { nodes: ["redis-0"] } }', ...rest].join('\n'), (path) => {
      expect(() => loadConfig({ TIDEMARK_CONFIG: path })).toThrow(/redis\.cluster\.nodes\[0\]: "redis-0" is not host:port/);
    });
    await withFile(['redis: { url: "redis://a:6379", cluster: { nodes: ["redis-0:7000"] } }', ...rest].join('\n'), (path) => {
      expect(() => loadConfig({ TIDEMARK_CONFIG: path })).toThrow(/redis\.url and redis\.cluster: set only one way to reach Redis/);
    });
  });

  it('reads chart repositories: the Secret on the first cluster by default, https or loopback http, clusters that exist', async () => {
    const rest = [
      'sources: [{ name: app, url: "https://git.example.com/app.git", ref: { branch: main }, intervalMs: 60000 }]',
      'clusters: [{ name: mgmt, kubeconfig: a.kubeconfig }, { name: edge, kubeconfig: b.kubeconfig }]',
    ];
    const render = (repositories: string) => ['redis: { url: "redis://redis:6379" }', `render: { chartRepositories: ${repositories} }`, ...rest].join('\n');
    await withFile(render('[{ url: "https://charts.example.com/stable", secretRef: { namespace: tidemark, name: chart-auth } }, { url: "http://127.0.0.1:8080/charts" }]'), (path, dir) => {
      const config = loadConfig({ TIDEMARK_CONFIG: path });
      expect(config.render.chartRepositories).toEqual([
        { url: 'https://charts.example.com/stable', secretRef: { cluster: 'mgmt', namespace: 'tidemark', name: 'chart-auth' } },
        { url: 'http://127.0.0.1:8080/charts' },
      ]);
      expect(config.render.charts.cacheDir).toBe(join(dir, '.tidemark/cache/charts'));
    });
    await withFile(render('[{ url: "https://charts.example.com", secretRef: { cluster: nowhere, namespace: t, name: s } }]'), (path) => {
      expect(() => loadConfig({ TIDEMARK_CONFIG: path })).toThrow(/render\.chartRepositories\[0\]\.secretRef\.cluster: no cluster is named "nowhere"/);
    });
    const refused = [['http://charts.example.com', 'must use https'], ['https://user:pw@charts.example.com', 'must not hold credentials'], ['https://c.example.com/?token=x', 'must have no query']];
    for (const [url, reason] of refused) {
      await withFile(render(`[{ url: "${url}" }]`), (path) => {
        expect(() => loadConfig({ TIDEMARK_CONFIG: path })).toThrow(`render.chartRepositories[0].url: ${reason}`);
        expect(() => loadConfig({ TIDEMARK_CONFIG: path })).not.toThrow(/pw|token=x/);
      });
    }
  });

  it('reads the hosts Kustomize remote bases may come from (none by default) and refuses a host spelled otherwise', async () => {
    const rest = [
      'redis: { url: "redis://redis:6379" }',
      'sources: [{ name: app, url: "https://git.example.com/app.git", ref: { branch: main }, intervalMs: 60000 }]',
      'clusters: [{ name: mgmt, kubeconfig: a.kubeconfig }]',
    ];
    await withFile(rest.join('\n'), (path) => {
      expect(loadConfig({ TIDEMARK_CONFIG: path }).render.remoteBaseHosts).toEqual([]);
    });
    await withFile([...rest, 'render: { remoteBases: { hosts: [github.com, "127.0.0.1:3000"] } }'].join('\n'), (path) => {
      expect(loadConfig({ TIDEMARK_CONFIG: path }).render.remoteBaseHosts).toEqual(['github.com', '127.0.0.1:3000']);
    });
    for (const host of ['GitHub.com', 'https://github.com', 'github.com/org']) {
      await withFile([...rest, `render: { remoteBases: { hosts: ["${host}"] } }`].join('\n'), (path) => {
        expect(() => loadConfig({ TIDEMARK_CONFIG: path })).toThrow(/render\.remoteBases\.hosts/);
      });
    }
  });

  it('reads sops keys per source: own key files by source name, the operator\'s key only for trusted sources', async () => {
    const rest = [
      'redis: { url: "redis://redis:6379" }',
      'sources: [{ name: app, url: "https://git.example.com/app.git", ref: { branch: main }, intervalMs: 60000 }]',
      'clusters: [{ name: mgmt, kubeconfig: a.kubeconfig }]',
    ];
    await withFile([...rest, 'render: { sops: { ageKeyFile: ops.agekey, trustedSources: [platform.apps], sourceKeys: { app: { ageKeyFile: keys/app.agekey } } } }'].join('\n'), (path, dir) => {
      expect(loadConfig({ TIDEMARK_CONFIG: path }).render.sops).toEqual({
        ageKeyFile: join(dir, 'ops.agekey'), trustedSources: ['platform.apps'], sourceKeys: { app: { ageKeyFile: join(dir, 'keys/app.agekey') } },
      });
    });
    await withFile([...rest, 'render: { sops: { sourceKeys: { nope: { ageKeyFile: a.agekey } } } }'].join('\n'), (path) => {
      expect(() => loadConfig({ TIDEMARK_CONFIG: path })).toThrow('render.sops.sourceKeys.nope: no source in this file is named "nope"; a Source object gets its keys from spec.decryption.secretRef');
    });
    await withFile([...rest, 'render: { sops: { sourceKeys: { app: {} } } }'].join('\n'), (path) => {
      expect(() => loadConfig({ TIDEMARK_CONFIG: path })).toThrow('render.sops.sourceKeys.app: needs ageKeyFile or pgpKeyFile');
    });
  });

  it('logs in to a Sentinel group and to a Redis Cluster with passwords from the environment or a file, as an ACL user', async () => {
    const rest = [
      'sources: [{ name: app, url: "https://git.example.com/app.git", ref: { branch: main }, intervalMs: 60000 }]',
      'clusters: [{ name: dev, kubeconfig: dev.kubeconfig }]',
    ];
    const sentinel = 'redis: { sentinel: { name: main, nodes: ["s-0:26379"], username: tidemark, password: { env: REDIS_PASSWORD }, sentinelPassword: { env: SENTINEL_PASSWORD } } }';
    await withFile([sentinel, ...rest].join('\n'), (path) => {
      const config = loadConfig({ TIDEMARK_CONFIG: path, REDIS_PASSWORD: 'data-secret', SENTINEL_PASSWORD: 'sentinel-secret' });
      expect(config.redis).toEqual({ sentinel: { name: 'main', nodes: [{ host: 's-0', port: 26379 }], auth: { username: 'tidemark', password: 'data-secret' }, sentinelAuth: { password: 'sentinel-secret' } } });
      expect(() => loadConfig({ TIDEMARK_CONFIG: path, REDIS_PASSWORD: 'data-secret' })).toThrow(/redis\.sentinel\.sentinelPassword: environment variable SENTINEL_PASSWORD is not set/);
    });
    await withFile(['redis: { cluster: { nodes: ["redis-0:7000"], password: { file: redis-password } } }', ...rest].join('\n'), (path, dir) => {
      writeFileSync(join(dir, 'redis-password'), 'from-a-file\n');
      expect(loadConfig({ TIDEMARK_CONFIG: path }).redis).toEqual({ cluster: { nodes: [{ host: 'redis-0', port: 7000 }], auth: { password: 'from-a-file' } } });
    });
    await withFile(['redis: { cluster: { nodes: ["redis-0:7000"], username: tidemark } }', ...rest].join('\n'), (path) => {
      expect(() => loadConfig({ TIDEMARK_CONFIG: path })).toThrow(/redis\.cluster\.username: a username needs its password in redis\.cluster\.password/);
    });
    await withFile(['redis: { cluster: { nodes: ["redis-0:7000"], password: "in-the-file" } }', ...rest].join('\n'), (path) => {
      expect(() => loadConfig({ TIDEMARK_CONFIG: path })).toThrow(/redis/);
    });
  });
});

describe('loadConfig: redis.tls', () => {
  const config = (redis: string) => [
    `redis: ${redis}`,
    'sources: [{ name: app, url: "https://git.example.com/app.git", ref: { branch: main }, intervalMs: 60000 }]',
    'clusters: [{ name: dev, kubeconfig: dev.kubeconfig }]',
  ].join('\n');
  const pem = '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n';

  it('reads the CA beside the file at start, lets the environment override it, and refuses TLS settings with redis://', async () => {
    await withFile(config('{ url: "rediss://redis:6380", tls: { caFile: ca.pem, serverName: redis.internal } }'), (path, dir) => {
      writeFileSync(join(dir, 'ca.pem'), pem);
      expect(loadConfig({ TIDEMARK_CONFIG: path }).redis).toEqual({ url: 'rediss://redis:6380', tls: { ca: pem, caFile: join(dir, 'ca.pem'), serverName: 'redis.internal' } });
      writeFileSync(join(dir, 'other.pem'), pem);
      expect(loadConfig({ TIDEMARK_CONFIG: path, TIDEMARK_REDIS_TLS_CA_FILE: join(dir, 'other.pem') }).redis.tls?.caFile).toBe(join(dir, 'other.pem'));
      expect(() => loadConfig({ TIDEMARK_CONFIG: path, TIDEMARK_REDIS_TLS_CERT_FILE: join(dir, 'ca.pem') })).toThrow(`${path}: redis.tls.keyFile: a client certificate needs both`);
    });
    await withFile(config('{ url: "redis://redis:6379", tls: { caFile: ca.pem } }'), (path) => {
      expect(() => loadConfig({ TIDEMARK_CONFIG: path })).toThrow(`${path}: redis.url: TLS settings are given but the URL is not rediss://`);
    });
  });

  it('names the field and the path of a CA file that is missing, or the variable when the variable gave it', async () => {
    await withFile(config('{ sentinel: { name: main, nodes: ["s-0:26379"] }, tls: { caFile: certs/ca.crt } }'), (path, dir) => {
      expect(() => loadConfig({ TIDEMARK_CONFIG: path })).toThrow(`${path}: redis.tls.caFile: ${join(dir, 'certs/ca.crt')} cannot be read`);
      expect(() => loadConfig({ TIDEMARK_CONFIG: path, TIDEMARK_REDIS_TLS_CA_FILE: '/nowhere/ca.crt' })).toThrow('TIDEMARK_REDIS_TLS_CA_FILE: /nowhere/ca.crt cannot be read');
    });
  });
});
