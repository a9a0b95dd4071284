/**
 * RecordKeys builds the name of every Redis key and channel that more than one library reads,
 * from one deployment prefix. The convention: the prefix is a bare word (`tidemark`, or
 * `{tidemark}` as a Redis Cluster hash tag) and every key is `<prefix>:<record>:<id>`. Nothing
 * else builds these names, so a reader and a writer can never disagree about a colon.
 *
 * A record that belongs to one target cluster is named under that cluster's prefix instead
 * (clusterPrefix): with a hash tag `{tidemark.<cluster>}`, the tag of the cluster's queue, so a
 * Redis Cluster spreads the clusters over its primaries and an ACL can grant one cluster's keys
 * (`{tidemark.<cluster>}*`). Without a hash tag the cluster's prefix is the deployment's, and the
 * names are those of every release before per-cluster keys.
 */
export class RecordKeys {
  constructor(readonly prefix: string = 'tidemark') {
    if (prefix.length === 0 || /\s/.test(prefix) || prefix.endsWith(':')) {
      throw new Error(`The Redis key prefix "${prefix}" must be a non-empty word without spaces or a trailing colon, such as "tidemark"; keys are built as <prefix>:<record>.`);
    }
  }

  /** hashTagged says whether the prefix is a Redis Cluster hash tag (`{tidemark}`): then every cluster's records have a tag of their own. */
  get hashTagged(): boolean {
    return /^\{[^{}]+\}$/.test(this.prefix);
  }

  /**
   * clusterPrefix is the prefix of one target cluster's records: `{tidemark.<cluster>}` when the
   * deployment's prefix is a hash tag (the tag of the cluster's queue), else the deployment's prefix.
   */
  clusterPrefix(cluster: string): string {
    return this.hashTagged ? `{${this.prefix.slice(1, -1)}.${cluster}}` : this.prefix;
  }

  /** sourceStatus is the hash of one source's poll status (SourceStatus). */
  sourceStatus(source: string): string {
    return `${this.prefix}:source:${source}`;
  }

  /** clusterHealth is the JSON string of one cluster's health (ClusterHealth). */
  clusterHealth(cluster: string): string {
    return `${this.clusterPrefix(cluster)}:cluster-health:${cluster}`;
  }

  /** agentHeartbeat is the JSON of the heartbeat of the agent serving one cluster (AgentHeartbeat), with a TTL. */
  agentHeartbeat(cluster: string): string {
    return `${this.clusterPrefix(cluster)}:agent-heartbeat:${cluster}`;
  }

  /**
   * sharedAgentHeartbeat is where agents of schema 2 and older write their heartbeat (the deployment's
   * tag): the hub reads it while an agent is not upgraded yet, else its cluster would look Unavailable.
   */
  sharedAgentHeartbeat(cluster: string): string {
    return `${this.prefix}:agent-heartbeat:${cluster}`;
  }

  /** agentClusters is the set of clusters the hub's config says agents serve. */
  agentClusters(): string {
    return `${this.prefix}:agent-clusters`;
  }

  /** clusterFreeze is the JSON of one cluster's freeze (ClusterFreeze): no writes to the cluster while it exists. */
  clusterFreeze(cluster: string): string {
    return `${this.clusterPrefix(cluster)}:cluster-freeze:${cluster}`;
  }

  /** syncWindowPass is the JSON of an operator's pass for one object through a sync window that allows manual syncs (SyncWindowPass). */
  syncWindowPass(cluster: string, objectKey: string): string {
    return `${this.clusterPrefix(cluster)}:window-pass:${cluster}:${objectKey}`;
  }

  /** objectStatus is the hash objectKey → ObjectStatus JSON of one cluster. */
  objectStatus(cluster: string): string {
    return `${this.clusterPrefix(cluster)}:status:${cluster}`;
  }

  /**
   * sharedObjectStatus is the name releases of schema 2 and older read a cluster's status records
   * under (the deployment's tag): a newer release keeps a copy there while one of them still runs,
   * so its dependency checks see what the newer workers did (ClusterKeysMover).
   */
  sharedObjectStatus(cluster: string): string {
    return `${this.prefix}:status:${cluster}`;
  }

  /** suspended is the hash objectKey → "1" of one cluster's suspended objects. */
  suspended(cluster: string): string {
    return `${this.clusterPrefix(cluster)}:suspended:${cluster}`;
  }

  /** history is the capped list of one object's ReconcileRecords, newest first. */
  history(cluster: string, objectKey: string): string {
    return `${this.clusterPrefix(cluster)}:history:${cluster}:${objectKey}`;
  }

  /** statusClusters is the set of clusters that have object status records. */
  get statusClusters(): string {
    return `${this.prefix}:status-clusters`;
  }

  /** statusChanges is the pub/sub channel of StatusChange messages. */
  get statusChanges(): string {
    return `${this.prefix}:status-changes`;
  }

  /** treeChanges is the pub/sub channel of TreeChange messages (live children rewritten). */
  get treeChanges(): string {
    return `${this.prefix}:tree-changes`;
  }

  /** schema is the hash {version, writtenBy, at} of the newest record schema any release wrote here. */
  get schema(): string {
    return `${this.prefix}:schema`;
  }

  /**
   * recordsLost is the hash `lostAt` → when a process found no schema claim (Redis new or wiped).
   * Each pair's rebuild since is marked under its cluster's tag (recordsRebuilt).
   */
  get recordsLost(): string {
    return `${this.prefix}:records-lost`;
  }

  /**
   * recordsRebuilt is one cluster's hash `<source>` → the summary of that source's rebuild from the
   * cluster's owner labels since the loss: under the cluster's tag, so the agent serving the cluster
   * writes its own marks with no grant on a shared key.
   */
  recordsRebuilt(cluster: string): string {
    return `${this.clusterPrefix(cluster)}:records-rebuilt:${cluster}`;
  }

  /** pruneHold is the JSON of one source's mass-prune hold on one cluster (PruneHold). */
  pruneHold(source: string, cluster: string): string {
    return `${this.clusterPrefix(cluster)}:prune-hold:${source}:${cluster}`;
  }

  /**
   * pruneHolds is the set of `<cluster>/<source>` that have a prune hold record on a cluster: one
   * set per cluster with a hash tag, else one set for every cluster (the same name for each).
   */
  pruneHolds(cluster: string): string {
    return `${this.clusterPrefix(cluster)}:prune-holds`;
  }

  /** sourceIndex is the set of source names some poller ran (config-file and Source objects), for the dashboard. */
  get sourceIndex(): string {
    return `${this.prefix}:sources`;
  }

  /** sourceLease elects the one poller of a source. */
  sourceLease(source: string): string {
    return `${this.prefix}:lease:${source}`;
  }

  /** healthLease elects the one health checker of a cluster. */
  healthLease(cluster: string): string {
    return `${this.clusterPrefix(cluster)}:lease:health:${cluster}`;
  }

  /** watchLease elects the one process that watches a cluster's owned objects. */
  watchLease(cluster: string): string {
    return `${this.clusterPrefix(cluster)}:lease:watch:${cluster}`;
  }

  /** sourceCommits is the capped list of a source's fetched commits (SourceCommit JSON), newest first. */
  sourceCommits(source: string): string {
    return `${this.prefix}:source:${source}:commits`;
  }

  /** liveChildren is the hash owner uid → LiveChild[] JSON of one cluster: the ReplicaSets and Pods under what Tidemark applied. */
  liveChildren(cluster: string): string {
    return `${this.clusterPrefix(cluster)}:tree:${cluster}`;
  }

  /**
   * revisionLive is the hash `<cluster>|first` / `<cluster>|last` → time an object of a source became
   * Ready at a revision on a cluster: one hash per cluster with a hash tag, else one for every cluster.
   */
  revisionLive(source: string, revision: string, cluster: string): string {
    return `${this.clusterPrefix(cluster)}:revision-live:${source}:${revision}`;
  }

  /**
   * commitStatus is the hash of one commit's status on one cluster for the Git host: `o:<objectKey>` →
   * pending|done|failed for each object the commit changed there, counters, the first failure's reason,
   * and `posted:<state>` once a replica has claimed posting that state.
   */
  commitStatus(source: string, revision: string, cluster: string): string {
    return `${this.clusterPrefix(cluster)}:commit-status:${source}:${revision}:${cluster}`;
  }

  /**
   * commitStatusOpen is the sorted set of a source's commits on one cluster whose `pending` status was
   * claimed and whose final one was not yet, scored by when they were picked up: what a newer commit may supersede.
   */
  commitStatusOpen(source: string, cluster: string): string {
    return `${this.clusterPrefix(cluster)}:commit-status-open:${source}:${cluster}`;
  }

  /**
   * commitClock is the hash of one commit's commit-to-live clock on one cluster: `atMs` and `origin`
   * (when the change started), and `o:<objectKey>` → `pending` or the seconds until it was Ready.
   */
  commitClock(source: string, revision: string, cluster: string): string {
    return `${this.clusterPrefix(cluster)}:commit-clock:${source}:${revision}:${cluster}`;
  }

  /** webhookArrival is the time (ms) a push webhook of a source arrived, until the poll it triggers takes it. */
  webhookArrival(source: string): string {
    return `${this.prefix}:webhook-arrival:${source}`;
  }

  /** clusterSeries is the capped list of a cluster's samples (ClusterSample JSON), newest first. */
  clusterSeries(cluster: string): string {
    return `${this.clusterPrefix(cluster)}:cluster-series:${cluster}`;
  }

  /** treeLease elects the one process that records a cluster's resource trees. */
  treeLease(cluster: string): string {
    return `${this.clusterPrefix(cluster)}:lease:tree:${cluster}`;
  }

  /** seriesLease elects the one process that samples the clusters' figures. */
  get seriesLease(): string {
    return `${this.prefix}:lease:cluster-series`;
  }

  /** sourceHeads is the pub/sub channel of SourceHead hints: a source may have moved (agents fetch ahead of their jobs). */
  get sourceHeads(): string {
    return `${this.prefix}:source-heads`;
  }

  /** pollNow is the channel that asks a source's leader to poll (the message is the source). */
  get pollNow(): string {
    return `${this.prefix}:poll-now`;
  }

  /** leaseReleased is the channel that says a poller gave up a source's lease. */
  get leaseReleased(): string {
    return `${this.prefix}:lease-released`;
  }

  /**
   * dependencyWaiters is the set of objects of one cluster waiting for a dependency, by wait
   * token (`object:<objectKey>`, `crd:<group>/<Kind>`), each a DependencyWaiter JSON.
   */
  dependencyWaiters(cluster: string, token: string): string {
    return `${this.clusterPrefix(cluster)}:waiters:${cluster}:${token}`;
  }

  /** dashboardSession is one dashboard sign-in, by the SHA-256 of its cookie's id (never the id). */
  dashboardSession(hashedId: string): string {
    return `${this.prefix}:dashboard-session:${hashedId}`;
  }

  /** dashboardSessionsOf is the set of hashed session ids a token's name signed in with. */
  dashboardSessionsOf(name: string): string {
    return `${this.prefix}:dashboard-sessions-of:${name}`;
  }

  /** preview is the JSON of one ref's PreviewReport (the ref hex-encoded: branch names may hold colons). */
  preview(source: string, ref: string): string {
    return `${this.prefix}:preview:${source}:${Buffer.from(ref).toString('hex')}`;
  }

  /** previews is the sorted set (by time) of `<source>/<ref>` that have a preview report. */
  get previews(): string {
    return `${this.prefix}:previews`;
  }

  /** rollout is the JSON of one source's rollout (RolloutRecord): its waves and each cluster's target revision. */
  rollout(source: string): string {
    return `${this.prefix}:rollout:${source}`;
  }

  /** rollouts is the set of source names that have a rollout record, for the dashboard. */
  get rollouts(): string {
    return `${this.prefix}:rollouts`;
  }

  /** rolloutCommands is the list of operators' commands (RolloutCommand JSON) for one source's rollout driver. */
  rolloutCommands(source: string): string {
    return `${this.prefix}:rollout-commands:${source}`;
  }

  /** rolloutLease elects the one process that drives the rollouts. */
  get rolloutLease(): string {
    return `${this.prefix}:lease:rollouts`;
  }
}
