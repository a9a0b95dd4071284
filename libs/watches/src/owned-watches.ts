import { randomUUID } from 'node:crypto';
import { ObjectCache, watchObjects, type ClusterConnection, type ObjectCacheOptions, type RunningWatch, type WatchEventType, type WatchProgress } from '@tidemark/cluster';
import { RedisLease, duplicateClient, hookRunAnnotation, ownerOf, parseStatusChange, type GitOwner, type KubernetesManifest, type Logger } from '@tidemark/contracts';
import { latestRevision } from './latest-revision';
import type { StatusStore } from '@tidemark/status-store';
import { addManagedKinds, isOwnEcho, kindId, managedKinds, type WatchedKind } from './managed-kinds';
import { listedKey, missingAtList, type ListedKind } from './missing-at-list';
import type { Enqueuer } from './reference-watches';
import type { RedisClient } from '@tidemark/contracts';

export interface OwnedWatchOptions {
  clusters: ReadonlyMap<string, ClusterConnection>;
  statusStore: StatusStore;
  queues: Enqueuer;
  /** For the per-cluster lease (named by the status store's keys): one process watches a cluster. */
  redis: RedisClient;
  /** Managers whose writes are Tidemark's own. @defaultValue ['tidemark', 'tidemark-actions', 'tidemark-crds'] */
  ownManagers?: readonly string[];
  /**
   * How often the lease is looked at, and the kinds of the records that changed since (read one by
   * one: a kind new to the cluster is watched at once). @defaultValue 5000
   */
  refreshMs?: number;
  /**
   * How often every record of a cluster is read again, to stop watching kinds no record uses any
   * more (at 10,000 records a cluster, a read of all of them costs about 0.2 s of CPU). Rare: a watch
   * nobody needs costs one idle connection, and a kind new to the cluster is watched at once anyway
   * (refreshMs), and a missed announcement only sends that kind's objects to full runs (not cached)
   * until then. Once a minute it was half of a converged reconciler's CPU (bench/scale).
   * @defaultValue 900_000
   */
  relistMs?: number;
  /**
   * A watch cache per cluster, fed by these same watches, for the pipeline's reads (cacheFor);
   * with it, every process watches (a cache serves its own workers) and only the lease holder
   * enqueues. false: only the lease holder watches, and nothing is cached. @defaultValue {} (a cache of at most 50,000 objects per cluster)
   */
  cache?: ObjectCacheOptions | false;
  log?: Logger;
}

/** OwnedWatches are the running watches, and the cache they keep per cluster. */
export interface OwnedWatches {
  /** cacheFor is the cluster's watch cache; undefined without one. */
  cacheFor(cluster: string): ObjectCache | undefined;
  /** ready looks at the managed kinds now and resolves once every cluster's watches of them have listed. */
  ready(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * startOwnedWatches watches, per cluster, every kind Tidemark owns objects of. A change that
 * Tidemark did not write, or a deletion, enqueues the Git object that owns the changed object,
 * so drift is found within moments instead of at the next resync; so does a listed object whose
 * newest write, other than a status write, is not Tidemark's (changed while the kind was not watched), and an object a
 * record says was applied that a kind's completed list lacks (deleted while unwatched). Watches start and stop as the
 * set of managed kinds changes, and only the holder of a cluster's lease enqueues (a new holder lists again). The same
 * watches fill the cluster's watch cache (one watch per kind), which answers the pipeline's reads.
 */
export function startOwnedWatches(options: OwnedWatchOptions): OwnedWatches {
  const owner = `${process.pid}:${randomUUID().slice(0, 8)}`;
  const clusters = new Map([...options.clusters].map(([name, connection]) => [name, new ClusterWatches(name, connection, owner, options)]));
  const refresh = (cluster: ClusterWatches) => void cluster.refresh().catch((error: unknown) => options.log?.warn({ cluster: cluster.name, err: String(error) }, 'could not refresh owned-object watches'));
  const tick = () => clusters.forEach(refresh);
  tick();
  const timer = setInterval(tick, options.refreshMs ?? 5_000);
  // A new object of a new kind should be watched at once, not at the next tick.
  const subscriber = duplicateClient(options.redis);
  subscriber.on('error', () => undefined);
  subscriber.on('message', (_channel: string, message: string) => {
    const change = parseStatusChange(message);
    const cluster = change && clusters.get(change.cluster);
    if (cluster && change.kind === 'updated') cluster.refreshSoon(refresh, change.objectKey);
  });
  void subscriber.subscribe(options.statusStore.channel).catch(() => undefined);
  return {
    cacheFor: (cluster) => clusters.get(cluster)?.cache,
    async ready() {
      await Promise.all([...clusters.values()].map((cluster) => cluster.ready()));
    },
    async stop() {
      clearInterval(timer);
      subscriber.disconnect();
      await Promise.all([...clusters.values()].map((cluster) => cluster.stop()));
    },
  };
}

class ClusterWatches {
  private readonly running = new Map<string, RunningWatch>();
  private readonly lease: RedisLease;
  private readonly ownManagers: Set<string>;
  private pending: NodeJS.Timeout | undefined;
  /** Records announced as changed since the last refresh. */
  private readonly changed = new Set<string>();
  /** When every record was last read (relist). */
  private listedAt = 0;
  private leader = false;
  private stopped = false;
  /** Whether this process watched without the lease since it last listed as the holder. */
  private followed = false;
  /** Per watched kind, the objects its list in progress has shown so far. */
  private readonly listing = new Map<string, { keys: Set<string>; since: number }>();
  /** Kinds whose list completed since the last look for objects deleted while unwatched. */
  private readonly listed = new Map<string, ListedKind>();
  private missingCheck: NodeJS.Timeout | undefined;
  readonly cache: ObjectCache | undefined;

  constructor(readonly name: string, private readonly connection: ClusterConnection, owner: string, private readonly options: OwnedWatchOptions) {
    this.lease = new RedisLease(options.redis, options.statusStore.keys.watchLease(name), owner, Math.max(3 * (options.refreshMs ?? 5_000), 1_000));
    this.ownManagers = new Set(options.ownManagers ?? ['tidemark', 'tidemark-actions', 'tidemark-crds']);
    if (options.cache !== false) {
      this.cache = new ObjectCache({
        ownManagers: [...this.ownManagers, connection.fieldManager],
        ...options.cache,
        onOverflow: (kind, held) => options.log?.warn({ cluster: name, kind, held }, 'the watch cache is full; this kind is read from the API server'),
        onUnwatchedKind: (apiVersion, kind) => this.watch({ apiVersion, kind }),
      });
    }
  }

  /** refreshSoon coalesces a burst of status changes into one refresh, which reads only the records that changed. */
  refreshSoon(refresh: (cluster: ClusterWatches) => void, objectKey: string): void {
    this.changed.add(objectKey);
    if (this.pending) return;
    this.pending = setTimeout(() => {
      this.pending = undefined;
      refresh(this);
    }, 200);
  }

  /** refresh renews the lease and starts (and, on a relist, stops) watches as the records' kinds say. */
  async refresh(relist = false): Promise<void> {
    this.leader = await this.lease.acquire();
    if (!this.leader && !this.cache) {
      this.stopAll();
      return;
    }
    // A process without the lease watches for its cache only and enqueues nothing, so what changed
    // meanwhile was seen and dropped. When it takes the lease it lists every kind again, as at a
    // start, and those edits and deletions wake their owners now (the cache answers nothing while
    // it lists).
    if (!this.leader) this.followed = true;
    const tookOver = this.leader && this.followed;
    if (tookOver) {
      this.followed = false;
      this.options.log?.info({ cluster: this.name }, 'took the owned-object watch lease: listing every kind again');
      this.stopAll();
    }
    const wanted = await this.wantedKinds(relist || tookOver);
    if (wanted.relisted) {
      for (const [id, watch] of this.running) {
        if (!wanted.kinds.has(id)) this.stopWatch(id, watch);
      }
    }
    for (const kind of wanted.kinds.values()) this.watch(kind);
  }

  /**
   * watch starts watching a kind unless it is watched already. Besides refresh, a lookup of the
   * cache starts it for a kind no record names yet: a first sync's runs then read it from the
   * cache once it has listed, instead of each reading the API server until a record names the
   * kind (16 GETs a kind at 16 workers).
   */
  private watch(kind: WatchedKind): void {
    const id = kindId(kind.apiVersion, kind.kind);
    if (this.stopped || this.running.has(id)) return;
    const cached = this.cache?.watchHandlers(kind.apiVersion, kind.kind);
    this.running.set(id, watchObjects(this.connection, {
      ...kind,
      onEvent: (type, object, initial) => {
        // The cache first, so a run this event wakes reads what the event says.
        cached?.onEvent(type, object, initial);
        if (initial) this.listing.get(id)?.keys.add(listedKey(object.metadata.namespace ?? '', object.metadata.name));
        // A listed object is looked at like an event: an edit made while no watch was open on
        // the kind (before its first list, or while it lists again) is someone else's newest
        // write, and is found now instead of at the next resync. A controller's status write
        // is not (every Deployment has one: a restart would wake every WebApp at once).
        if (this.leader) void this.onChange(type, object, initial);
      },
      onProgress: (progress) => {
        cached?.onProgress(progress);
        this.onListProgress(id, progress);
      },
      onError: (error) => this.options.log?.warn({ cluster: this.name, kind: kind.kind, err: String(error) }, 'owned-object watch failed; retrying'),
    }));
  }

  /**
   * wantedKinds: every record's kinds when a relist is due (or asked for), else those of the records
   * that changed since the last refresh; `relisted` says whether the answer is complete.
   */
  private async wantedKinds(relist: boolean): Promise<{ kinds: Map<string, WatchedKind>; relisted: boolean }> {
    const relistMs = this.options.relistMs ?? 900_000;
    const changed = [...this.changed];
    this.changed.clear();
    if (relist || Date.now() - this.listedAt >= relistMs) {
      this.listedAt = Date.now();
      const kinds = new Map<string, WatchedKind>();
      await this.options.statusStore.scan(this.name, (record) => addManagedKinds(kinds, record));
      return { kinds, relisted: true };
    }
    const records = await this.options.statusStore.getMany(this.name, changed);
    return { kinds: managedKinds(records.filter((record) => record !== undefined)), relisted: false };
  }

  async ready(): Promise<void> {
    await this.refresh(true);
    await Promise.all([...this.running.values()].map((watch) => watch.synced));
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.pending);
    clearTimeout(this.missingCheck);
    this.stopAll();
    await this.lease.release().catch(() => false);
  }

  private stopAll(): void {
    for (const [id, watch] of this.running) this.stopWatch(id, watch);
  }

  private stopWatch(id: string, watch: RunningWatch): void {
    watch.stop();
    this.running.delete(id);
    this.listing.delete(id);
    const [apiVersion = '', kind = ''] = id.split('|');
    this.cache?.forget(apiVersion, kind);
  }

  private async onChange(type: WatchEventType, object: KubernetesManifest, listed = false): Promise<void> {
    const owner = ownerOf(object.metadata.annotations);
    // A sync hook's run is never drift: its own run looks at it until it ends (libs/pipeline stage-hooks).
    if (!owner || object.metadata.annotations?.[hookRunAnnotation] !== undefined) return;
    if (type !== 'DELETED' && isOwnEcho(object.metadata.managedFields, this.ownManagers, { statusIsEcho: listed })) return;
    await this.wake(owner);
  }

  /** onListProgress keeps what a kind's list shows; once it completes, objects it lacks are looked for soon. */
  private onListProgress(id: string, progress: WatchProgress): void {
    if (progress.type === 'listing') this.listing.set(id, { keys: new Set(), since: Date.now() });
    if (progress.type !== 'listed') return;
    const list = this.listing.get(id);
    this.listing.delete(id);
    if (!list) return;
    this.listed.set(id, list);
    // Kinds list one after another at a start: one read of the records for all of them.
    this.missingCheck ??= setTimeout(() => {
      this.missingCheck = undefined;
      void this.wakeMissing().catch((error: unknown) => this.options.log?.warn({ cluster: this.name, err: String(error) }, 'could not look for objects deleted while unwatched'));
    }, 1_000);
  }

  /**
   * wakeMissing wakes the owner of every object a record says was applied that a completed list
   * of its kind lacks (missingAtList): a deletion no event will report, found now instead of at
   * the owner's next full check.
   */
  private async wakeMissing(): Promise<void> {
    const listed = new Map(this.listed);
    this.listed.clear();
    if (!this.leader || listed.size === 0) return;
    const owners = new Map<string, GitOwner>();
    await this.options.statusStore.scan(this.name, (record) => {
      if (missingAtList(record, listed)) owners.set(record.objectKey, { source: record.source, objectKey: record.objectKey });
    });
    if (owners.size > 0) this.options.log?.info({ cluster: this.name, owners: owners.size }, 'objects deleted while unwatched: waking their owners');
    for (const owner of owners.values()) await this.wake(owner);
  }

  /** wake enqueues a drift run of a Git object at its source's latest revision. */
  private async wake(owner: GitOwner): Promise<void> {
    // Redis may be gone (failing over, or the process stopping): the next event or resync looks again.
    try {
      const revision = await latestRevision(this.options, this.name, owner);
      if (!revision) return;
      await this.options.queues.enqueue({ source: owner.source, revision, cluster: this.name, objectKey: owner.objectKey, reason: 'drift' });
    } catch (error: unknown) {
      this.options.log?.warn({ cluster: this.name, objectKey: owner.objectKey, err: String(error) }, 'could not enqueue after a change');
    }
  }
}

