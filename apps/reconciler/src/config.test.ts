import { describe, expect, it } from 'vitest';
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

  it('names the file and field of a mistake, and never echoes a secret', async () => {
    await withFile('redis: { url: redis://x }\nsources: [{ name: app, url: "https://h/a.git", ref: { branch: main }, intervalMs: 5 }]\nclusters: [{ name: dev, inCluster: true }]', (path) => {
      expect(() => loadConfig({ TIDEMARK_CONFIG: path })).toThrow(ConfigError);
      expect(() => loadConfig({ TIDEMARK_CONFIG: path })).toThrow(/sources\[0\]\.intervalMs/);
    });
    await withFile('redis: { url: redis://x }\nsources: [{ name: app, url: "https://h/a.git", ref: { branch: main }, intervalMs: 60000, auth: { token: { env: MISSING } } }]\nclusters: [{ name: dev, inCluster: true }]', (path) => {
      expect(() => loadConfig({ TIDEMARK_CONFIG: path })).toThrow(/sources\[0\]\.auth\.token: environment variable MISSING is not set/);
    });
  });

  it('says what to set when there is no config at all', () => {
    expect(() => loadConfig({})).toThrow(/TIDEMARK_CONFIG is not set/);
  });
});
