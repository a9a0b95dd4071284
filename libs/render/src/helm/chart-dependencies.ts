import { parse } from 'yaml';
import { RenderFailure } from '../render-failure';
import type { UnitRepo } from '../renderer';

interface ChartDependency {
  name: string;
  repository?: string;
  version?: string;
}

/**
 * checkVendoredDependencies makes sure every dependency in Chart.yaml is in `charts/` (as a
 * folder or a .tgz). Tidemark renders without network access, so it never downloads a chart:
 * `helm dependency build` and a commit of `charts/` make a chart renderable.
 */
export async function checkVendoredDependencies(folder: string, repo: UnitRepo): Promise<void> {
  const path = `${folder === '.' ? '' : `${folder}/`}Chart.yaml`;
  const text = await repo.readText(path);
  if (text === undefined) throw new RenderFailure('RenderFailed', `${path} is missing`, path);
  let chart: unknown;
  try {
    chart = parse(text, { maxAliasCount: 10 });
  } catch (error) {
    throw new RenderFailure('RenderFailed', `${path}: ${error instanceof Error ? error.message : String(error)}`, path);
  }
  const dependencies = (chart as { dependencies?: unknown } | null)?.dependencies;
  if (!Array.isArray(dependencies) || dependencies.length === 0) return;
  const vendored = await repo.list(folder === '.' ? 'charts' : `${folder}/charts`);
  for (const dependency of dependencies as ChartDependency[]) {
    if (typeof dependency?.name !== 'string') throw new RenderFailure('RenderFailed', `${path}: a dependency has no name`, path);
    const present = vendored.some((name) => name === dependency.name || (name.startsWith(`${dependency.name}-`) && name.endsWith('.tgz')));
    if (present) continue;
    const from = dependency.repository ? ` from ${dependency.repository}` : '';
    throw new RenderFailure('ChartDependencyMissing', `${path}: dependency "${dependency.name}"${from} is not vendored in charts/; Tidemark renders without network access and downloads no chart, so run \`helm dependency build\` and commit charts/`, path);
  }
}
