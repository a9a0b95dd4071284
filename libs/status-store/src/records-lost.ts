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
 * not in the process: the replica that finds the loss is not always the one polling a source.
 */
export class RecordsLost {
  constructor(private readonly redis: RedisClient, private readonly keys: RecordKeys) {}

  /** mark records the loss, once: a later mark keeps the first time. */
  async mark(at: Date): Promise<void> {
    await this.redis.hsetnx(this.keys.recordsLost, 'lostAt', at.toISOString());
  }

  /** pending lists the clusters where the source has yet to rebuild its records since the loss: one round trip, none without a loss. */
  async pending(source: string, clusters: readonly string[]): Promise<string[]> {
    if (clusters.length === 0) return [];
    const [lostAt, ...done] = await this.redis.hmget(this.keys.recordsLost, 'lostAt', ...clusters.map((cluster) => doneField(source, cluster)));
    return lostAt ? clusters.filter((_cluster, index) => !done[index]) : [];
  }

  /** finish records that the pair rebuilt its records, with what it found. */
  async finish(source: string, cluster: string, summary: RebuildSummary): Promise<void> {
    await this.redis.hset(this.keys.recordsLost, doneField(source, cluster), JSON.stringify(summary));
  }

  /** summary is a pair's rebuild, as finished; undefined before (or a record that does not parse). */
  async summary(source: string, cluster: string): Promise<RebuildSummary | undefined> {
    const raw = await this.redis.hget(this.keys.recordsLost, doneField(source, cluster));
    try {
      const parsed: unknown = raw ? JSON.parse(raw) : undefined;
      return typeof parsed === 'object' && parsed !== null && typeof (parsed as RebuildSummary).at === 'string' ? parsed as RebuildSummary : undefined;
    } catch {
      return undefined;
    }
  }
}

function doneField(source: string, cluster: string): string {
  return `done:${source}|${cluster}`;
}
