// libs/pipeline owns reconcile: the stages (fetch, deletion, validate, features, render, apply,
// prune, act, health, status, result), one file each, and finalizeStatus, the run's one write
// to the status store. It may import contracts, cluster, kinds, drift, ordering and status-store; the app
// hands everything else in (PipelineDependencies).

export { reconcile } from './reconcile';
export { unchangedJobs } from './unchanged-resync';
export type { PipelineDependencies, PipelineOptions, DesiredObject, DesiredStateReader, PlacedIdentity, DependencyWaitRegistry, Declaration, DeclarationIndex } from './dependencies';
export { cleanupFinalizer, pruneEmptyAnnotation } from './tracking';
export type { SourceTenancy } from './source-tenancy';
export type { AllowList } from './allow-list';
export type { PipelineObserver, ReconcileObservation, ReconcileResult } from './observer';
export { renderForPreview, type PreviewRenderInput, type PreviewRenderDependencies, type PreviewRendered } from './preview-render';
export { liveIdentity, canonicalResource } from './live-identity';
