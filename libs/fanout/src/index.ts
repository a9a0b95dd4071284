// Owns: routing: which clusters get a job for which object after a poll (placement, and prune where an
//   object left), the periodic full resync from Git, re-enqueueing a cluster's objects when it recovers, and
//   rebuilding a source's records from the cluster's owner labels after Redis lost them.
//   The reconciler app only wires it. Rollouts in waves: the pure engine (stepRollout), its policy and
//   gate, and the driver that steps it and enqueues each wave's clusters. The Rollout kind: a source's policy
//   read from its Git (its CRD generated from the TypeBox type it is parsed with),
//   capped by tidemark.yaml's.
// Entry points: routePoll, startFullResync, requeueCluster, retireSource, rebuildAfterLoss, stepRollout, RolloutDriver.
// Records: the rollout record (RolloutRecord, format in contracts): RolloutDriver is its one writer.
// May import: @tidemark/contracts, @tidemark/git-source, @tidemark/placement, @tidemark/queue,
//   @tidemark/status-store.

export { routePoll, type RouteContext } from './route-poll';
export { type ObjectRoute } from './fan-out';
export { startFullResync, spreadResync, type FullResyncOptions } from './full-resync';
export { spreadDelayMs } from './spread-delay';
export { requeueCluster } from './recover-cluster';
export { rebuildAfterLoss, rebuiltRecords, type LabelledObjects, type RebuildContext, type RebuildInput } from './rebuild-records';
export { retireSource, type RetireContext, type RetireResult, type BlockedPrune } from './retire-source';
export { stepRollout, type RolloutEvent, type RolloutEffect, type RolloutStep, type GateReport, type GateFinding, type RolloutNoticeKind } from './rollout-engine';
export { parseRolloutPolicy, assignWaves, batchSize, rolloutDefaults, RolloutPolicyError, type RolloutPolicy, type WavePolicy } from './rollout-policy';
export { RolloutDriver, type RolloutDriverOptions } from './rollout-driver';
export { writeRolloutRecord } from './rollout-record';
export { readGate } from './rollout-gate';
export { rolloutCrd, rolloutCrdHeader } from './rollout-object/rollout-crd';
export { RolloutObjectSpec, rolloutApiVersion, rolloutKind } from './rollout-object/rollout-kind';
export { parseRolloutObject, isRolloutObject, type GitRollout } from './rollout-object/parse-rollout-object';
export { effectivePolicy } from './rollout-object/rollout-precedence';
export { rolloutAt, RolloutObjectCache, isRolloutKey, type RolloutObjectSource } from './rollout-object/rollout-at';
