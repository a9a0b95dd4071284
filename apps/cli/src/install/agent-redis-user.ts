import type { RedisClient } from '@tidemark/contracts';
import { CliError, ExitCode } from '../cli-error';

/** AgentRedisUserOptions: whose user, under which rule, and the password the agent's Secret already holds. */
export interface AgentRedisUserOptions {
  /** The agent's ACL user name. */
  user: string;
  /** The words of agentAclRule after the password. */
  rule: readonly string[];
  /** The password in the agent's Secret, when there is one: kept unless `rotate`. */
  knownPassword?: string;
  /** Give the user a new password (the agent's pods must restart to read it). */
  rotate: boolean;
  newPassword(): string;
}

/** AgentRedisUser is what ensureAgentUser did; `password` goes into the agent's Secret and nowhere else. */
export interface AgentRedisUser {
  password: string;
  /** `restored`: the user was gone (a Redis restarted without an aclfile) and has the Secret's password again. */
  action: 'created' | 'restored' | 'updated' | 'rotated';
  /** `saved`: ACL SAVE wrote the aclfile; `no-aclfile`: the user lives until Redis restarts; `unknown`: CONFIG was refused; `failed`: ACL SAVE was. */
  persisted: 'saved' | 'no-aclfile' | 'unknown' | 'failed';
}

/**
 * checkAclAdmin runs before anything is written anywhere: the hub's Redis must take ACL commands
 * from this login, and be one server (a Redis Cluster keeps users per node: `tidemark agent-acl`
 * prints the command to run on each). The refusal says what to do.
 */
export async function checkAclAdmin(redis: RedisClient, user: string): Promise<void> {
  try {
    await redis.call('ACL', 'GETUSER', user);
  } catch (error) {
    throw new CliError('RedisAclRefused', `the hub's Redis refused ACL GETUSER (${firstLine(error)}): it needs Redis 6 or newer and an admin login that may run ACL (the default user, or one with +@admin); give that login's URL with --hub-redis-url-file or TIDEMARK_HUB_REDIS_URL`);
  }
  const info = String(await redis.info('cluster').catch(() => ''));
  if (/cluster_enabled:1/.test(info)) {
    throw new CliError('RedisClusterAcl', 'the hub\'s Redis is a Redis Cluster, whose ACL users live on each node: install the agent with its chart and run the command `tidemark agent-acl` prints on every primary and replica', ExitCode.Usage);
  }
}

/**
 * ensureAgentUser makes the agent's user hold exactly `rule`: `reset` first (no password, key,
 * channel, command or selector left from before, so a re-run never widens what an earlier hand
 * edit granted), then the password and the rule, in one ACL SETUSER. The password is the Secret's
 * unless `rotate`; a user that exists without it in the Secret cannot be kept (Redis holds only a
 * hash), and is refused unless `rotate`. Then ACL SAVE when the server has an aclfile.
 */
export async function ensureAgentUser(redis: RedisClient, options: AgentRedisUserOptions): Promise<AgentRedisUser> {
  const existing = await redis.call('ACL', 'GETUSER', options.user);
  const exists = existing !== null;
  if (exists && !options.knownPassword && !options.rotate) {
    throw new CliError('AgentPasswordUnknown', `the hub's Redis has a user ${options.user} but the agent's Secret holds no password for it (Redis keeps only a hash): run again with --rotate to give it a new one`, ExitCode.Usage);
  }
  const password = options.rotate || !options.knownPassword ? options.newPassword() : options.knownPassword;
  try {
    await redis.call('ACL', 'SETUSER', options.user, 'reset', 'on', `>${password}`, ...options.rule);
  } catch (error) {
    throw new CliError('RedisAclRefused', `the hub's Redis refused ACL SETUSER for ${options.user} (${firstLine(error)}); nothing was written to the cluster`);
  }
  const kept = password === options.knownPassword;
  const action = exists ? (kept ? 'updated' : 'rotated') : (kept ? 'restored' : 'created');
  return { password, action, persisted: await persist(redis) };
}

async function persist(redis: RedisClient): Promise<AgentRedisUser['persisted']> {
  let file: string;
  try {
    const answer = await redis.call('CONFIG', 'GET', 'aclfile') as string[];
    file = answer[1] ?? '';
  } catch {
    return 'unknown';
  }
  if (!file) return 'no-aclfile';
  return redis.call('ACL', 'SAVE').then(() => 'saved' as const, () => 'failed' as const);
}

/** firstLine is a Redis error's own words: never the command, whose arguments hold the password. */
function firstLine(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message.split('\n')[0]!.replace(/>\S+/g, '>***').slice(0, 200);
}
