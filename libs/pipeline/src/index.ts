// Owns: reconcile: the stages (fetch, deletion, validate, features, render, apply, prune, act, health,
//   status, result) and finalize, which makes every write of a run (CR /status, Events, the status record, wake-ups). The app hands everything
//   else in (PipelineDependencies).
// Entry points: reconcile, renderForPreview, unchangedJobs, cleanupFinalizer; PolicyKeeper (each cluster's
//   admission policy for objects whose drift is prevented).
// Layout: reconcile.ts lists every step; each folder holds a stage with the refusals and helpers it makes beside it
//   (fetch/, gates/, deletion/, ordering/, render/, apply/, prune/, health/, status/, observe/); small leaves that
//   many stages read (render/tracking, observe/subject, observe/observer, fetch/allow-list) stay apart so no two
//   stage files import each other (npm run cycles). Each stage takes the
//   part of the run and of PipelineDependencies it reads (a Pick<> or its own input type), never the whole.
// Records: none of its own (it writes the status record through libs/status-store).
// May import: @tidemark/contracts, @tidemark/cluster, @tidemark/kinds, @tidemark/drift, @tidemark/ordering,
//   @tidemark/status-store, @tidemark/tracing.

export { reconcile } from './reconcile';
export { PolicyKeeper } from './gates/drift-prevention';
export { unchangedJobs } from './fetch/unchanged-resync';
export type { PipelineDependencies, PipelineOptions, DesiredObject, DesiredStateReader, Declaration, DeclarationIndex } from './dependencies';
export { cleanupFinalizer } from './render/tracking';
export type { SourceTenancy } from './dependencies';
export type { AllowList } from './fetch/allow-list';
export type { PipelineObserver, ReconcileObservation } from './observe/observer';
export { renderForPreview, type PreviewRenderDependencies } from './render/preview-render';
