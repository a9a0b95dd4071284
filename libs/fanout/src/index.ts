// Owns: routing: which clusters get a job for which object after a poll (placement, and prune where an
//   object left), the periodic full resync from Git, re-enqueueing a cluster's objects when it recovers, and
//   rebuilding a source's records from the cluster's owner labels after Redis lost them.
//   The reconciler app only wires it. Rollouts in waves: the pure engine (stepRollout), its policy and
//   gate, and the driver that steps it and enqueues each wave's clusters. The Rollout kind: a source's policy
//   read from its Git (its CRD generated from the TypeBox type it is parsed with),
//   capped by tidemark.yaml's. At run time, what Git declares for a cluster (gitDesiredState, the
//   pipeline's desired-state reader): the same placement answer routing used, a retiring source's
//   pre-delete hooks, and each revision's ordering and HealthRules.
// Entry points: routePoll, startFullResync, requeueCluster, retireSource, rebuildAfterLoss, stepRollout, RolloutDriver,
//   rolloutDriver (the driver wired to Git, placement and the queues), rolloutTargets, rolloutsConfig (the rollouts section),
//   gitDesiredState.
// Records: the rollout record (RolloutRecord, format in contracts): RolloutDriver is its one writer.
// May import: @tidemark/contracts, @tidemark/git-source, @tidemark/placement, @tidemark/queue,
//   @tidemark/status-store, @tidemark/kinds, @tidemark/ordering, @tidemark/pipeline.

export { routePoll } from './route-poll';
export { startFullResync, spreadResync } from './full-resync';
export { spreadDelayMs } from './spread-delay';
export { requeueCluster } from './recover-cluster';
export { stepRollout } from './rollout-engine';
export { rebuildAfterLoss } from './rebuild-records';
export { retireSource } from './retire-source';
export { parseRolloutPolicy, type RolloutPolicy } from './rollout-policy';
export { RolloutDriver } from './rollout-driver';
export { writeRolloutRecord } from './rollout-record';
export { rolloutCrd, rolloutCrdHeader } from './rollout-object/rollout-crd';
export { rolloutDriver, gitRolloutPolicies, rolloutTargets, type RolloutWiring } from './rollout-wiring';
export { rolloutsConfig } from './rollouts-config';
export { gitDesiredState } from './desired-state';
