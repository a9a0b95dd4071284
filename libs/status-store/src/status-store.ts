import type { Redis } from 'ioredis';
import type { ObjectStatus, ReconcileRecord } from '@tidemark/contracts';

export interface StatusStoreOptions {
  /** An ioredis connection the caller owns (and closes). */
  redis: Redis;
  /** Key prefix; use a hash tag such as `{tidemark}` on Redis Cluster. @defaultValue 'tidemark' */
  prefix?: string;
  /** How many reconcile records to keep per object. @defaultValue 20 */
  historyLength?: number;
}

/** StatusChange is published on every write, so dashboards update live. */
export interface StatusChange {
  cluster: string;
  objectKey: string;
  /** 'deleted' when the record was removed. */
  kind: 'updated' | 'deleted';
}

/**
 * StatusStore keeps one record per (cluster, object) in a Redis hash per cluster, a capped
 * history list per object, and publishes each change. It never holds object bodies or secrets.
 */
export class StatusStore {
  private readonly redis: Redis;
  private readonly prefix: string;
  private readonly historyLength: number;

  constructor(options: StatusStoreOptions) {
    this.redis = options.redis;
    this.prefix = options.prefix ?? 'tidemark';
    this.historyLength = options.historyLength ?? 20;
  }

  /** channel is the pub/sub channel that carries StatusChange messages. */
  get channel(): string {
    return `${this.prefix}:status-changes`;
  }

  async get(cluster: string, objectKey: string): Promise<ObjectStatus | undefined> {
    const raw = await this.redis.hget(this.statusKey(cluster), objectKey);
    return raw ? (JSON.parse(raw) as ObjectStatus) : undefined;
  }

  async put(status: ObjectStatus): Promise<void> {
    await this.redis.multi()
      .hset(this.statusKey(status.cluster), status.objectKey, JSON.stringify(status))
      .sadd(this.clustersKey(), status.cluster)
      .exec();
    await this.publish({ cluster: status.cluster, objectKey: status.objectKey, kind: 'updated' });
  }

  /**
   * setSuspended marks an object suspended (the pipeline then skips it) or resumes it. An object
   * never reconciled yet gets a minimal record so the flag is kept.
   */
  async setSuspended(cluster: string, objectKey: string, suspended: boolean): Promise<ObjectStatus | undefined> {
    const previous = await this.get(cluster, objectKey);
    if (!previous) return undefined;
    const next: ObjectStatus = { ...previous, suspended, updatedAt: new Date().toISOString() };
    if (!suspended) delete next.suspended;
    await this.put(next);
    return next;
  }

  async delete(cluster: string, objectKey: string): Promise<void> {
    await this.redis.multi()
      .hdel(this.statusKey(cluster), objectKey)
      .del(this.historyKey(cluster, objectKey))
      .exec();
    await this.publish({ cluster, objectKey, kind: 'deleted' });
  }

  /** list returns every record of a cluster. */
  async list(cluster: string): Promise<ObjectStatus[]> {
    const all = await this.redis.hvals(this.statusKey(cluster));
    return all.map((raw) => JSON.parse(raw) as ObjectStatus);
  }

  /** clusters lists the clusters that have records. */
  async clusters(): Promise<string[]> {
    return (await this.redis.smembers(this.clustersKey())).sort();
  }

  async appendHistory(cluster: string, objectKey: string, record: ReconcileRecord): Promise<void> {
    const key = this.historyKey(cluster, objectKey);
    await this.redis.multi().lpush(key, JSON.stringify(record)).ltrim(key, 0, this.historyLength - 1).exec();
  }

  async history(cluster: string, objectKey: string): Promise<ReconcileRecord[]> {
    const raw = await this.redis.lrange(this.historyKey(cluster, objectKey), 0, -1);
    return raw.map((entry) => JSON.parse(entry) as ReconcileRecord);
  }

  private async publish(change: StatusChange): Promise<void> {
    await this.redis.publish(this.channel, JSON.stringify(change));
  }

  private statusKey(cluster: string): string {
    return `${this.prefix}:status:${cluster}`;
  }

  private historyKey(cluster: string, objectKey: string): string {
    return `${this.prefix}:history:${cluster}:${objectKey}`;
  }

  private clustersKey(): string {
    return `${this.prefix}:status-clusters`;
  }
}
