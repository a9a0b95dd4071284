import type { Redis } from 'ioredis';
import { RecordKeys, parseClusterHealth, type LiveChild, type ObjectStatus, type ReconcileRecord, type StatusChange, type StatusSync, type TreeChange, redisSchemaVersion } from '@tidemark/contracts';
import { parseStatusRecord, scanRecords, withClusterAvailability } from './status-view';
import { parseLiveChildren, parseReconcileRecord } from './stored-lists';
import type { RedisClient } from '@tidemark/contracts';

export interface StatusStoreOptions {
  /** An ioredis connection the caller owns (and closes). */
  redis: RedisClient;
  /** The deployment's key prefix (see RecordKeys); a hash tag such as `{tidemark}` on Redis Cluster. @defaultValue 'tidemark' */
  prefix?: string;
  /** How many reconcile records to keep per object. @defaultValue 20 */
  historyLength?: number;
  /**
   * Whether writing a record adds its cluster to the shared index of clusters (statusClusters).
   * An agent, whose Redis user may write only its own cluster's keys, leaves it to the hub
   * (indexClusters). @defaultValue true
   */
  indexesClusters?: boolean;
  /**
   * Whether each status record is also written under the shared name a release of schema 2 reads
   * (RecordKeys.sharedObjectStatus), asked at each write: while one may still run in a rolling
   * upgrade (ClusterKeysMover.olderReleaseRuns). @defaultValue never
   */
  copyToSharedName?: () => boolean;
}

// Set or clear the flag only while the object has a record: a flag without a record names an
// object nobody can see, and would outlive its deletion.
const setSuspendedScript = `
if redis.call('HEXISTS', KEYS[1], ARGV[1]) == 0 then return false end
if ARGV[2] == '1' then redis.call('HSET', KEYS[2], ARGV[1], '1') else redis.call('HDEL', KEYS[2], ARGV[1]) end
redis.call('PUBLISH', ARGV[3], ARGV[4])
return 1
`;

/** RevisionLive says when a revision's objects first and last became Ready on a cluster. */
export interface RevisionLive {
  first: string;
  last: string;
}

const revisionLiveSeconds = 7 * 24 * 3600;

/** changedNothing: the run created, configured and deleted nothing (a failed run changes nothing either). */
function changedNothing(entry: ReconcileRecord): boolean {
  const changes = entry.changes;
  return !changes || changes.created + changes.configured + changes.deleted === 0;
}

// Folds a run into the newest history entry when both changed nothing and ended alike
// (revision, result, stage, message), the entry then naming the newest run's trace; else pushes it and trims the list.
const appendHistoryScript = `
local head = redis.call('LINDEX', KEYS[1], 0)
if head and ARGV[2] == '1' then
  local ok, last = pcall(cjson.decode, head)
  if ok and type(last) == 'table' and last.revision == ARGV[3] and last.result == ARGV[4]
    and (last.stage or '') == ARGV[5] and (last.message or '') == ARGV[6]
    and (type(last.changes) ~= 'table' or (last.changes.created == 0 and last.changes.configured == 0 and last.changes.deleted == 0)) then
    last.repeats = (last.repeats or 1) + 1
    last.lastAt = ARGV[7]
    if ARGV[9] ~= '' then last.traceId = ARGV[9] end
    redis.call('LSET', KEYS[1], 0, cjson.encode(last))
    return 0
  end
end
redis.call('LPUSH', KEYS[1], ARGV[1])
redis.call('LTRIM', KEYS[1], 0, tonumber(ARGV[8]) - 1)
return 1
`;

/**
 * StatusStore keeps one record per (cluster, object) in a Redis hash per cluster, a capped
 * history list per object, and publishes each change. It never holds object bodies or secrets.
 *
 * Three writers, three fields of their own, none read-modify-writes another's: the pipeline
 * writes the record and its history entry once per run (`record`); an operator's suspend is a
 * flag in a hash of its own (`setSuspended`); the health monitor's cluster availability is the
 * cluster-health record. Reads (`get`, `list`) join the three.
 */
export class StatusStore {
  private readonly redis: RedisClient;
  /** The names of every shared record, from this store's prefix. */
  readonly keys: RecordKeys;
  private readonly historyLength: number;
  private readonly indexesClusters: boolean;
  private readonly copyToSharedName: () => boolean;
  /** Clusters this store has added to the shared index (with a hash tag, a command of its own, sent once per cluster). */
  private readonly indexed = new Set<string>();

  constructor(options: StatusStoreOptions) {
    this.redis = options.redis;
    this.keys = new RecordKeys(options.prefix ?? 'tidemark');
    this.historyLength = options.historyLength ?? 20;
    this.indexesClusters = options.indexesClusters ?? true;
    this.copyToSharedName = options.copyToSharedName ?? (() => false);
  }

  /** indexClusters adds clusters to the shared index of clusters with records (the hub's, for its agents' clusters). */
  async indexClusters(clusters: readonly string[]): Promise<void> {
    if (clusters.length === 0) return;
    await this.redis.sadd(this.keys.statusClusters, ...clusters);
    for (const cluster of clusters) this.indexed.add(cluster);
  }

  /** channel is the pub/sub channel that carries StatusChange messages. */
  get channel(): string {
    return this.keys.statusChanges;
  }

  /** get returns an object's status as readers see it: the record, its suspend flag and its cluster's availability. */
  async get(cluster: string, objectKey: string): Promise<ObjectStatus | undefined> {
    const [raw, suspended, health] = await this.read(this.redis.pipeline()
      .hget(this.keys.objectStatus(cluster), objectKey)
      .hget(this.keys.suspended(cluster), objectKey)
      .get(this.keys.clusterHealth(cluster)));
    const record = parseStatusRecord(raw);
    if (!record) return undefined;
    return withClusterAvailability({ ...record, ...(suspended ? { suspended: true } : {}) }, parseClusterHealth(cluster, health));
  }

  /** getMany is get for many objects of one cluster, in one round trip (a resync sweep's batch). */
  async getMany(cluster: string, objectKeys: readonly string[]): Promise<(ObjectStatus | undefined)[]> {
    if (objectKeys.length === 0) return [];
    const replies = await this.redis.pipeline()
      .hmget(this.keys.objectStatus(cluster), ...objectKeys)
      .hmget(this.keys.suspended(cluster), ...objectKeys)
      .get(this.keys.clusterHealth(cluster))
      .exec();
    const reply = pipelineReplies(replies);
    const [raws, suspended] = [reply<(string | null)[]>(0), reply<(string | null)[]>(1)];
    const health = parseClusterHealth(cluster, reply<string | null>(2));
    return raws.map((raw, index) => {
      const record = parseStatusRecord(raw);
      return record && withClusterAvailability({ ...record, ...(suspended[index] ? { suspended: true } : {}) }, health);
    });
  }

  /**
   * record writes an object's status and its history entry in one transaction, once per run,
   * and announces it. `status` may be omitted when a run changes nothing but the history. A
   * `suspended` field in it is ignored: the flag is the operator's (setSuspended).
   */
  async record(cluster: string, objectKey: string, status: ObjectStatus | undefined, entry: ReconcileRecord): Promise<void> {
    const history = this.keys.history(cluster, objectKey);
    const transaction = this.redis.multi();
    if (status) this.addPut(transaction, status);
    this.addHistory(transaction, history, entry);
    await Promise.all([this.exec(transaction), status ? this.index(status.cluster) : undefined]);
    if (status) await this.copyShared(status);
  }

  /** put writes a record without a history entry (seeding, tests); `suspended` in it is ignored. */
  async put(status: ObjectStatus): Promise<void> {
    await Promise.all([this.exec(this.addPut(this.redis.multi(), status)), this.index(status.cluster)]);
    await this.copyShared(status);
  }

  /** copyShared writes the record under the shared name too while an older release may read it there (another slot: a command of its own). */
  private async copyShared(status: ObjectStatus): Promise<void> {
    if (!this.keys.hashTagged || !this.copyToSharedName()) return;
    const { suspended: _ignored, ...rest } = status;
    await this.redis.hset(this.keys.sharedObjectStatus(status.cluster), status.objectKey, JSON.stringify({ ...rest, schemaVersion: redisSchemaVersion }));
  }

  /**
   * index adds a cluster to the shared index when its records live under a tag of their own (a
   * transaction cannot span two slots); without a hash tag addPut's transaction does it.
   */
  private async index(cluster: string): Promise<void> {
    if (!this.keys.hashTagged || !this.indexesClusters || this.indexed.has(cluster)) return;
    await this.redis.sadd(this.keys.statusClusters, cluster);
    this.indexed.add(cluster);
  }

  /**
   * seed writes a record only where none is, with its history entry, and announces it; true when
   * written. It is for records rebuilt from the cluster after Redis lost them: a run's own record wins.
   * Like `record`, it keeps to the cluster's keys with a hash tag (an agent's rebuild may write no other).
   */
  async seed(status: ObjectStatus, entry: ReconcileRecord): Promise<boolean> {
    const { suspended: _ignored, ...rest } = status;
    const written = await this.redis.hsetnx(this.keys.objectStatus(status.cluster), status.objectKey, JSON.stringify({ ...rest, schemaVersion: redisSchemaVersion }));
    if (written !== 1) return false;
    const change: StatusChange = { cluster: status.cluster, objectKey: status.objectKey, kind: 'updated' };
    const transaction = this.redis.multi().publish(this.channel, JSON.stringify(change));
    if (!this.keys.hashTagged && this.indexesClusters) transaction.sadd(this.keys.statusClusters, status.cluster);
    await Promise.all([this.exec(this.addHistory(transaction, this.keys.history(status.cluster, status.objectKey), entry)), this.index(status.cluster)]);
    await this.copyShared(status);
    return true;
  }

  /**
   * setSuspended marks an object suspended (the pipeline then skips it) or resumes it, as a
   * field of its own: a run that finishes meanwhile never undoes it. An object without a record
   * (never reconciled, or deleted) cannot be suspended: it returns undefined and sets nothing.
   */
  async setSuspended(cluster: string, objectKey: string, suspended: boolean): Promise<ObjectStatus | undefined> {
    const change = JSON.stringify({ cluster, objectKey, kind: 'updated' } satisfies StatusChange);
    const written = await this.redis.eval(setSuspendedScript, 2, this.keys.objectStatus(cluster), this.keys.suspended(cluster), objectKey, suspended ? '1' : '0', this.channel, change);
    if (written !== 1) return undefined;
    return this.get(cluster, objectKey);
  }

  /** delete removes an object's record, history and suspend flag. */
  async delete(cluster: string, objectKey: string): Promise<void> {
    if (this.keys.hashTagged && this.copyToSharedName()) await this.redis.hdel(this.keys.sharedObjectStatus(cluster), objectKey);
    await this.exec(this.redis.multi()
      .hdel(this.keys.objectStatus(cluster), objectKey)
      .hdel(this.keys.suspended(cluster), objectKey)
      .del(this.keys.history(cluster, objectKey))
      .publish(this.channel, JSON.stringify({ cluster, objectKey, kind: 'deleted' } satisfies StatusChange)));
  }

  /**
   * publishSync sends a reader's sync marker on the status channel, from the node that holds the
   * records (the transaction names one of its keys): a subscriber receives it after every change
   * announced before it, which the writers announce in the transaction that writes the record.
   * With a hash tag it sends one from each cluster's slot; it returns how many it sent.
   */
  async publishSync(token: string): Promise<number> {
    const marker = JSON.stringify({ sync: token } satisfies StatusSync);
    if (!this.keys.hashTagged) {
      await this.exec(this.redis.multi().exists(this.keys.statusClusters).publish(this.channel, marker));
      return 1;
    }
    // Each cluster's records have a slot of their own, maybe on another node: one marker from each.
    const clusters = await this.clusters();
    await Promise.all(clusters.map((cluster) => this.exec(this.redis.multi().exists(this.keys.objectStatus(cluster)).publish(this.channel, marker))));
    return clusters.length;
  }

  /** list returns every record of a cluster, as get sees each. */
  async list(cluster: string): Promise<ObjectStatus[]> {
    const replies = await this.redis.pipeline()
      .hvals(this.keys.objectStatus(cluster))
      .hkeys(this.keys.suspended(cluster))
      .get(this.keys.clusterHealth(cluster))
      .exec();
    const reply = pipelineReplies(replies);
    const suspended = new Set(reply<string[]>(1));
    const health = parseClusterHealth(cluster, reply<string | null>(2));
    const records: ObjectStatus[] = [];
    for (const raw of reply<string[]>(0)) {
      const record = parseStatusRecord(raw);
      if (record) records.push(withClusterAvailability(suspended.has(record.objectKey) ? { ...record, suspended: true } : record, health));
    }
    return records;
  }

  /**
   * scan visits every record of a cluster, as list sees each (suspended flags aside), a few hundred
   * at a time: a reader that only counts or collects kinds holds no more than one batch (at 10,000
   * records a cluster, list holds all of them at once, tens of MiB).
   */
  async scan(cluster: string, visit: (record: ObjectStatus) => void): Promise<void> {
    const health = parseClusterHealth(cluster, await this.redis.get(this.keys.clusterHealth(cluster)));
    await scanRecords(this.redis, this.keys.objectStatus(cluster), (_objectKey, raw) => {
      const record = parseStatusRecord(raw);
      if (record) visit(withClusterAvailability(record, health));
    });
  }

  /**
   * holders returns, per object key, the clusters holding a record of it from `source`: for the
   * keys given (one HMGET per cluster), or for every object of the source when none are.
   */
  async holders(source: string, clusters: readonly string[], objectKeys?: readonly string[]): Promise<Map<string, string[]>> {
    const held = new Map<string, string[]>();
    if (objectKeys?.length === 0) return held;
    // One command per cluster, not one pipeline: with a hash tag the clusters' records lie in different slots.
    const replies = await Promise.all(clusters.map((cluster) => objectKeys
      ? this.redis.hmget(this.keys.objectStatus(cluster), ...objectKeys)
      : this.redis.hvals(this.keys.objectStatus(cluster))));
    clusters.forEach((cluster, index) => {
      for (const raw of replies[index] ?? []) {
        const record = parseStatusRecord(raw);
        if (record?.source === source) held.set(record.objectKey, [...(held.get(record.objectKey) ?? []), cluster]);
      }
    });
    return held;
  }

  /** objectKeys lists the keys of a cluster's records, without reading them. */
  async objectKeys(cluster: string): Promise<string[]> {
    return this.redis.hkeys(this.keys.objectStatus(cluster));
  }

  /**
   * announceCluster tells live readers that every object of a cluster changed as they see it
   * (its availability moved), without writing any record.
   */
  async announceCluster(cluster: string): Promise<void> {
    const pipeline = this.redis.pipeline();
    for (const objectKey of await this.objectKeys(cluster)) pipeline.publish(this.channel, JSON.stringify({ cluster, objectKey, kind: 'updated' } satisfies StatusChange));
    await pipeline.exec();
  }

  /** clusters lists the clusters that have records. */
  async clusters(): Promise<string[]> {
    return (await this.redis.smembers(this.keys.statusClusters)).sort();
  }

  /** appendHistory adds a history entry alone (seeding, tests); runs use record. */
  async appendHistory(cluster: string, objectKey: string, entry: ReconcileRecord): Promise<void> {
    await this.exec(this.addHistory(this.redis.multi(), this.keys.history(cluster, objectKey), entry));
  }

  /** treeChannel is the pub/sub channel that carries TreeChange messages. */
  get treeChannel(): string {
    return this.keys.treeChanges;
  }

  /**
   * writeLiveChildren records, per applied object (by uid), the children controllers made for it
   * (ReplicaSets, Pods); an empty list removes the entry. `replace` drops every other entry of
   * the cluster first, for a watcher that has just listed everything afresh. It then announces
   * the owners on the tree channel, in the same transaction.
   */
  async writeLiveChildren(cluster: string, byOwner: ReadonlyMap<string, readonly LiveChild[]>, replace = false): Promise<void> {
    const key = this.keys.liveChildren(cluster);
    const transaction = this.redis.multi();
    if (replace) transaction.del(key);
    const removed = [...byOwner].filter(([, children]) => children.length === 0).map(([uid]) => uid);
    const kept = [...byOwner].filter(([, children]) => children.length > 0).map(([uid, children]) => [uid, JSON.stringify(children)] as const);
    if (removed.length > 0 && !replace) transaction.hdel(key, ...removed);
    if (kept.length > 0) transaction.hset(key, Object.fromEntries(kept));
    // A replacement rewrote every owner of the cluster: the message says so instead of naming them all.
    const change: TreeChange = { cluster, ownerUids: replace ? [] : [...byOwner.keys()], replaced: replace };
    transaction.publish(this.treeChannel, JSON.stringify(change));
    await this.exec(transaction);
  }

  /** liveChildren reads the children recorded for the given owner uids. */
  async liveChildren(cluster: string, ownerUids: readonly string[]): Promise<Map<string, LiveChild[]>> {
    const found = new Map<string, LiveChild[]>();
    if (ownerUids.length === 0) return found;
    const values = await this.redis.hmget(this.keys.liveChildren(cluster), ...ownerUids);
    values.forEach((value, index) => {
      if (value) found.set(ownerUids[index]!, parseLiveChildren(value));
    });
    return found;
  }

  /**
   * recordRevisionLive notes that an object of a source became Ready at a revision on a cluster:
   * the first and the last such time per cluster say when the commit reached it. Kept 7 days.
   */
  async recordRevisionLive(source: string, revision: string, cluster: string, at: Date): Promise<void> {
    const key = this.keys.revisionLive(source, revision, cluster);
    const time = at.toISOString();
    await this.exec(this.redis.multi().hsetnx(key, `${cluster}|first`, time).hset(key, `${cluster}|last`, time).expire(key, revisionLiveSeconds));
  }

  /** revisionsLive reads, per revision, when it first and last went live on each cluster with records. */
  async revisionsLive(source: string, revisions: readonly string[]): Promise<Map<string, Map<string, RevisionLive>>> {
    const found = new Map<string, Map<string, RevisionLive>>();
    if (revisions.length === 0) return found;
    // One hash per cluster with a hash tag, one for all without: a pipeline per slot.
    // (without a hash tag every cluster names the same hash: any name reads it)
    const clusters = this.keys.hashTagged ? await this.clusters() : [''];
    const answers = await Promise.all(clusters.map(async (cluster) => {
      const pipeline = this.redis.pipeline();
      for (const revision of revisions) pipeline.hgetall(this.keys.revisionLive(source, revision, cluster));
      return (await pipeline.exec()) ?? [];
    }));
    for (const replies of answers) {
      replies.forEach(([error, value], index) => {
        if (error || !value) return;
        const revision = revisions[index]!;
        const byCluster = found.get(revision) ?? new Map<string, RevisionLive>();
        for (const [field, time] of Object.entries(value as Record<string, string>)) {
          const [cluster, which] = field.split('|') as [string, 'first' | 'last'];
          const entry = byCluster.get(cluster) ?? { first: time, last: time };
          entry[which] = time;
          byCluster.set(cluster, entry);
        }
        if (byCluster.size > 0) found.set(revision, byCluster);
      });
    }
    return found;
  }

  /**
   * addHistory adds a run to an object's history. A run that changed nothing and ended like the
   * newest entry (same revision, result, stage and message) is folded into it as a repeat, so a
   * health re-check every few seconds does not push the runs that mattered out of the list.
   */
  private addHistory(transaction: ReturnType<Redis['multi']>, key: string, entry: ReconcileRecord): ReturnType<Redis['multi']> {
    return transaction.eval(appendHistoryScript, 1, key, JSON.stringify(entry), changedNothing(entry) ? '1' : '0',
      entry.revision, entry.result, entry.stage ?? '', entry.message ?? '', entry.startedAt, this.historyLength, entry.traceId ?? '');
  }

  async history(cluster: string, objectKey: string): Promise<ReconcileRecord[]> {
    const raw = await this.redis.lrange(this.keys.history(cluster, objectKey), 0, -1);
    return raw.flatMap((entry) => parseReconcileRecord(entry) ?? []);
  }

  /** addPut writes a record and announces it in the same transaction: a reader that sees the record can be sure the message was sent. */
  private addPut(transaction: ReturnType<Redis['multi']>, status: ObjectStatus): ReturnType<Redis['multi']> {
    const { suspended: _ignored, ...rest } = status;
    const stored = { ...rest, schemaVersion: redisSchemaVersion };
    const change: StatusChange = { cluster: status.cluster, objectKey: status.objectKey, kind: 'updated' };
    transaction.hset(this.keys.objectStatus(status.cluster), status.objectKey, JSON.stringify(stored));
    // With a hash tag the shared index is another slot: index() adds the cluster outside the transaction.
    if (!this.keys.hashTagged && this.indexesClusters) transaction.sadd(this.keys.statusClusters, status.cluster);
    return transaction.publish(this.channel, JSON.stringify(change));
  }

  private async exec(transaction: ReturnType<Redis['multi']>): Promise<void> {
    const replies = await transaction.exec();
    const failed = replies?.find(([error]) => error);
    if (failed?.[0]) throw failed[0];
  }

  private async read(pipeline: ReturnType<Redis['pipeline']>): Promise<(string | null)[]> {
    const replies = await pipeline.exec();
    return (replies ?? []).map(([error, value]) => {
      if (error) throw error;
      return typeof value === 'string' ? value : null;
    });
  }
}

/** pipelineReplies reads a pipeline's replies by position, throwing the command's error (or a missing reply's). */
function pipelineReplies(replies: [Error | null, unknown][] | null): <T>(index: number) => T {
  return <T>(index: number): T => {
    const [error, value] = replies?.[index] ?? [new Error('no reply from Redis'), undefined];
    if (error) throw error;
    return value as T;
  };
}
