// docker-compose.yml: the local stack's services are wired the way the apps read their config,
// hardened, and Redis runs with noeviction and AOF. The file is loaded by compose-go, the loader
// `docker compose config` uses (test/compose-check), since this docker CLI has no compose plugin.
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadConfig as loadDashboardConfig } from '../../apps/dashboard/src/config';
import { loadConfig } from '../../apps/reconciler/src/config';
import { buildComposeCheck, repoRoot, run } from './render';

interface Service {
  image?: string;
  build?: { context: string; dockerfile: string };
  user?: string;
  command?: string[];
  environment?: Record<string, string>;
  volumes?: string[];
  ports?: string[];
  tmpfs?: string[];
  read_only?: boolean;
  cap_drop?: string[];
  security_opt?: string[];
  network_mode?: string;
  stop_grace_period?: string;
}

const composeFile = join(repoRoot, 'docker-compose.yml');

/** interpolate resolves ${NAME} and ${NAME:-default} the way compose does when NAME is unset. */
function interpolate(text: string, env: Record<string, string> = {}): string {
  return text.replace(/\$\{([A-Z0-9_]+)(?::-([^}]*))?\}/g, (_, name: string, fallback?: string) => env[name] ?? fallback ?? '');
}

/** published lists the host ports a service publishes on loopback ("127.0.0.1:H:C" -> H). */
function published(service: Service): number[] {
  return (service.ports ?? []).map((port) => /^127\.0\.0\.1:(\d+):\d+$/.exec(port)?.[1]).filter((port): port is string => port !== undefined).map(Number);
}

describe('docker-compose.yml', () => {
  let services: Record<string, Service> = {};

  beforeAll(async () => {
    const document = parseYaml(interpolate(await readFile(composeFile, 'utf8')), { merge: true }) as { services: Record<string, Service> };
    services = document.services;
  });

  it('runs Redis, the reconciler, the dashboard and the sample Git server', () => {
    expect(Object.keys(services).sort()).toEqual(['dashboard', 'git', 'reconciler', 'redis']);
  });

  it('runs Redis with noeviction and AOF, its data on a volume', () => {
    const command = (services.redis?.command ?? []).join(' ');
    expect(command).toContain('--maxmemory-policy noeviction');
    expect(command).toContain('--appendonly yes');
    expect(services.redis?.volumes).toContain('redis-data:/data');
  });

  it('hardens every service: read-only root, no capabilities, no privilege gain, not root', async () => {
    for (const [name, service] of Object.entries(services)) {
      expect(service.read_only, name).toBe(true);
      expect(service.cap_drop, name).toEqual(['ALL']);
      expect(service.security_opt, name).toContain('no-new-privileges:true');
      const user = service.user ?? (await imageUser(service));
      expect(Number(user.split(':')[0]), `${name} runs as ${user}`).toBeGreaterThan(0);
    }
  });

  it('builds from Dockerfiles that exist, with the repository as context', async () => {
    for (const name of ['git', 'reconciler', 'dashboard']) {
      const build = services[name]?.build;
      expect(build?.context, name).toBe('.');
      expect((await stat(join(repoRoot, build!.dockerfile))).isFile()).toBe(true);
    }
  });

  it('gives the reconciler a config it loads, whose Git source and Redis are the loopback ports the stack publishes', async () => {
    const reconciler = services.reconciler!;
    expect(reconciler.network_mode).toBe('host');
    const mount = (reconciler.volumes ?? []).find((volume) => volume.endsWith(`:${reconciler.environment?.TIDEMARK_CONFIG}:ro`));
    expect(mount, 'the config file is mounted where TIDEMARK_CONFIG points').toBeDefined();
    const config = loadConfig({ ...reconciler.environment }, join(repoRoot, mount!.split(':')[0]!));
    const source = new URL(config.sources[0]!.url);
    expect(source.hostname).toBe('127.0.0.1');
    expect(published(services.git!)).toContain(Number(source.port));
    expect(published(services.redis!)).toContain(Number(new URL(config.redisUrl ?? '').port));
    expect(config.clusters[0]?.kubeconfigPath).toBe('/etc/tidemark/kubeconfig');
    expect(reconciler.volumes).toContainEqual(expect.stringMatching(/:\/etc\/tidemark\/kubeconfig:ro$/));
    expect(reconciler.tmpfs).toContainEqual(expect.stringMatching(new RegExp(`^${config.cacheDir}:`)));
    expect(Number.parseInt(reconciler.stop_grace_period ?? '0', 10)).toBeGreaterThanOrEqual(60);
  });

  it('gives the dashboard an environment it loads: all interfaces, the published port, the Redis service, the reconciler\'s clusters', async () => {
    const dashboard = services.dashboard!;
    const config = loadDashboardConfig({ ...dashboard.environment });
    expect(config.host).toBe('0.0.0.0');
    expect(published(dashboard)).toContain(config.port);
    expect(new URL(config.redisUrl).hostname).toBe('redis');
    expect(config.tokens).toHaveLength(1);
    const mount = (services.reconciler!.volumes ?? [])[0]!.split(':')[0]!;
    const reconcilerConfig = loadConfig({ TIDEMARK_REDIS_URL: 'redis://127.0.0.1:6379' }, join(repoRoot, mount));
    expect(config.clusters).toEqual(reconcilerConfig.clusters.map((cluster) => cluster.name));
  });

  it('serves examples/sample-repo from the Git server', async () => {
    const mount = (services.git?.volumes ?? []).find((volume) => volume.endsWith(`:${services.git?.environment?.SAMPLE_DIR}:ro`));
    expect(mount).toBeDefined();
    expect((await stat(join(repoRoot, mount!.split(':')[0]!))).isDirectory()).toBe(true);
  });

  it('is accepted by the Compose loader that `docker compose config` uses', async () => {
    const output = await run(await buildComposeCheck(), [composeFile], repoRoot);
    expect(output).toMatch(/4 services: \[dashboard git reconciler redis\]/);
  });

  it('has a loader that refuses a broken Compose file (control)', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'tidemark-compose-'));
    try {
      await writeFile(join(dir, 'compose.yml'), 'name: broken\nservices:\n  a:\n    image: redis\n    ports: ["notaport"]\n');
      await expect(run(await buildComposeCheck(), [join(dir, 'compose.yml')], repoRoot)).rejects.toThrow(/Invalid containerPort: notaport/);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

/** imageUser reads the USER of the final stage of a service's Dockerfile. */
async function imageUser(service: Service): Promise<string> {
  if (!service.build) return '0';
  const lines = (await readFile(join(repoRoot, service.build.dockerfile), 'utf8')).split('\n');
  const finalStage = lines.slice(lines.findLastIndex((line) => line.startsWith('FROM ')));
  return finalStage.find((line) => line.startsWith('USER '))?.slice(5).trim() ?? '0';
}
