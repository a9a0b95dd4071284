import type { RecordKeys, RedisClient } from '@tidemark/contracts';

/** RebuildSummary is what one (source, cluster) rebuild found, kept beside the loss mark. */
export interface RebuildSummary {
  at: string;
  /** Git objects a record was rebuilt for (it had none). */
  rebuilt: number;
  /** Labelled objects of the source that failed the annotation's proof, and were left alone. */
  refused: number;
  truncated: boolean;
  unlistable: string[];
}

/**
 * RecordsLost remembers that Redis lost Tidemark's records (a start found no schema claim), and
 * which (source, cluster) pairs have rebuilt theirs from the cluster since. The mark is in Redis,
 * not in the process: the replica that finds the loss is not always the one polling a source. The
 * loss is one shared mark (the hub's, at its schema claim); each pair's rebuild is marked under its
 * cluster's tag (RecordKeys.recordsRebuilt), where an agent may write it.
 */
export class RecordsLost {
  constructor(private readonly redis: RedisClient, private readonly keys: RecordKeys) {}

  /** mark records the loss, once: a later mark keeps the first time. */
  async mark(at: Date): Promise<void> {
    await this.redis.hsetnx(this.keys.recordsLost, 'lostAt', at.toISOString());
  }

  /** lostAt is when the loss was marked (RFC 3339), undefined without one: one read, a new time for each loss. */
  async lostAt(): Promise<string | undefined> {
    return (await this.redis.hget(this.keys.recordsLost, 'lostAt')) ?? undefined;
  }

  /** pending lists the clusters where the source has yet to rebuild its records since the loss: one read without a loss, one per cluster after. */
  async pending(source: string, clusters: readonly string[]): Promise<string[]> {
    if (clusters.length === 0 || (await this.lostAt()) === undefined) return [];
    // Each cluster's mark lies in its own slot: a read each.
    const done = await Promise.all(clusters.map((cluster) => this.redis.hexists(this.keys.recordsRebuilt(cluster), source)));
    return clusters.filter((_cluster, index) => done[index] !== 1);
  }

  /** finish records that the pair rebuilt its records, with what it found. */
  async finish(source: string, cluster: string, summary: RebuildSummary): Promise<void> {
    await this.redis.hset(this.keys.recordsRebuilt(cluster), source, JSON.stringify(summary));
  }

  /** summary is a pair's rebuild, as finished; undefined before (or a record that does not parse). */
  async summary(source: string, cluster: string): Promise<RebuildSummary | undefined> {
    const raw = await this.redis.hget(this.keys.recordsRebuilt(cluster), source);
    try {
      const parsed: unknown = raw ? JSON.parse(raw) : undefined;
      return typeof parsed === 'object' && parsed !== null && typeof (parsed as RebuildSummary).at === 'string' ? parsed as RebuildSummary : undefined;
    } catch {
      return undefined;
    }
  }
}
