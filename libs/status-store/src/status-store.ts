import type { Redis } from 'ioredis';
import { RecordKeys, parseClusterHealth, type ObjectStatus, type ReconcileRecord, type StatusChange } from '@tidemark/contracts';
import { parseStatusRecord, withClusterAvailability } from './status-view';

export interface StatusStoreOptions {
  /** An ioredis connection the caller owns (and closes). */
  redis: Redis;
  /** The deployment's key prefix (see RecordKeys); a hash tag such as `{tidemark}` on Redis Cluster. @defaultValue 'tidemark' */
  prefix?: string;
  /** How many reconcile records to keep per object. @defaultValue 20 */
  historyLength?: number;
}

// Set or clear the flag only while the object has a record: a flag without a record names an
// object nobody can see, and would outlive its deletion.
const setSuspendedScript = `
if redis.call('HEXISTS', KEYS[1], ARGV[1]) == 0 then return false end
if ARGV[2] == '1' then redis.call('HSET', KEYS[2], ARGV[1], '1') else redis.call('HDEL', KEYS[2], ARGV[1]) end
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
  private readonly redis: Redis;
  /** The names of every shared record, from this store's prefix. */
  readonly keys: RecordKeys;
  private readonly historyLength: number;

  constructor(options: StatusStoreOptions) {
    this.redis = options.redis;
    this.keys = new RecordKeys(options.prefix ?? 'tidemark');
    this.historyLength = options.historyLength ?? 20;
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

  /**
   * record writes an object's status and its history entry in one transaction, once per run,
   * and announces it. `status` may be omitted when a run changes nothing but the history. A
   * `suspended` field in it is ignored: the flag is the operator's (setSuspended).
   */
  async record(cluster: string, objectKey: string, status: ObjectStatus | undefined, entry: ReconcileRecord): Promise<void> {
    const history = this.keys.history(cluster, objectKey);
    const transaction = this.redis.multi();
    if (status) this.addPut(transaction, status);
    transaction.lpush(history, JSON.stringify(entry)).ltrim(history, 0, this.historyLength - 1);
    await this.exec(transaction);
    if (status) await this.publish({ cluster, objectKey, kind: 'updated' });
  }

  /** put writes a record without a history entry (seeding, tests); `suspended` in it is ignored. */
  async put(status: ObjectStatus): Promise<void> {
    await this.exec(this.addPut(this.redis.multi(), status));
    await this.publish({ cluster: status.cluster, objectKey: status.objectKey, kind: 'updated' });
  }

  /**
   * setSuspended marks an object suspended (the pipeline then skips it) or resumes it, as a
   * field of its own: a run that finishes meanwhile never undoes it. An object without a record
   * (never reconciled, or deleted) cannot be suspended: it returns undefined and sets nothing.
   */
  async setSuspended(cluster: string, objectKey: string, suspended: boolean): Promise<ObjectStatus | undefined> {
    const written = await this.redis.eval(setSuspendedScript, 2, this.keys.objectStatus(cluster), this.keys.suspended(cluster), objectKey, suspended ? '1' : '0');
    if (written !== 1) return undefined;
    await this.publish({ cluster, objectKey, kind: 'updated' });
    return this.get(cluster, objectKey);
  }

  /** delete removes an object's record, history and suspend flag. */
  async delete(cluster: string, objectKey: string): Promise<void> {
    await this.exec(this.redis.multi()
      .hdel(this.keys.objectStatus(cluster), objectKey)
      .hdel(this.keys.suspended(cluster), objectKey)
      .del(this.keys.history(cluster, objectKey)));
    await this.publish({ cluster, objectKey, kind: 'deleted' });
  }

  /** list returns every record of a cluster, as get sees each. */
  async list(cluster: string): Promise<ObjectStatus[]> {
    const replies = await this.redis.pipeline()
      .hvals(this.keys.objectStatus(cluster))
      .hkeys(this.keys.suspended(cluster))
      .get(this.keys.clusterHealth(cluster))
      .exec();
    const reply = <T>(index: number): T => {
      const [error, value] = replies?.[index] ?? [new Error('no reply from Redis'), undefined];
      if (error) throw error;
      return value as T;
    };
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
   * holders returns, per object key, the clusters holding a record of it from `source`: for the
   * keys given (one HMGET per cluster), or for every object of the source when none are.
   */
  async holders(source: string, clusters: readonly string[], objectKeys?: readonly string[]): Promise<Map<string, string[]>> {
    const held = new Map<string, string[]>();
    if (objectKeys?.length === 0) return held;
    const pipeline = this.redis.pipeline();
    for (const cluster of clusters) {
      if (objectKeys) pipeline.hmget(this.keys.objectStatus(cluster), ...objectKeys);
      else pipeline.hvals(this.keys.objectStatus(cluster));
    }
    const replies = (await pipeline.exec()) ?? [];
    clusters.forEach((cluster, index) => {
      const [error, values] = replies[index] ?? [new Error('no reply from Redis'), []];
      if (error) throw error;
      for (const raw of values as (string | null)[]) {
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
    for (const objectKey of await this.objectKeys(cluster)) await this.publish({ cluster, objectKey, kind: 'updated' });
  }

  /** clusters lists the clusters that have records. */
  async clusters(): Promise<string[]> {
    return (await this.redis.smembers(this.keys.statusClusters)).sort();
  }

  /** appendHistory adds a history entry alone (seeding, tests); runs use record. */
  async appendHistory(cluster: string, objectKey: string, entry: ReconcileRecord): Promise<void> {
    const key = this.keys.history(cluster, objectKey);
    await this.exec(this.redis.multi().lpush(key, JSON.stringify(entry)).ltrim(key, 0, this.historyLength - 1));
  }

  async history(cluster: string, objectKey: string): Promise<ReconcileRecord[]> {
    const raw = await this.redis.lrange(this.keys.history(cluster, objectKey), 0, -1);
    return raw.map((entry) => JSON.parse(entry) as ReconcileRecord);
  }

  private addPut(transaction: ReturnType<Redis['multi']>, status: ObjectStatus): ReturnType<Redis['multi']> {
    const { suspended: _ignored, ...stored } = status;
    return transaction
      .hset(this.keys.objectStatus(status.cluster), status.objectKey, JSON.stringify(stored))
      .sadd(this.keys.statusClusters, status.cluster);
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

  private async publish(change: StatusChange): Promise<void> {
    await this.redis.publish(this.channel, JSON.stringify(change));
  }
}
