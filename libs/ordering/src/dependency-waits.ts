import type { Cluster, Redis } from 'ioredis';
import { RecordKeys, jsonRecordOf, textOf, type ReconcileJob } from '@tidemark/contracts';

/** DependencyWaiter is an object waiting for a dependency: enough to enqueue it again. */
export type DependencyWaiter = Pick<ReconcileJob, 'source' | 'revision' | 'objectKey'>;

export interface DependencyWaitsOptions {
  redis: Redis | Cluster;
  /** The deployment's Redis key prefix. @defaultValue 'tidemark' */
  prefix?: string;
  /** enqueue asks for a waiter to be reconciled now (a `watch` job: it cuts a delay short). */
  enqueue(job: ReconcileJob): Promise<unknown>;
  /** How long an unwoken registration is kept; a waiter re-registers on each run. @defaultValue 86_400 s */
  ttlSeconds?: number;
}

/**
 * DependencyWaits records which objects wait for which dependency, per cluster, and wakes them
 * when it is ready: the dependency's own run finished Ready, or a watch saw it (a CRD
 * Established). A waiter registers before it looks at its dependency, and a dependency wakes
 * after its status is written, so one of the two always sees the other.
 */
export class DependencyWaits {
  private readonly keys: RecordKeys;

  constructor(private readonly options: DependencyWaitsOptions) {
    this.keys = new RecordKeys(options.prefix ?? 'tidemark');
  }

  /** register records that `waiter` waits on `token` in `cluster`. */
  async register(cluster: string, token: string, waiter: DependencyWaiter): Promise<void> {
    const key = this.keys.dependencyWaiters(cluster, token);
    const member = JSON.stringify({ source: waiter.source, objectKey: waiter.objectKey });
    // The revision is not part of the member: one entry per waiting object, the newest revision kept beside it.
    await this.options.redis.multi()
      .hset(key, member, waiter.revision)
      .expire(key, this.options.ttlSeconds ?? 86_400)
      .exec();
  }

  /** wake enqueues everything waiting on any of the tokens in `cluster` and forgets it; returns how many. */
  async wake(cluster: string, tokens: readonly string[]): Promise<number> {
    let woken = 0;
    for (const token of tokens) {
      const key = this.keys.dependencyWaiters(cluster, token);
      const replies = await this.options.redis.multi().hgetall(key).del(key).exec();
      const waiters = (replies?.[0]?.[1] ?? {}) as Record<string, string>;
      for (const [member, revision] of Object.entries(waiters)) {
        const waiter = parseWaiter(member, revision);
        if (!waiter) continue;
        await this.options.enqueue({ ...waiter, cluster, reason: 'watch' });
        woken += 1;
      }
    }
    return woken;
  }
}

/**
 * parseWaiter reads one stored waiter (its member and the revision beside it); undefined for one
 * that could not be a job, so a hand-written entry is skipped instead of failing the whole wake.
 */
export function parseWaiter(member: string, revision: string): DependencyWaiter | undefined {
  const value = jsonRecordOf(member);
  const source = textOf(value?.source, 253);
  const objectKey = textOf(value?.objectKey, 1024);
  if (source === undefined || objectKey === undefined || !/^[0-9a-f]{40}$/.test(revision)) return undefined;
  return { source, objectKey, revision };
}
