// Owns: render units: the renderer registry (Kustomize, Helm; more plug in), finding units and their input
//   folders in a revision, writing those folders from the Git object store into a temporary tree, sops
//   decryption, and running the pinned tools in a bounded sandbox, beside its YAML, schema and tar
//   libraries. git-source calls it. Chart dependencies from configured chart repositories are the one
//   download, bounded and verified (from an oci:// registry, pulled by the pinned helm's own client);
//   Kustomize remote bases come through a RemoteBaseFetcher the caller gives (git-source's own Git
//   client), written beside the unit so kustomize never fetches.
// Entry points: RendererRegistry, createBuiltinRenderers, UnitRenderer.
// Records: none.
// May import: @tidemark/contracts.

export { RendererRegistry } from './renderer-registry';
export { builtinRenderers, createBuiltinRenderers } from './builtin-renderers';
export { ChartRepositories } from './helm/chart-repositories';
export type { ChartRepositorySpec } from './helm/chart-reference';
export type { ChartCredentials } from './helm/chart-download';
export { UnitRenderer, type RenderObserver } from './unit-renderer';
export type { PlannedUnit } from './plan-units';
export { RenderFailure, type RenderFailureCode } from './render-failure';
export { RepoView } from './repo-view';
export { isUnder } from './repo-path';
export { canIsolateNetwork, canHideCredentials, probeSandbox } from './sandbox';
export { type ClusterValues } from './cluster-values';
export { scrubSecrets, type SopsKeys, type SopsKeyring } from './sops/decrypt-sops';
export { commandRenderer } from './command-renderer';
export type { RemoteBase, RemoteBaseFetcher, OpenedRemoteBase } from './kustomize/remote-base';
