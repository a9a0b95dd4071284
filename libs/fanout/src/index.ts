// libs/fanout owns routing: which clusters get a job for which object after a poll (placement,
// and prune where an object left), the periodic full resync from Git, and re-enqueueing a
// cluster's objects when it recovers. It may import contracts, git-source, placement, queue and
// status-store; the reconciler app only wires it.

export { routePoll, type RouteContext } from './route-poll';
export { jobsForRoute, type ObjectRoute } from './fan-out';
export { startFullResync, type FullResyncOptions } from './full-resync';
export { requeueCluster } from './recover-cluster';
export { retireSource, type RetireContext, type RetireResult, type BlockedPrune } from './retire-source';
