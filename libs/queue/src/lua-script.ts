import { createHash } from 'node:crypto';
import type { Cluster, Redis } from 'ioredis';

/**
 * LuaScript runs a script by its SHA and loads it on NOSCRIPT, which also covers a Redis that
 * restarted and forgot its script cache. Keeps us off ioredis' defineCommand, which mutates
 * clients we may not own.
 */
export class LuaScript {
  private readonly sha: string;
  constructor(private readonly source: string) {
    this.sha = createHash('sha1').update(source).digest('hex');
  }

  async run(client: Redis | Cluster, keys: readonly string[], args: readonly (string | number)[]): Promise<unknown> {
    try {
      return await client.evalsha(this.sha, keys.length, ...keys, ...args);
    } catch (error) {
      if (!(error instanceof Error) || !error.message.startsWith('NOSCRIPT')) throw error;
      return client.eval(this.source, keys.length, ...keys, ...args);
    }
  }
}
