import { getObject, type CapabilitiesCache, type ClusterConnection } from '@tidemark/cluster';
import type { ClusterRegistry } from '@tidemark/cluster-objects';
import type { UnitRendering } from '@tidemark/git-source';
import { ChartRepositories, commandRenderer, createBuiltinRenderers, RendererRegistry, UnitRenderer, type ChartCredentials, type ChartRepositorySpec, type SopsKeyring, type SopsKeys } from '@tidemark/render';
import type { Logger } from '@tidemark/contracts';
import type { Poller } from '@tidemark/poller';
import { watchCapabilities } from '@tidemark/watches';
import type { ReconcilerConfig } from './config';
import type { ChartRepositoryConfig, RenderConfig } from './render-config';
import { clusterValuesOf, FleetCapabilities, type RenderFleet } from './render-fleet';

/**
 * unitRendering builds the renderers every source shares (one output cache, one concurrency
 * limit), Helm with the configured chart repositories and each cluster's capabilities.
 * `connectionFor` reaches the cluster that holds a repository's Secret, and the clusters rendered for.
 */
export function unitRendering(config: ReconcilerConfig, connectionFor: (cluster: string) => ClusterConnection, registry: Pick<ClusterRegistry, 'targets'>): (UnitRendering & RenderFleet) | undefined {
  const { render } = config;
  if (!render.enabled) return undefined;
  const chartRepositories = render.chartRepositories.length === 0 ? undefined : new ChartRepositories({
    repositories: render.chartRepositories.map((repository) => chartRepositorySpec(repository, connectionFor)),
    cacheDir: render.charts.cacheDir,
    helm: render.tools.helm,
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
  });
  // Every registered cluster but an agent's (the hub never reaches those): Cluster objects too, once started.
  const capabilities = new FleetCapabilities((cluster) => config.clusters.some((known) => known.name === cluster && known.agent) ? undefined : connectionFor(cluster));
  return {
    renderer,
    capabilities,
    clusters: clusterValuesOf(registry, configVariables(config)),
    ...(render.remoteBaseHosts.length > 0 ? { remoteBaseHosts: render.remoteBaseHosts } : {}),
  };
}

/** configVariables are the config-file clusters' `variables`, by name. */
export function configVariables(config: Pick<ReconcilerConfig, 'clusters'>): Map<string, Readonly<Record<string, string>>> {
  return new Map(config.clusters.map((cluster) => [cluster.name, cluster.variables]));
}

/**
 * watchRenderCapabilities reads a cluster's discovery again when a CRD there is Established or
 * removed; when it changed, a worker reads objects rendered with the new answer, and a poller polls
 * every source so their Helm units render again. It returns the stop (nothing to stop without rendering).
 */
export function watchRenderCapabilities(rendering: { capabilities: CapabilitiesCache } | undefined, clusters: ReadonlyMap<string, ClusterConnection>, sources: () => Iterable<string>, poller: Pick<Poller, 'trigger'> | undefined, log: Logger): () => void {
  if (!rendering) return () => undefined;
  const { capabilities } = rendering;
  const watch = watchCapabilities({
    clusters, log,
    refresh: (cluster) => capabilities.refresh(cluster),
    changed: () => {
      for (const name of sources()) void poller?.trigger(name).catch(() => undefined);
    },
  });
  return () => watch.stop();
}

/** SourceObjectKeys are a Source object's own sops keys, read from its spec.decryption.secretRef Secret. */
export interface SourceObjectKeys {
  keys(): Promise<SopsKeys | undefined>;
  /** The Source's namespace, for the message that says how to give it keys. */
  namespace: string;
}

/**
 * sourceRendering is the shared rendering with one source's own sops keys: a config-file source's
 * render.sops.sourceKeys entry, a Source object's decryption Secret, or, only for a source the
 * operator lists in render.sops.trustedSources, the operator's keys. Any other source has none,
 * so another team's encrypted file copied into its repository does not decrypt.
 */
export function sourceRendering(rendering: UnitRendering, sops: RenderConfig['sops'], source: string, sourceObject?: SourceObjectKeys): UnitRendering {
  return { ...rendering, keyring: sourceKeyring(sops, source, sourceObject) };
}

function sourceKeyring(sops: RenderConfig['sops'], source: string, sourceObject: SourceObjectKeys | undefined): SopsKeyring {
  const configured = sops.sourceKeys[source];
  const trusted = sops.trustedSources.includes(source) && (sops.ageKeyFile || sops.pgpKeyFile) ? { ageKeyFile: sops.ageKeyFile, pgpKeyFile: sops.pgpKeyFile } : undefined;
  const howToGiveKeys = sourceObject
    ? `Give the Source spec.decryption.secretRef: a Secret in namespace ${sourceObject.namespace} with age identities under keys ending .agekey or armored PGP keys under keys ending .asc.`
    : `Give it its own keys in tidemark.yaml (render.sops.sourceKeys.${source}.ageKeyFile or .pgpKeyFile).`;
  return {
    owner: source,
    howToGiveKeys,
    keys: async () => {
      if (configured) return definedOnly(configured);
      const own = await sourceObject?.keys();
      if (own) return own;
      return trusted ? definedOnly(trusted) : undefined;
    },
  };
}

function definedOnly(keys: { ageKeyFile?: string | undefined; pgpKeyFile?: string | undefined }): SopsKeys {
  return { ...(keys.ageKeyFile ? { ageKeyFile: keys.ageKeyFile } : {}), ...(keys.pgpKeyFile ? { pgpKeyFile: keys.pgpKeyFile } : {}) };
}

/** chartRepositorySpec gives a repository credentials read from its Secret at each download, so a rotated password is used at once. */
export function chartRepositorySpec(repository: ChartRepositoryConfig, connectionFor: (cluster: string) => ClusterConnection): ChartRepositorySpec {
  const ref = repository.secretRef;
  const ca = repository.certificateAuthority ? { certificateAuthority: repository.certificateAuthority } : {};
  if (!ref) return { url: repository.url, ...ca };
  const credentialsFrom = `Secret ${ref.namespace}/${ref.name} on cluster ${ref.cluster}`;
  return {
    url: repository.url,
    ...ca,
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
