// Owns: reading Git: fetching with isomorphic-git, revisions, the per-revision object index, tree diffs by
//   object id, safe YAML loading with limits, and keeping render units (Kustomize, Helm) in the index, for
//   the clusters and variables placement gives a unit, and fetching a unit's Kustomize remote bases from
//   the operator's hosts with the source's limits. Beyond its Git, SSH and YAML libraries it never talks
//   to Redis or a cluster.
// Entry points: GitSource, parseSourceSpecs, loadManifestFile.
// Records: none.
// May import: @tidemark/contracts, @tidemark/render, @tidemark/placement, @tidemark/oci-source.

export { GitSource, type GitSourceOptions, type PollResult, type PollOptions, type AnnouncedPush } from './git-source';
export { parseSourceSpec, parseSourceSpecs, SourceSpecError, SourceRef, SourceAuth, SourceSpecInput, type SourceSpec, type SourceAllow } from './source-spec';
export { AllowInput, allowOf } from './source-tenancy';
export { parseSshUrl } from './ssh-url';
export { fileCredentials, type CredentialFile } from './file-credentials';
export { readCommitTime } from './commit-time';
export type { ObjectChange } from './object-change';
export { defaultLoadLimits, type LoadLimits } from './load-limits';
export { loadManifestFile } from './load-manifest-file';
export type { UnitRendering, CapabilitiesSource } from './unit-index';
