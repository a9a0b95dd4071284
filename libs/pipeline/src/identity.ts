import type { ClusterConnection } from '@tidemark/cluster';
import type { ReconcileJob } from '@tidemark/contracts';
import type { PipelineDependencies } from './dependencies';

/** RunConnections are the two identities a run uses. */
export interface RunConnections {
  /** Every read and write about the source's objects: GET, dry-run, apply, prune, a kind's actions. */
  connection: ClusterConnection;
  /** The kind's second field manager, under the same identity. */
  actions: ClusterConnection;
  /**
   * The reconciler's own identity, only for what Tidemark reports about an object the run has
   * already read or written as the source: the CR's /status and Events.
   */
  reporting: ClusterConnection;
}

/**
 * runConnections is the one place that decides which identity a run acts as. Anything that answers
 * a run's reads (a cache filled with the reconciler's identity, say) must take its answer from here:
 * when `connection.identity` is set, the source may only learn what that ServiceAccount may read.
 */
export function runConnections(job: ReconcileJob, deps: PipelineDependencies): RunConnections {
  const own = deps.connectionFor(job.cluster);
  const actions = deps.actionsConnectionFor(job.cluster);
  const serviceAccount = deps.tenancyFor?.(job.source)?.serviceAccount;
  if (!serviceAccount) return { connection: own, actions, reporting: own };
  return { connection: own.asServiceAccount(serviceAccount), actions: actions.asServiceAccount(serviceAccount), reporting: own };
}
