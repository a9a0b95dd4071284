export { GitSource, type GitSourceOptions, type PollResult, type PollOptions, type ReadObjectResult, type ObjectListing } from './git-source';
export { parseSourceSpec, parseSourceSpecs, SourceSpecError, SourceRef, SourceAuth, type SourceSpec } from './source-spec';
export { redactUrl } from './redact-url';
export { readCommitTime } from './commit-time';
export type { ObjectChange } from './object-change';
export type { SourceError, SourceErrorCode } from './source-error';
export type { Manifest } from './manifest';
export { defaultLoadLimits, type LoadLimits } from './load-limits';
export { loadManifestFile, type ManifestFile, type ManifestEntry, type FileProblem } from './load-manifest-file';
