import { parse } from 'yaml';
import { RenderFailure } from '../render-failure';
import type { UnitRepo } from '../renderer';
import type { ChartReference, KnownRepository } from './chart-reference';
import type { ChartRepositories } from './chart-repositories';
import { messageOf } from '@tidemark/contracts';

interface ChartDependency {
  name?: unknown;
  repository?: unknown;
  version?: unknown;
}

const chartName = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,249}$/;
// An exact SemVer 2 version: a range would make a render depend on the repository's state, not on Git.
const exactVersion = /^v?(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(-[0-9A-Za-z.-]+)?(\+[0-9A-Za-z.-]+)?$/;

/**
 * chartYamlPath is the repository path of a chart folder's Chart.yaml.
 */
export function chartYamlPath(folder: string): string {
  return `${folder === '.' ? '' : `${folder}/`}Chart.yaml`;
}

/**
 * checkDependencies makes sure every dependency in Chart.yaml can be had without Git's help
 * failing at render time: it is vendored in `charts/` (as a folder or a .tgz), or it comes from
 * a configured chart repository at an exact version. It returns those to download.
 */
export async function checkDependencies(folder: string, repo: UnitRepo, repositories: ChartRepositories | undefined): Promise<ChartReference[]> {
  const path = chartYamlPath(folder);
  const text = await repo.readText(path);
  if (text === undefined) throw new RenderFailure('RenderFailed', `${path} is missing`, path);
  return dependenciesToFetch(text, path, await repo.list(folder === '.' ? 'charts' : `${folder}/charts`), repositories);
}

/**
 * dependenciesToFetch reads Chart.yaml's dependencies: one vendored in `charts/` is used as it
 * is; one from a configured chart repository, pinned to an exact version, is returned to be
 * downloaded; any other is refused with a message naming the file and dependency.
 */
export function dependenciesToFetch(text: string, path: string, vendored: readonly string[], repositories: ChartRepositories | undefined): ChartReference[] {
  const dependencies = dependenciesOf(text, path);
  const fetch: ChartReference[] = [];
  for (const dependency of dependencies) {
    if (typeof dependency?.name !== 'string' || dependency.name === '') throw new RenderFailure('RenderFailed', `${path}: a dependency has no name`, path);
    const name = dependency.name;
    if (vendored.some((entry) => entry === name || (entry.startsWith(`${name}-`) && entry.endsWith('.tgz')))) continue;
    const where = `${path}: dependency "${name}"`;
    const known = knownRepository(dependency, where, path, repositories);
    if (!chartName.test(name)) throw new RenderFailure('RenderFailed', `${where}: the name may hold only letters, digits, '.', '_' and '-'`, path);
    const version = pinnedVersion(dependency, where, path);
    fetch.push({ repository: known, name, version });
  }
  return fetch;
}

/** knownRepository is the configured repository a dependency comes from; any other source is refused. */
function knownRepository(dependency: ChartDependency, where: string, path: string, repositories: ChartRepositories | undefined): KnownRepository {
  const repository = typeof dependency.repository === 'string' ? dependency.repository : '';
  const known = repository ? repositories?.find(repository) : undefined;
  if (known) return known;
  if (repository.startsWith('oci://')) throw new RenderFailure('ChartDependencyMissing', `${where} comes from the OCI registry ${repository}, which Tidemark does not download from unless render.chartRepositories names it; add it there (with a secretRef if it needs a login), or vendor the chart in charts/ (\`helm dependency build\`, then commit charts/)`, path);
  const from = repository ? ` from ${repository}` : '';
  throw new RenderFailure('ChartDependencyMissing', `${where}${from} is not vendored in charts/, and no chart repository of render.chartRepositories has that URL; Tidemark renders without network access, so configure the repository or run \`helm dependency build\` and commit charts/`, path);
}

/** pinnedVersion is a dependency's exact version; a range or none is refused. */
function pinnedVersion(dependency: ChartDependency, where: string, path: string): string {
  const version = typeof dependency.version === 'string' || typeof dependency.version === 'number' ? String(dependency.version) : '';
  if (exactVersion.test(version)) return version;
  throw new RenderFailure('RenderFailed', `${where}: version ${version ? `"${version}" is not an exact version` : 'is missing'}; pin one (e.g. 1.2.3), so that what renders is decided by Git alone`, path);
}

function dependenciesOf(text: string, path: string): ChartDependency[] {
  let chart: unknown;
  try {
    chart = parse(text, { maxAliasCount: 10 });
  } catch (error) {
    throw new RenderFailure('RenderFailed', `${path}: ${messageOf(error)}`, path);
  }
  const dependencies = (chart as { dependencies?: unknown } | null)?.dependencies;
  if (dependencies === undefined || dependencies === null) return [];
  if (!Array.isArray(dependencies)) throw new RenderFailure('RenderFailed', `${path}: dependencies must be a list`, path);
  return dependencies as ChartDependency[];
}
