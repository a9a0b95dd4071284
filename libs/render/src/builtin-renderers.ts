import type { ChartRepositories } from './helm/chart-repositories';
import { helmRendererWith } from './helm/helm-renderer';
import { kustomizeRenderer } from './kustomize/kustomize-renderer';
import type { Renderer } from './renderer';

/** BuiltinRendererOptions are what the shipped renderers may reach besides the unit's files. */
export interface BuiltinRendererOptions {
  /** Chart repositories Helm units may download dependencies from. @defaultValue none: dependencies are vendored */
  chartRepositories?: ChartRepositories;
}

/**
 * createBuiltinRenderers returns the renderers Tidemark ships, in order of preference (a folder
 * with both a kustomization and a Chart.yaml is a Kustomize unit, as in Argo CD). Another
 * renderer is a new module handed to the RendererRegistry beside these; see docs/repository-layouts.md.
 */
export function createBuiltinRenderers(options: BuiltinRendererOptions = {}): Renderer[] {
  return [kustomizeRenderer, helmRendererWith(options.chartRepositories)];
}

/** builtinRenderers are the shipped renderers with no chart repository. */
export const builtinRenderers: readonly Renderer[] = createBuiltinRenderers();
