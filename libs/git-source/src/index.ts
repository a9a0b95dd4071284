// Owns: reading Git: fetching with isomorphic-git, revisions, the per-revision object index, tree diffs by
//   object id, safe YAML loading with limits, and keeping render units (Kustomize, Helm) in the index, for
//   the clusters and variables placement gives a unit, and fetching a unit's Kustomize remote bases from
//   the operator's hosts with the source's limits. Beyond its Git, SSH and YAML libraries it never talks
//   to Redis or a cluster.
// Entry points: GitSource, parseSourceSpecs, loadManifestFile.
// Records: none.
// May import: @tidemark/contracts, @tidemark/render, @tidemark/placement, @tidemark/oci-source.

export { GitSource, authHeaders, type GitSourceOptions, type PollResult, type PollOptions, type ReadObjectResult, type ObjectListing } from './git-source';
export { parseSourceSpec, parseSourceSpecs, SourceSpecError, SourceRef, SourceAuth, SourceSpecInput, type SourceSpec, type SourceAllow, type SourceLimits, type SourceServiceAccount, type SourceVerify } from './source-spec';
export { AllowInput, allowOf } from './source-tenancy';
export { parseSshUrl, type SshTarget } from './ssh-url';
export { fileCredentials, type CredentialFile } from './file-credentials';
export { readCommitTime, readCommitSummary, type CommitSummary } from './commit-time';
export type { ObjectChange } from './object-change';
export type { SourceError, SourceErrorCode, SourceWarning, SourceWarningCode } from './source-error';
export type { Manifest } from './manifest';
export { defaultLoadLimits, type LoadLimits } from './load-limits';
export { loadManifestFile, type ManifestFile, type ManifestEntry, type FileProblem, type FileWarning } from './load-manifest-file';
export type { UnitRendering, UnitState, CapabilitiesSource } from './unit-index';
export type { RenderFigures } from './index-builder';
export type { UnitProvenance } from './revision-index';
export { defaultGitSizeLimits, sourceTooLarge, type GitSizeLimits } from './pack-size-guard';
