import { sourceSuspendedField, type RecordKeys, type RedisClient } from '@tidemark/contracts';
import { DashboardError, ErrorCode, notFound } from '../api/dashboard-error';
import type { SourceActionResult } from '../api/schemas';
import type { DashboardData } from './dashboard-data';
import type { Principal } from '../auth/principal';
import { coversSource } from '../auth/token-scope';

/**
 * SourceActions are what an operator may do to a Git source: poll it now, suspend or resume its
 * polling. The source must be one the principal may see (an unknown or out-of-scope source is 404);
 * suspend writes the status hash's one field the dashboard owns, never the poller's fields.
 */
export class SourceActions {
  constructor(private readonly data: DashboardData, private readonly redis: RedisClient, private readonly keys: RecordKeys) {}

  /** fetch asks the source's leader to poll now (the webhook's channel). */
  async fetch(source: string, principal: Principal | undefined): Promise<SourceActionResult> {
    await this.checkVisible(source, principal);
    await this.redis.publish(this.keys.pollNow, source);
    return { action: 'fetch', source };
  }

  async suspend(source: string, principal: Principal | undefined): Promise<SourceActionResult> {
    await this.checkVisible(source, principal);
    await this.redis.hset(this.keys.sourceStatus(source), sourceSuspendedField, 'true');
    return { action: 'suspend', source, suspended: true };
  }

  /** resume clears the flag and polls at once, so the source catches up with Git. */
  async resume(source: string, principal: Principal | undefined): Promise<SourceActionResult> {
    await this.checkVisible(source, principal);
    await this.redis.hdel(this.keys.sourceStatus(source), sourceSuspendedField);
    await this.redis.publish(this.keys.pollNow, source);
    return { action: 'resume', source, suspended: false };
  }

  /**
   * checkVisible: unknown and out-of-scope sources are 404; a namespace- or cluster-limited scope sees a
   * source but may not stop it for the namespaces or clusters it does not cover.
   */
  private async checkVisible(source: string, principal: Principal | undefined): Promise<void> {
    if (!(await this.data.for(principal).source(source))) throw notFound(`source ${source}`);
    if (!coversSource(principal?.scope, source)) {
      throw new DashboardError(ErrorCode.Forbidden, 403, `This token is limited to some namespaces or clusters: source ${source} also serves others, so only a token that names the source on every cluster may act on it.`);
    }
  }
}
