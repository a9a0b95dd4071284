import type { Cluster, Redis } from 'ioredis';
import { RecordKeys, type ReconcileJob } from '@tidemark/contracts';

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
        const waiter = parseMember(member);
        if (!waiter) continue;
        await this.options.enqueue({ ...waiter, revision, cluster, reason: 'watch' });
        woken += 1;
      }
    }
    return woken;
  }
}

function parseMember(member: string): Omit<DependencyWaiter, 'revision'> | undefined {
  try {
    const parsed = JSON.parse(member) as { source?: unknown; objectKey?: unknown };
    return typeof parsed.source === 'string' && typeof parsed.objectKey === 'string' ? { source: parsed.source, objectKey: parsed.objectKey } : undefined;
  } catch {
    return undefined;
  }
}
