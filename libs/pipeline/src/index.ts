export { reconcile } from './reconcile';
export type { PipelineDependencies, PipelineOptions, DesiredObject, DesiredStateReader, PipelineLogger } from './dependencies';
export { cleanupFinalizer, pruneEmptyAnnotation } from './tracking';
export { specHash } from './hash';
export type { PipelineObserver, ReconcileObservation, ReconcileResult } from './observer';
