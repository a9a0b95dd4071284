import { mkdir, writeFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { stringify } from 'yaml';
import { clusterValuesComponent, isSet } from './cluster-values-component';
import { substituteDeep } from '../cluster-values';
import { RenderFailure } from '../render-failure';
import { renderOutputOf, type Renderer, type RenderJob, type RenderOutput, type UnitRepo } from '../renderer';
import { resolveRepoPath } from '../repo-path';
import { runSandboxed } from '../sandbox';
import { kustomizationKind, kustomizationReferences, looksRemote } from './kustomization-references';
import { materialiseRemoteBases } from './remote-bases';

/** kustomizationFiles are the names kustomize itself accepts, in its own order. */
export const kustomizationFiles = ['kustomization.yaml', 'kustomization.yml', 'Kustomization'] as const;

/**
 * kustomizeRenderer renders a folder holding a kustomization with the real `kustomize build`:
 * load restrictor RootOnly, no exec or KRM function plugins, no Helm inflation, and kustomize never
 * touches the network: remote Git bases are fetched by Tidemark's own Git client (the job's
 * remoteBases, off unless the operator lists hosts) and handed to it as local folders.
 */
export const kustomizeRenderer: Renderer = {
  name: 'kustomize',
  markers: kustomizationFiles,
  ownsNestedUnits: false,
  inputs: kustomizeInputs,
  standsAlone: kustomizationStandsAlone,
  render: renderKustomization,
};

/** kustomizationStandsAlone is false for `kind: Component`, which `kustomize build` refuses to build alone. */
async function kustomizationStandsAlone(folder: string, marker: string, repo: UnitRepo): Promise<boolean> {
  const path = folder === '.' ? marker : `${folder}/${marker}`;
  const text = await repo.readText(path);
  return text === undefined || kustomizationKind(text) !== 'Component';
}

/** kustomizeInputs follows resources, bases and components to every kustomization folder the unit uses. */
async function kustomizeInputs(folder: string, marker: string, repo: UnitRepo): Promise<string[]> {
  const seen = new Set<string>([folder]);
  const pending: Array<{ folder: string; marker: string }> = [{ folder, marker }];
  while (pending.length > 0) {
    const current = pending.pop();
    if (!current) break;
    for (const next of await folderReferences(current.folder, current.marker, repo)) {
      if (seen.has(next.folder)) continue;
      seen.add(next.folder);
      pending.push(next);
    }
  }
  seen.delete(folder);
  return [...seen].sort();
}

async function folderReferences(folder: string, marker: string, repo: UnitRepo): Promise<Array<{ folder: string; marker: string }>> {
  const path = folder === '.' ? marker : `${folder}/${marker}`;
  const text = await repo.readText(path);
  if (text === undefined) throw new RenderFailure('RenderFailed', `${path} is missing`, path);
  const found: Array<{ folder: string; marker: string }> = [];
  for (const { field, value } of kustomizationReferences(text, path)) {
    const target = resolveRepoPath(folder, value);
    if (target === undefined) {
      throw new RenderFailure('PathEscapeRefused', `${path}: ${field} entry "${value}" leads out of the repository; render inputs must stay inside it`, path);
    }
    if (await repo.isFolder(target)) {
      const targetMarker = await repo.markerIn(target, 'kustomize');
      if (!targetMarker) throw new RenderFailure('RenderFailed', `${path}: ${field} entry "${value}" is a folder without a kustomization.yaml`, path);
      found.push({ folder: target, marker: targetMarker });
    } else if ((await repo.readText(target)) === undefined) {
      // A remote base is fetched and written beside the unit when it renders (materialiseRemoteBases).
      if (looksRemote(value)) continue;
      throw new RenderFailure('RenderFailed', `${path}: ${field} entry "${value}" does not exist in the repository at this revision`, path);
    }
  }
  return found;
}

async function renderKustomization(job: RenderJob): Promise<RenderOutput> {
  const remoteWarnings = await materialiseRemoteBases(job, kustomizeRenderer);
  const target = await wrapperFor(job) ?? join(job.root, job.folder);
  const output = renderOutputOf(await runSandboxed({
    command: job.tools.kustomize,
    args: ['build', target, '--load-restrictor', 'LoadRestrictionsRootOnly'],
    cwd: job.root,
    home: job.scratch,
    limits: job.limits,
    label: `kustomize build ${job.folder}`,
    launcher: job.launcher,
  }));
  return remoteWarnings.length === 0 ? output : { ...output, stderr: [...remoteWarnings, output.stderr ?? ''].join('\n') };
}

/**
 * wrapperFor writes a kustomization around the unit when tidemark-render.yaml sets images,
 * replicas, labels, annotations or patches (with the cluster's values substituted), so the unit
 * itself is built unchanged, exactly as `kustomize build` builds it locally, and the overrides
 * apply on top: images and replicas in the wrapper, the rest in a Component it generates beside it.
 */
async function wrapperFor(job: RenderJob): Promise<string | undefined> {
  const overrides = job.config.kustomize;
  if (!overrides || !Object.values(overrides).some(isSet)) return undefined;
  const where = `${job.folder}/tidemark-render.yaml`;
  const values = job.cluster ? substituteDeep({ ...overrides, patches: undefined }, job.cluster, where) as typeof overrides : overrides;
  const replicas = values.replicas?.map((entry) => ({ name: entry.name, count: countOf(entry.count, where) }));
  const wrapper = join(job.scratch, 'tidemark-wrapper');
  await mkdir(wrapper, { recursive: true });
  const component = clusterValuesComponent({ ...values, patches: overrides.patches }, job.cluster, where);
  if (component) {
    await mkdir(join(wrapper, 'cluster-values'), { recursive: true });
    await writeFile(join(wrapper, 'cluster-values', 'kustomization.yaml'), stringify(component));
  }
  const kustomization = {
    apiVersion: 'kustomize.config.k8s.io/v1beta1',
    kind: 'Kustomization',
    resources: [relative(wrapper, join(job.root, job.folder))],
    ...(component ? { components: ['cluster-values'] } : {}),
    ...(values.images?.length ? { images: values.images } : {}),
    ...(replicas?.length ? { replicas } : {}),
  };
  await writeFile(join(wrapper, 'kustomization.yaml'), stringify(kustomization));
  return wrapper;
}

function countOf(count: number | string, where: string): number {
  const value = typeof count === 'number' ? count : Number(count);
  if (!Number.isInteger(value) || value < 0) throw new RenderFailure('RenderConfigInvalid', `${where}: kustomize.replicas count "${String(count)}" is not a whole number`, where);
  return value;
}
