import { copyFile, mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { stringify } from 'yaml';
import { substituteDeep } from '../cluster-values';
import { RenderFailure } from '../render-failure';
import { renderOutputOf, type Renderer, type RenderJob, type RenderOutput, type UnitRepo } from '../renderer';
import { folderOf, resolveRepoPath } from '../repo-path';
import { runSandboxed } from '../sandbox';
import { parseUnitConfig, unitConfigFile } from '../unit-config';
import { chartYamlPath, checkDependencies, dependenciesToFetch } from './chart-dependencies';
import type { ChartRepositories } from './chart-repositories';
import { inReleaseNamespace } from './release-namespace';

/**
 * helmRendererWith renders a folder holding Chart.yaml with the real `helm template`, CRDs from
 * `crds/` included first. Helm itself reaches no repository and downloads nothing: a dependency
 * is vendored in `charts/`, or it comes from one of `repositories` at an exact version and is
 * downloaded, verified and placed in `charts/` by Tidemark before helm runs. Hooks are rendered
 * with their annotations, and the pipeline runs them as sync hooks (helm.sh/hook mapped onto
 * Tidemark's phases, with their weights and delete policies: libs/contracts hook.ts, libs/ordering
 * hook-ordering.ts); test hooks are skipped (`--skip-tests`): Tidemark never runs `helm test`.
 * It renders for the target cluster: its version and API versions (`.Capabilities`) come from that
 * cluster's discovery, and namespace-less namespaced objects go to the release namespace, as
 * `helm install --namespace` puts them.
 */
export function helmRendererWith(repositories?: ChartRepositories): Renderer {
  return {
    name: 'helm',
    markers: ['Chart.yaml'],
    ownsNestedUnits: true,
    readsCapabilities: true,
    inputs: (folder, _marker, repo) => helmInputs(folder, repo, repositories),
    render: async (job) => {
      await vendorDependencies(job, repositories);
      return renderChart(job);
    },
  };
}

/** helmRenderer renders charts whose dependencies are all vendored in `charts/`. */
export const helmRenderer: Renderer = helmRendererWith();

/** helmInputs checks that dependencies can be had and returns the folders of values files outside the chart. */
async function helmInputs(folder: string, repo: UnitRepo, repositories: ChartRepositories | undefined): Promise<string[]> {
  await checkDependencies(folder, repo, repositories);
  const configPath = folder === '.' ? unitConfigFile : `${folder}/${unitConfigFile}`;
  const config = parseUnitConfig(await repo.readText(configPath), configPath);
  const folders = new Set<string>();
  for (const file of config.helm?.valuesFiles ?? []) {
    const path = resolveRepoPath(folder, file);
    if (path === undefined) throw new RenderFailure('PathEscapeRefused', `${configPath}: values file "${file}" leads out of the repository`, configPath);
    if ((await repo.readText(path)) === undefined) throw new RenderFailure('RenderConfigInvalid', `${configPath}: values file "${file}" does not exist at this revision`, configPath);
    const parent = folderOf(path);
    if (parent !== folder && !parent.startsWith(`${folder}/`)) folders.add(parent);
  }
  return [...folders].sort();
}

async function renderChart(job: RenderJob): Promise<RenderOutput> {
  const helm = job.config.helm ?? {};
  const args = ['template', helm.releaseName ?? releaseNameOf(job.folder), join(job.root, job.folder), '--namespace', helm.namespace ?? 'default', '--include-crds', '--skip-tests'];
  for (const file of helm.valuesFiles ?? []) args.push('--values', join(job.root, resolveRepoPath(job.folder, file) ?? file));
  if (helm.values) args.push('--values', await writeValues(job, 'values-inline.yaml', helm.values));
  if (job.cluster) {
    const perCluster = helm.clusterValues?.[job.cluster.name] ?? {};
    const where = `${job.folder}/${unitConfigFile}`;
    const clusterValues = { ...(substituteDeep(perCluster, job.cluster, where) as object), tidemark: { cluster: job.cluster } };
    args.push('--values', await writeValues(job, 'values-cluster.yaml', clusterValues));
  }
  args.push(...capabilityArgs(job));
  const output = renderOutputOf(await runSandboxed({
    command: job.tools.helm,
    args,
    cwd: job.root,
    home: job.scratch,
    limits: job.limits,
    label: `helm template ${job.folder}`,
    launcher: job.launcher,
    env: { HELM_REPOSITORY_CONFIG: join(job.scratch, 'repositories.yaml'), HELM_REGISTRY_CONFIG: join(job.scratch, 'registry.json') },
  }));
  // Without a namespace given, objects land in the configured default namespace, as `helm install` without -n uses the context's.
  return helm.namespace ? { ...output, text: inReleaseNamespace(output.text, helm.namespace, job.capabilities) } : output;
}

/** vendorDependencies puts each downloaded dependency's verified archive into the written chart's `charts/`. */
async function vendorDependencies(job: RenderJob, repositories: ChartRepositories | undefined): Promise<void> {
  const chart = join(job.root, job.folder);
  const path = chartYamlPath(job.folder);
  const vendored = await readdir(join(chart, 'charts')).catch(() => [] as string[]);
  const fetch = dependenciesToFetch(await readFile(join(chart, 'Chart.yaml'), 'utf8'), path, vendored, repositories);
  if (fetch.length === 0 || !repositories) return;
  await mkdir(join(chart, 'charts'), { recursive: true });
  for (const reference of fetch) {
    await copyFile(await repositories.fetch(reference, path), join(chart, 'charts', `${reference.name}-${reference.version}.tgz`));
  }
}

/** capabilityArgs say what cluster the chart renders for: the unit's own kubeVersion pins it, else the target cluster's discovery. */
function capabilityArgs(job: RenderJob): string[] {
  const args: string[] = [];
  const kubeVersion = job.config.helm?.kubeVersion ?? job.capabilities?.kubeVersion;
  if (kubeVersion) args.push('--kube-version', kubeVersion);
  // One flag per entry: a cluster with thousands of CRD kinds would pass the kernel's 128 KiB limit of one argument.
  for (const apiVersion of job.capabilities?.apiVersions ?? []) args.push('--api-versions', apiVersion);
  return args;
}

async function writeValues(job: RenderJob, name: string, values: unknown): Promise<string> {
  const path = join(job.scratch, name);
  await writeFile(path, stringify(values));
  return path;
}

/** releaseNameOf derives a valid release name from the chart folder's name. */
function releaseNameOf(folder: string): string {
  const name = basename(folder === '.' ? 'release' : folder).toLowerCase().replace(/[^a-z0-9-]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 53);
  return name || 'release';
}
