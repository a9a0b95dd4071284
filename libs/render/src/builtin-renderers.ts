import { helmRenderer } from './helm/helm-renderer';
import { kustomizeRenderer } from './kustomize/kustomize-renderer';
import type { Renderer } from './renderer';

/**
 * builtinRenderers are the renderers Tidemark ships, in order of preference (a folder with both
 * a kustomization and a Chart.yaml is a Kustomize unit, as in Argo CD). Another renderer is a
 * new module handed to the RendererRegistry beside these; see README "Repository layouts".
 */
export const builtinRenderers: readonly Renderer[] = [kustomizeRenderer, helmRenderer];
