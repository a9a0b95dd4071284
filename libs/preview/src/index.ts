// Owns: previews of a ref that is not merged: what it would do on each cluster it targets (the pipeline's
//   render and validate stages, then server-side dry-runs), the blast radius, the markdown a pull request
//   shows and its comment there (through libs/git-host). It writes nothing to a cluster or to the status
//   store.
// Entry points: previewRevision, runPreviewJob, requestPreview, previewMarkdown, previewComments.
// Records: the preview report (preview:<source>:<ref>, previews), whose format and parser live in
//   contracts; every write is here (preview-record.ts), the request's queued one included.
// May import: @tidemark/contracts, @tidemark/cluster, @tidemark/drift, @tidemark/git-host,
//   @tidemark/pipeline, @tidemark/placement.

export { previewRevision } from './preview-revision';
export { blastRadius } from './blast-radius';
export { previewMarkdown } from './preview-markdown';
export { runPreviewJob, type PreviewJobDependencies, type PreviewSourceHandle } from './run-preview-job';
export { openGitPreviewHead } from './git-preview-heads';
export { commentPreview } from './preview-comment';
export { writePreviewReport, requestPreview, markPreviewQueued } from './preview-record';
export { previewComments } from './preview-comments';
