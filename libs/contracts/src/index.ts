export { formatObjectKey, parseObjectKey, groupOf, type ObjectRef } from './object-key';
export { ReconcileJob, JobReason } from './job';
export { ConditionType, Reason, setCondition, findCondition, markReady, markProgressing, markStalled, isStalled, type Condition } from './conditions';
export { TerminalError, TransientError, NotReadyError, isReconcileFailure, type ReconcileFailure } from './errors';
export type { KubernetesManifest } from './manifest';
export type { ObjectStatus, ReconcileRecord, InventoryEntry, DriftItem, ChangeCounts } from './status';
export type { ReconcileOutcome } from './outcome';
export { stableStringify } from './stable-stringify';
export { newestFirst, type ManagedFieldsEntry } from './managed-fields';
