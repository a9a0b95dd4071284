import { getObject, type ClusterConnection } from '@tidemark/cluster';
import type { UnitRendering } from '@tidemark/git-source';
import { ChartRepositories, commandRenderer, createBuiltinRenderers, RendererRegistry, UnitRenderer, type ChartCredentials, type ChartRepositorySpec } from '@tidemark/render';
import type { ReconcilerConfig } from './config';
import type { ChartRepositoryConfig } from './render-config';

/**
 * unitRendering builds the renderers every source shares (one output cache, one concurrency
 * limit), Helm with the configured chart repositories. `connectionFor` reaches the cluster that
 * holds a repository's Secret.
 */
export function unitRendering(config: ReconcilerConfig, connectionFor: (cluster: string) => ClusterConnection): UnitRendering | undefined {
  const { render } = config;
  if (!render.enabled) return undefined;
  const chartRepositories = render.chartRepositories.length === 0 ? undefined : new ChartRepositories({
    repositories: render.chartRepositories.map((repository) => chartRepositorySpec(repository, connectionFor)),
    cacheDir: render.charts.cacheDir,
    limits: {
      timeoutMs: render.limits.timeoutMs,
      ...(render.charts.maxArchiveBytes ? { maxArchiveBytes: render.charts.maxArchiveBytes } : {}),
      ...(render.charts.maxUnpackedBytes ? { maxUnpackedBytes: render.charts.maxUnpackedBytes } : {}),
    },
  });
  const renderer = new UnitRenderer({
    registry: new RendererRegistry([...createBuiltinRenderers(chartRepositories ? { chartRepositories } : {}), ...render.plugins.map(commandRenderer)]),
    tools: render.tools,
    limits: render.limits,
    concurrency: render.concurrency,
    sops: render.sops,
  });
  return { renderer, clusters: config.clusters.map((cluster) => ({ name: cluster.name, labels: cluster.labels, variables: cluster.variables })) };
}

/** chartRepositorySpec gives a repository credentials read from its Secret at each download, so a rotated password is used at once. */
export function chartRepositorySpec(repository: ChartRepositoryConfig, connectionFor: (cluster: string) => ClusterConnection): ChartRepositorySpec {
  const ref = repository.secretRef;
  if (!ref) return { url: repository.url };
  const credentialsFrom = `Secret ${ref.namespace}/${ref.name} on cluster ${ref.cluster}`;
  return {
    url: repository.url,
    credentialsFrom,
    credentials: async () => {
      const secret = await getObject(connectionFor(ref.cluster), { apiVersion: 'v1', kind: 'Secret', namespace: ref.namespace, name: ref.name });
      if (!secret) throw new Error(`${credentialsFrom} does not exist; create it with the keys username and password`);
      return basicAuthOf((secret as { data?: Record<string, string> }).data ?? {}, credentialsFrom);
    },
  };
}

/** basicAuthOf reads username and password from a Secret's data; its message names the keys, never a value. */
function basicAuthOf(data: Readonly<Record<string, string>>, where: string): ChartCredentials {
  const value = (key: string): string => Buffer.from(data[key] ?? '', 'base64').toString('utf8').trim();
  const username = value('username');
  const password = value('password');
  if (!username || !password) throw new Error(`${where} needs the keys username and password; it has ${Object.keys(data).sort().join(', ') || 'none'}`);
  return { username, password };
}
