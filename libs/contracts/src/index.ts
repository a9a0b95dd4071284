// Owns: what libraries share: job payloads, status records, conditions and reasons, an object's verdict
//   (verdictOf), the three failure kinds and messageOf, object keys, the owner annotation, the logger
//   interface, content hashes, what a sync hook is (hook.ts), the bounded walk of a tar archive
//   (bounded-tar.ts), the one rule for what a secret is (redaction.ts), what a runnable part of a process is
//   (runnable.ts: start, stop, started in order and stopped in reverse), how a TypeBox schema
//   becomes a CRD (crd/: crdSchemaOf and the one envelope builder, customResourceDefinition), and the key and format of
//   every Redis record read by more than one library. ioredis is used for types only; tar-stream
//   reads archives.
// Entry points: RecordKeys, ReconcileJob, ObjectStatus, setCondition, verdictOf, messageOf, TerminalError,
//   TransientError, formatObjectKey.
// Records: the key of every shared record (RecordKeys, one prefix convention; a target cluster's records under
//   its own hash tag, and moveClusterKeys for an older release's), the formats and parsers of
//   SourceStatus, ClusterHealth, AgentHeartbeat, the cluster series, ClusterFreeze, StatusChange, RedisLease, the preview
//   report, revisionFor, SyncWindowPass and the rollout record (RolloutRecord, rolloutTargetOf); record-fields.ts holds the
//   parsers' checks; their writers live in the libraries that own them.
// May import: no other Tidemark library.

export { formatObjectKey, parseObjectKey, groupOf, describeObject, type ObjectRef } from './object-key';
export { ReconcileJob, JobReason, dropTraceparent, jobFlags, withReason } from './job';
export { parseTraceparent, formatTraceparent } from './traceparent';
export { healthRuleApiVersion, healthRuleGroup, healthRuleKind, isHealthRuleKey } from './health-rule-object';
export { isReadOnlyKey } from './read-only-kind';
export { PreviewJob, previewQueueName } from './preview-job';
export { SourceName, maxSourceNameLength } from './source-name';
export { ConditionType, Reason, setCondition, findCondition, markReady, markProgressing, markStalled, markFailed, markFailure, type Condition } from './conditions';
export { TerminalError, TransientError, NotReadyError, isReconcileFailure, messageOf, failureCategories, type ReconcileFailure, type FailureCategory } from './errors';
export type { KubernetesManifest } from './manifest';
export { withCelRules, type CelRule } from './crd/crd-schema';
export { customResourceDefinition, kindObjectSchema, namespacedKindCrd } from './crd/crd-envelope';
export type { ClusterCapabilities } from './cluster-capabilities';
export type { SourceAllowList } from './source-allow';
export type { ObjectStatus, DependencyEdge, DependencyEdges, RenderUnitRef, ReconcileRecord, InventoryEntry, DriftItem, ChangeCounts, FailureSummary, AppliedResource, AppliedVersion, LiveChild, ResourceHealth } from './status';
export type { ReconcileOutcome, StalledAt } from './outcome';
export type { Logger } from './logger';
export { runnable, idle, Runnables, type Runnable } from './runnable';
export { stableStringify } from './stable-stringify';
export { contentHash } from './content-hash';
export { walkTar, tarEntryOf, TarWalkError, type TarEntry } from './bounded-tar';
export { settlementOf, verdictOf, type VerdictInput, type VerdictState } from './verdict';
export { isSecretKey, scrubText, logTail, redactUrl, redactValue, redactedText, isRedactedObject } from './redaction';
export { newestFirst, type ManagedFieldsEntry } from './managed-fields';
export { ownerAnnotation, ownerLabel, ownerLabelValue, formatOwner, ownerOf, appliedOwnerAnnotation, type GitOwner } from './owner';
export { RecordKeys } from './records/record-keys';
export { jsonRecordOf, jsonListOf, recordOf, textOf, textsOf, countOf, oneOf, listOf, optional, type FieldRecord } from './records/record-fields';
export { readSourceStatus, parseSourceStatus, readSourceCommits, keptProblems, keptWarnings, keptWarningLength, keptCommits, sourceSuspendedField, type SourceStatus, type SourceProblem, type SourceCommit } from './records/source-status';
export { readClusterHealth, parseClusterHealth, type ClusterHealth } from './records/cluster-health';
export { parseSyncWindowPass, syncWindowPassSeconds, type SyncWindowPass } from './records/sync-window-pass';
export { readAgentHeartbeat, readAgentClusters, type AgentHeartbeat } from './records/agent-heartbeat';
export { readClusterFreeze, describeFreeze, maxFreezeReasonLength, type ClusterFreeze } from './records/cluster-freeze';
export { parseSourceHead, sourceHeadMessage, type SourceHead } from './records/source-head';
export { parseStatusChange, parseStatusSync, type StatusChange, type StatusSync } from './records/status-change';
export { parseTreeChange, type TreeChange } from './records/tree-change';
export { duplicateClient, type RedisClient } from './records/redis-client';
export { RedisLease } from './records/redis-lease';
export { moveClusterKeys, movedName } from './records/cluster-keys-move';
export { redisSchemaVersion, reconcileJobVersion, reconcileJobName, jobSchemaVersion, claimRedisSchema, expectRedisSchema, SchemaTooNewError } from './records/schema-version';
export { newestClusterSample, readClusterSeries, type ClusterSample } from './records/cluster-series';
export { revisionFor } from './records/revision-for';
export { parseRolloutRecord, readRolloutRecord, listRolloutSources, rolloutTargetOf, rolloutCommandRefusal, pushRolloutCommand, takeRolloutCommands, rolloutPhases, rolloutCommandVerbs, RolloutRecordError, type RolloutRecord, type RolloutCell, type RolloutHalt, type RolloutCommand, type RolloutCommandVerb } from './records/rollout';
export { readPreviewReport, listPreviews, previewTtlSeconds, boundPreviewReport, type PreviewReport, type PreviewPullRequest, type PreviewChange, type PreviewHook, type PreviewField, type PreviewAction, type PreviewBlastRadius } from './records/preview';
export { hookAnnotation, helmHookAnnotation, hookRunAnnotation, hookPhases, parseHook, isHookObject, hookRunName, type Hook } from './hook';
