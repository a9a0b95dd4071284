// Renders what deploy/ ships, with the real tools: `kubectl kustomize` from the rig binary and
// Helm's own template engine from test/helm-render (built here with the Go build cache).
import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseAllDocuments } from 'yaml';
import { buildGoProgram, kubectl } from '@tidemark/testing';

/** repoRoot is the repository's top folder. */
export const repoRoot = resolve(fileURLToPath(import.meta.url), '../../..');
export const kustomizeBase = join(repoRoot, 'deploy/kustomize/base');
export const crdKustomization = join(repoRoot, 'deploy/crds');
export const helmChart = join(repoRoot, 'deploy/helm/tidemark');
const helmRenderDir = join(repoRoot, 'test/helm-render');
export const helmRenderBinary = join(helmRenderDir, 'bin', 'helm-render');

/** Manifest is one rendered object; fields past metadata stay unknown until a check reads them. */
export interface Manifest {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string>; annotations?: Record<string, string> };
  [field: string]: unknown;
}

/** parseManifests splits a multi-document YAML stream into objects, skipping empty documents. */
export function parseManifests(text: string): Manifest[] {
  const objects: Manifest[] = [];
  for (const document of parseAllDocuments(text)) {
    if (document.errors.length > 0) throw new Error(`rendered YAML does not parse: ${document.errors[0]?.message}`);
    const value: unknown = document.toJS();
    if (value === null || value === undefined) continue;
    if (typeof value !== 'object' || !('kind' in value) || !('apiVersion' in value) || !('metadata' in value)) {
      throw new Error(`rendered document is not a Kubernetes object: ${JSON.stringify(value).slice(0, 200)}`);
    }
    objects.push(value as Manifest);
  }
  return objects;
}

/** renderKustomize runs `kubectl kustomize` on a folder. */
export async function renderKustomize(kubeconfigPath: string, folder = kustomizeBase): Promise<Manifest[]> {
  return parseManifests(await kubectl(kubeconfigPath, ['kustomize', folder]));
}

/**
 * renderBaseIn renders the Kustomize base through an overlay that moves it to `namespace` (and
 * prefixes names, so cluster-scoped RBAC of parallel tests does not collide), as a user would.
 */
export async function renderBaseIn(kubeconfigPath: string, namespace: string, namePrefix = ''): Promise<Manifest[]> {
  const overlay = await mkdtemp(join(tmpdir(), 'tidemark-overlay-'));
  try {
    const lines = ['apiVersion: kustomize.config.k8s.io/v1beta1', 'kind: Kustomization', `namespace: ${namespace}`];
    if (namePrefix) lines.push(`namePrefix: ${namePrefix}`);
    lines.push('resources:', `  - ${relative(overlay, kustomizeBase)}`);
    await writeFile(join(overlay, 'kustomization.yaml'), `${lines.join('\n')}\n`);
    return await renderKustomize(kubeconfigPath, overlay);
  } finally {
    await rm(overlay, { recursive: true, force: true });
  }
}

export interface HelmRenderOptions {
  name?: string;
  namespace?: string;
  set?: string[];
  /** Values files, as `helm template -f`. */
  values?: string[];
  kubeVersion?: string;
}

/** renderHelm renders the chart as `helm template` does; it rejects with Helm's message on a failed render. */
export async function renderHelm(options: HelmRenderOptions = {}): Promise<Manifest[]> {
  const args = [helmChart, '--name', options.name ?? 'tidemark', '--namespace', options.namespace ?? 'tidemark'];
  for (const value of options.set ?? []) args.push('--set', value);
  for (const file of options.values ?? []) args.push('--values', file);
  if (options.kubeVersion) args.push('--kube-version', options.kubeVersion);
  return parseManifests(await run(await buildHelmRender(), args, repoRoot));
}

const composeCheckDir = join(repoRoot, 'test/compose-check');

/** buildComposeCheck builds test/compose-check, the Compose loader of `docker compose config`. */
export function buildComposeCheck(): Promise<string> {
  return buildGoProgram({
    dir: composeCheckDir,
    binary: join(composeCheckDir, 'bin', 'compose-check'),
    label: 'compose-check',
    firstBuildNote: 'the Compose loader from github.com/compose-spec/compose-go/v2; about a minute the first time',
  });
}

/** buildHelmRender builds test/helm-render when its sources changed (see buildGoProgram). */
export function buildHelmRender(): Promise<string> {
  return buildGoProgram({
    dir: helmRenderDir,
    binary: helmRenderBinary,
    label: 'helm-render',
    firstBuildNote: "Helm's template engine from helm.sh/helm/v3; the first build takes a few minutes, later ones come from the Go cache",
  });
}

/** run runs a command and resolves with its stdout, or rejects with its stderr. */
export function run(command: string, args: string[], cwd: string): Promise<string> {
  return new Promise((done, fail) => {
    const child = spawn(command, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', fail);
    child.on('exit', (code) => (code === 0 ? done(stdout) : fail(new Error(`${command} ${args.join(' ')} (exit ${code}): ${stderr.trim()}`))));
  });
}

/** toYamlStream joins objects into one YAML stream for kubectl. */
export function toYamlStream(objects: readonly Manifest[]): string {
  return objects.map((object) => JSON.stringify(object)).join('\n---\n');
}
