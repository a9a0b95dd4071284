// Owns: routing: which clusters get a job for which object after a poll (placement, and prune where an
//   object left), the periodic full resync from Git, re-enqueueing a cluster's objects when it recovers, and
//   rebuilding a source's records from the cluster's owner labels after Redis lost them.
//   The reconciler app only wires it.
// Entry points: routePoll, startFullResync, requeueCluster, retireSource, rebuildAfterLoss.
// Records: none of its own (it enqueues through libs/queue).
// May import: @tidemark/contracts, @tidemark/git-source, @tidemark/placement, @tidemark/queue,
//   @tidemark/status-store.

export { routePoll, type RouteContext } from './route-poll';
export { type ObjectRoute } from './fan-out';
export { startFullResync, spreadResync, type FullResyncOptions } from './full-resync';
export { spreadDelayMs } from './spread-delay';
export { requeueCluster } from './recover-cluster';
export { rebuildAfterLoss, rebuiltRecords, type LabelledObjects, type RebuildContext, type RebuildInput } from './rebuild-records';
export { retireSource, type RetireContext, type RetireResult, type BlockedPrune } from './retire-source';
