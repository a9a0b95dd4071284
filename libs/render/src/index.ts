// Owns: render units: the renderer registry (Kustomize, Helm; more plug in), finding units and their input
//   folders in a revision, writing those folders from the Git object store into a temporary tree, sops
//   decryption, and running the pinned tools in a bounded sandbox, beside its YAML, schema and tar
//   libraries. git-source calls it. Chart dependencies from configured chart repositories are the one
//   download, bounded and verified.
// Entry points: RendererRegistry, createBuiltinRenderers, UnitRenderer.
// Records: none.
// May import: @tidemark/contracts.

export type { Renderer, RenderJob, RenderOutput, RenderTools, UnitRepo } from './renderer';
export { renderOutputOf } from './renderer';
export { renderWarnings, maxRenderWarnings } from './render-warnings';
export { RendererRegistry } from './renderer-registry';
export { builtinRenderers, createBuiltinRenderers, type BuiltinRendererOptions } from './builtin-renderers';
export { kustomizeRenderer, kustomizationFiles } from './kustomize/kustomize-renderer';
export { helmRenderer, helmRendererWith } from './helm/helm-renderer';
export { ChartRepositories, defaultChartLimits, type ChartLimits, type ChartRepositoriesOptions } from './helm/chart-repositories';
export type { ChartRepositorySpec } from './helm/chart-reference';
export type { ChartCredentials } from './helm/chart-download';
export { UnitRenderer, type UnitRendererOptions, type UnitRenderOptions, type RenderedUnit } from './unit-renderer';
export type { PlannedUnit, UnitPlan } from './plan-units';
export { isMarkerOrConfig } from './plan-units';
export { RenderFailure, type RenderFailureCode } from './render-failure';
export type { RepoEntry, RepoReader } from './repo-reader';
export { RepoView } from './repo-view';
export { isUnder, resolveRepoPath, folderOf } from './repo-path';
export { defaultSandboxLimits, runSandboxed, canIsolateNetwork, canHideCredentials, type SandboxLimits, type SandboxOutput } from './sandbox';
export { defaultInputLimits, type InputLimits } from './materialise';
export { unitConfigFile, parseUnitConfig, type UnitConfig } from './unit-config';
export { substituteClusterValues, type ClusterValues } from './cluster-values';
export { scrubSecrets, type SopsKeys, type SopsKeyring } from './sops/decrypt-sops';
export { sopsFormatOf } from './sops/sops-files';
export { commandRenderer, type CommandRendererSpec } from './command-renderer';
