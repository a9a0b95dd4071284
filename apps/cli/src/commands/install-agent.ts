import { randomBytes } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import { getObject, type ClusterConnection } from '@tidemark/cluster';
import { messageOf, type RedisClient } from '@tidemark/contracts';
import { CliError, ExitCode } from '../cli-error';
import type { Environment } from '../config';
import type { Output } from '../output';
import { applyInstall, clusterVersion, connectCluster, type ClusterTarget, type InstallResult } from '../install/apply-install';
import { checkAclAdmin, ensureAgentUser, type AgentRedisUser } from '../install/agent-redis-user';
import { planInstall, type InstallSettings } from '../install/install-manifests';
import { waitUntilReady } from '../install/readiness';

/** InstallAgentOptions: the chart's settings, the agent's cluster, and the hub's Redis. */
export interface InstallAgentOptions extends Omit<InstallSettings, 'redisUrl' | 'commandValues' | 'givenSecrets'>, ClusterTarget {
  /** The cluster the agent serves, as the hub's config names it. */
  cluster: string;
  /** The hub's `redis.prefix`. */
  prefix: string;
  /** @defaultValue `agent-<cluster>` */
  user?: string;
  /** Give the agent's Redis user a new password. */
  rotate: boolean;
  /** A file holding the hub Redis's admin URL (else TIDEMARK_HUB_REDIS_URL): it carries a password, so never argv. */
  hubRedisUrlFile?: string;
  /** The CA of the hub Redis's certificate (PEM): for this command's connection and the agent's Secret. */
  hubRedisCaFile?: string;
  /** host:port the agent dials. @defaultValue the admin URL's */
  agentRedisAddress?: string;
  wait: boolean;
  timeoutSeconds: number;
}

/** Larger than any Redis URL or CA bundle; a bigger file is not one. */
const maxUrlBytes = 4096;
const maxCaBytes = 256 * 1024;
const userPattern = /^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/;

/**
 * installAgentCommand installs the agent that serves one cluster: on the hub's Redis the agent's
 * ACL user (agentAclRule: its cluster's keys only; the password generated, kept on a re-run unless
 * --rotate, saved to the aclfile when there is one), then in the agent's cluster (the kubeconfig's
 * context) the Secret with its Redis login and the chart in agent mode, as `tidemark install`
 * does. Names are checked before anything is sent; the password is printed nowhere.
 */
export async function installAgentCommand(output: Output, env: Environment, options: InstallAgentOptions): Promise<ExitCode> {
  const progress = (line: string) => output.write(`${line}\n`);
  const { user, rule } = await agentRule(options);
  const hub = hubRedis(options, env);
  const ca = options.hubRedisCaFile ? boundedFile(options.hubRedisCaFile, maxCaBytes, 'the hub Redis\'s CA file') : undefined;
  const redis = await openHubRedis(hub, options.hubRedisCaFile);
  const connection = connectCluster(env, options);
  try {
    await checkAclAdmin(redis, user);
    const version = await clusterVersion(connection);
    progress(`cluster ${connection.name}: Kubernetes ${version ?? '(version not stamped: a development build)'}; agent for "${options.cluster}"`);
    const secretName = `${options.release.includes('tidemark') ? options.release : `${options.release}-tidemark`}-agent-redis`.slice(0, 63);
    const known = await secretPassword(connection, options.namespace, secretName);
    const made = await ensureAgentUser(redis, { user, rule, rotate: options.rotate, newPassword: () => randomBytes(24).toString('hex'), ...(known ? { knownPassword: known } : {}) });
    reportUser(progress, user, options.cluster, made);
    const kubeVersion = options.kubeVersion ?? version;
    const plan = await planInstall({
      ...options, ...(kubeVersion ? { kubeVersion } : {}),
      commandValues: {
        redis: { enabled: false }, dashboard: { enabled: false },
        agent: { enabled: true, cluster: { name: options.cluster }, redis: { secret: secretName, tls: hub.tls, port: hub.port, ...(ca ? { caKey: 'ca.crt' } : {}) } },
      },
      givenSecrets: [{ name: secretName, generated: {}, given: { address: hub.address, username: user, password: made.password, ...(ca ? { 'ca.crt': ca } : {}) } }],
    }, env);
    const result = await applyInstall(connection, plan, progress);
    progress(`Secret ${options.namespace}/${secretName} holds the agent's Redis login (address, username, password${ca ? ', ca.crt' : ''}); read it with kubectl, it is never printed`);
    if (made.action === 'rotated') progress(`restart the agent to use the new password: kubectl -n ${options.namespace} rollout restart deployment/${plan.fullname}-reconciler`);
    const changed = result.changes.filter((change) => change.action !== 'unchanged').length + result.secretsMade.length;
    progress(changed === 0 ? 'nothing changed in the cluster: it already holds this agent' : `${changed} objects created or changed`);
    if (options.wait) await waitForAgent(connection, result.inventory.objects, options, progress);
    return ExitCode.Ok;
  } finally {
    connection.close();
    redis.disconnect();
  }
}

/** agentRule checks the names (no glob can reach an ACL pattern) and builds the agent's rule, before anything is sent. */
async function agentRule(options: InstallAgentOptions): Promise<{ user: string; rule: string[] }> {
  const { agentAclRule, InvalidQueueOptionsError } = await import('@tidemark/queue');
  const user = options.user ?? `agent-${options.cluster}`;
  try {
    const rule = agentAclRule(options.cluster, { prefix: options.prefix, hashTag: true });
    if (!userPattern.test(user) || user === 'default') throw new CliError('InvalidArgument', `--user "${user}" cannot name an agent's Redis user: use letters, digits, '.', '_' or '-', and not "default"`, ExitCode.Usage);
    return { user, rule };
  } catch (error) {
    if (error instanceof InvalidQueueOptionsError) throw new CliError('InvalidArgument', error.message, ExitCode.Usage);
    throw error;
  }
}

/** openHubRedis checks the hub's Redis answers (a wrong CA or address fails here, bounded), then opens a client that does not reconnect. */
async function openHubRedis(hub: HubRedis, caFile: string | undefined): Promise<RedisClient> {
  const { openRedisClient, probeRedis, withRedisTls } = await import('@tidemark/queue');
  let endpoint;
  try {
    endpoint = withRedisTls({ url: hub.url }, caFile ? { caFile } : undefined, () => '--hub-redis-ca');
  } catch (error) {
    throw new CliError('RedisTlsInvalid', messageOf(error), ExitCode.Usage);
  }
  await probeRedis(endpoint, { timeoutMs: 10_000 }).catch((error: unknown) => {
    throw new CliError('RedisUnavailable', `the hub's Redis: ${messageOf(error)}`);
  });
  const redis = openRedisClient(endpoint, { maxRetriesPerRequest: 1, connectTimeout: 10_000, commandTimeout: 10_000, retryStrategy: () => null });
  redis.on('error', () => undefined);
  return redis;
}

async function waitForAgent(connection: ClusterConnection, objects: InstallResult['inventory']['objects'], options: InstallAgentOptions, progress: (line: string) => void): Promise<void> {
  progress(`waiting up to ${options.timeoutSeconds} s for the agent to be ready…`);
  const waiting = (await waitUntilReady(connection, objects, options.timeoutSeconds * 1_000, progress)).filter((state) => !state.ready);
  if (waiting.length > 0) throw new CliError('NotReady', `not ready after ${options.timeoutSeconds} s: ${waiting.map((state) => state.message).join(' ')}`);
  progress(`the agent for "${options.cluster}" is installed in namespace ${options.namespace}; the hub's config lists it with agent: true (docs/agents.md)`);
}

function reportUser(progress: (line: string) => void, user: string, cluster: string, made: AgentRedisUser): void {
  const what = { created: 'created, with a new password', restored: 'created again, with the password the agent\'s Secret holds', updated: 'set to the rule again, password kept', rotated: 'given a new password' }[made.action];
  progress(`Redis user ${user} on the hub's Redis: ${what}; it may read and write cluster "${cluster}"'s keys only`);
  const persisted = {
    saved: 'ACL SAVE wrote it to the hub Redis\'s aclfile',
    'no-aclfile': 'the hub\'s Redis has no aclfile, so the user is lost when it restarts: set aclfile in its redis.conf and run this again (the Secret\'s password is kept)',
    unknown: 'the hub\'s Redis refused CONFIG GET aclfile to this login: save its ACLs yourself (ACL SAVE, or the user in its users.acl)',
    failed: 'the hub\'s Redis has an aclfile but refused ACL SAVE (is the file writable by Redis?): the user is lost when it restarts until it is saved',
  }[made.persisted];
  progress(persisted);
}

interface HubRedis { url: string; address: string; port: number; tls: boolean }

/** hubRedis reads the hub Redis's admin URL from its file, else TIDEMARK_HUB_REDIS_URL, and where the agent dials. */
function hubRedis(options: InstallAgentOptions, env: Environment): HubRedis {
  const text = options.hubRedisUrlFile ? boundedFile(options.hubRedisUrlFile, maxUrlBytes, 'the hub Redis URL file').trim() : env.TIDEMARK_HUB_REDIS_URL;
  if (!text) throw new CliError('HubRedisMissing', 'give the hub Redis\'s admin URL (redis[s]://user:password@host:port) in a file with --hub-redis-url-file, or in TIDEMARK_HUB_REDIS_URL', ExitCode.Usage);
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new CliError('RedisUrlInvalid', 'the hub Redis URL is not a URL; give it as redis[s]://[user:password@]host:port', ExitCode.Usage);
  }
  if (url.protocol !== 'redis:' && url.protocol !== 'rediss:') throw new CliError('RedisUrlInvalid', `the hub Redis URL must be redis:// or rediss://, not ${url.protocol}//`, ExitCode.Usage);
  if (!url.hostname) throw new CliError('RedisUrlInvalid', 'the hub Redis URL names no host', ExitCode.Usage);
  const address = options.agentRedisAddress ?? `${url.hostname}:${url.port || 6379}`;
  const port = Number(/:(\d{1,5})$/.exec(address)?.[1]);
  if (!/^[A-Za-z0-9.-]+:\d{1,5}$|^\[[0-9a-fA-F:]+\]:\d{1,5}$/.test(address) || !(port >= 1 && port <= 65535)) {
    throw new CliError('InvalidArgument', `--agent-redis-address "${address}" is not host:port`, ExitCode.Usage);
  }
  return { url: text, address, port, tls: url.protocol === 'rediss:' };
}

function boundedFile(file: string, maxBytes: number, what: string): string {
  try {
    if (statSync(file).size > maxBytes) throw new Error(`larger than ${maxBytes} bytes`);
    const text = readFileSync(file, 'utf8');
    if (!text.trim()) throw new Error('empty');
    return text;
  } catch (error) {
    throw new CliError('FileUnreadable', `cannot read ${what} ${file}: ${(error as Error).message}`, ExitCode.Usage);
  }
}

/** secretPassword is the password in the agent's Secret, when one is there. */
async function secretPassword(connection: ClusterConnection, namespace: string, name: string): Promise<string | undefined> {
  const live = await getObject(connection, { apiVersion: 'v1', kind: 'Secret', namespace, name });
  const value = (live as { data?: Record<string, string> } | undefined)?.data?.password;
  return value ? Buffer.from(value, 'base64').toString('utf8') : undefined;
}
