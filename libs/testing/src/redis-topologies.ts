import { spawn, type ChildProcess } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './free-port';
import { RigError, run, stopProcess } from './process';
import { redisTlsArgs, waitForPort, type RedisServerTls } from './redis';

/** RedisHostPort is one loopback redis-server (or sentinel) of a topology. */
export interface RedisHostPort {
  host: string;
  port: number;
}

/** TestRedisCluster is a Redis Cluster of redis-server processes on loopback. */
export interface TestRedisCluster {
  nodes: RedisHostPort[];
  /** command runs redis-cli on one node, logged in, and returns its output. */
  command(port: number, ...args: string[]): Promise<string>;
  /** primaryPortOf is the port of the live primary that serves `key`'s slot now. */
  primaryPortOf(key: string): Promise<number | undefined>;
  /**
   * killNode SIGKILLs the node on `port`. A primary is killed once its replica has every write
   * (WAIT), and killNode resolves once a surviving node says its slots are served by the promoted
   * replica; that needs a cluster started with replicas.
   */
  killNode(port: number, options?: KillOptions): Promise<void>;
  /** killPrimaryOf is killNode of the primary that serves `key`'s slot. */
  killPrimaryOf(key: string, options?: KillOptions): Promise<void>;
  stop(): Promise<void>;
}

/**
 * KillOptions make a failover last longer than the node timeout's two seconds: the killed
 * primary's replicas are barred from taking over (cluster-replica-no-failover) for
 * `promotionDelayMs`, so meanwhile its slots have no primary and every node answers CLUSTERDOWN
 * (cluster_state:fail), as on a loaded machine whose replica is slow to win its election.
 */
export interface KillOptions {
  promotionDelayMs?: number;
}

/**
 * SentinelTls is TLS for a Sentinel group: `dataNodes` gives the primary and the replica a
 * certificate of their own (a test of a data node's certificate alone). @defaultValue the sentinels'
 */
export type SentinelTls = RedisServerTls & { dataNodes?: Pick<RedisServerTls, 'certFile' | 'keyFile'> };

/** TestRedisSentinel is a primary, a replica and a sentinel watching them under `name`. */
export interface TestRedisSentinel {
  name: string;
  sentinels: RedisHostPort[];
  /** The port of the primary as it was started (after a failover, the replica's is the primary). */
  primaryPort: number;
  replicaPort: number;
  /** killPrimary SIGKILLs the primary once its replica has every write (WAIT), so a failover loses nothing. */
  killPrimary(): Promise<void>;
  /** waitForPromotion resolves once the sentinel names the replica as the primary (after killPrimary). */
  waitForPromotion(timeoutMs?: number): Promise<void>;
  stop(): Promise<void>;
}

/**
 * RedisAuth makes a topology's servers refuse anyone but one ACL user (the `default` user is
 * off); `sentinelPassword` is the sentinel's own password (requirepass). @defaultValue none: open
 */
export interface RedisAuth {
  username: string;
  password: string;
  sentinelPassword?: string;
}

const host = '127.0.0.1';

/** serverAuth: only the ACL user, with every command and key; replicas authenticate as it to their primary. */
function serverAuth(auth: RedisAuth | undefined): string[] {
  if (!auth) return [];
  return ['--user', 'default', 'off', '--user', auth.username, 'on', `>${auth.password}`, '~*', '&*', '+@all', '--masteruser', auth.username, '--masterauth', auth.password];
}

/** cliAuth: redis-cli's arguments to log in as the ACL user (no warning on stderr). */
function cliAuth(auth: RedisAuth | undefined): string[] {
  return auth ? ['--user', auth.username, '--pass', auth.password, '--no-auth-warning'] : [];
}

/** cliTls: redis-cli's arguments to speak TLS to a node, verifying it against the test CA. */
function cliTls(tls: RedisServerTls | undefined): string[] {
  return tls ? ['--tls', '--cacert', tls.caFile, '--cert', tls.certFile, '--key', tls.keyFile] : [];
}

async function server(dir: string, port: number, args: string[], tls?: RedisServerTls): Promise<ChildProcess> {
  const child = spawn('redis-server', [...(tls ? redisTlsArgs(port, tls) : ['--port', String(port)]), '--bind', host, '--dir', dir, '--save', '', '--appendonly', 'no', '--maxmemory-policy', 'noeviction', ...args], { stdio: ['ignore', 'ignore', 'pipe'] });
  await waitForPort(port, 10_000, child).catch(async (error: unknown) => {
    await stopProcess(child);
    throw error;
  });
  return child;
}

/**
 * serverOnFreePort starts a redis-server in a folder of `root` named by its port. A free port can
 * be taken by another process before the server binds it (the rig shares the machine): then it
 * tries another, three times in all.
 */
async function serverOnFreePort(root: string, args: string[], tls?: RedisServerTls): Promise<{ child: ChildProcess; port: number }> {
  for (let attempt = 1; ; attempt += 1) {
    const port = await freePort();
    const dir = join(root, String(port));
    await mkdir(dir, { recursive: true });
    try {
      return { child: await server(dir, port, args, tls), port };
    } catch (error) {
      if (attempt >= 3 || !(error instanceof RigError)) throw error;
    }
  }
}

async function waitUntil(what: string, check: () => Promise<boolean>, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check().catch(() => false)) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new RigError(`${what} within ${timeoutMs / 1000} s`);
}

const cli = (port: number, auth: string[], ...args: string[]) => run('redis-cli', ['-h', host, '-p', String(port), ...auth, ...args]);

/**
 * startRedisCluster starts `masters` redis-server processes in cluster mode (each with
 * `replicas` replicas), joins them with `redis-cli --cluster create`, and resolves once every
 * node says cluster_state:ok. With `tls` every node serves TLS only, the cluster bus and
 * replication included (its certificate must name 127.0.0.1).
 */
export async function startRedisCluster(options: { masters?: number; replicas?: number; auth?: RedisAuth; tls?: RedisServerTls } = {}): Promise<TestRedisCluster> {
  const masters = options.masters ?? 3;
  const login = [...cliAuth(options.auth), ...cliTls(options.tls)];
  const tlsBus = options.tls ? ['--tls-cluster', 'yes', '--tls-replication', 'yes'] : [];
  const replicas = options.replicas ?? 0;
  const root = await mkdtemp(join(tmpdir(), 'tidemark-redis-cluster-'));
  const children: ChildProcess[] = [];
  const nodes: RedisHostPort[] = [];
  const stop = async () => {
    await Promise.all(children.map((child) => stopProcess(child)));
    await rm(root, { recursive: true, force: true });
  };
  try {
    for (let index = 0; index < masters * (1 + replicas); index += 1) {
      const started = await serverOnFreePort(root, ['--cluster-enabled', 'yes', '--cluster-config-file', 'nodes.conf', '--cluster-node-timeout', '2000', ...tlsBus, ...serverAuth(options.auth)], options.tls);
      children.push(started.child);
      nodes.push({ host, port: started.port });
    }
    await run('redis-cli', [...login, '--cluster', 'create', ...nodes.map((node) => `${host}:${node.port}`), '--cluster-replicas', String(replicas), '--cluster-yes']);
    for (const node of nodes) await waitUntil(`Redis Cluster node ${node.port} did not say cluster_state:ok`, async () => (await cli(node.port, login, 'cluster', 'info')).includes('cluster_state:ok'), 30_000);
    const live = () => nodes.find((_, index) => children[index]!.exitCode === null && children[index]!.signalCode === null)!;
    const command = (port: number, ...args: string[]) => cli(port, login, ...args);
    const slotOf = async (key: string) => Number((await command(live().port, 'cluster', 'keyslot', key)).trim());
    const primaryPortOf = async (key: string) => servingPort(await command(live().port, 'cluster', 'nodes'), await slotOf(key));
    const replicaPortsOf = async (port: number) => {
      const lines = (await command(port, 'cluster', 'nodes')).split('\n').map((line) => line.trim().split(' '));
      const id = lines.find(([, address]) => address?.includes(`:${port}@`))?.[0];
      return lines.filter(([, , flags, primary]) => flags?.includes('slave') && primary === id).map(([, address]) => Number(/:(\d+)@/.exec(address ?? '')?.[1]));
    };
    const killNode = async (port: number, killOptions: KillOptions = {}) => {
      const index = nodes.findIndex((node) => node.port === port);
      if (index < 0) throw new RigError(`No node of this cluster listens on ${port}.`);
      const slot = firstSlotOf(await command(port, 'cluster', 'nodes'), port);
      if (slot !== undefined && replicas === 0) throw new RigError(`${port} is a primary without a replica (start the cluster with replicas).`);
      // A replica that never synced cannot take over: wait until one has every write (replicas attach after the cluster says ok).
      if (slot !== undefined) await waitUntil(`no replica of primary ${port} acknowledged its writes`, async () => Number((await command(port, 'wait', '1', '1000')).trim()) >= 1, 30_000);
      const delayMs = slot === undefined ? 0 : killOptions.promotionDelayMs ?? 0;
      const barred = delayMs > 0 ? await replicaPortsOf(port) : [];
      for (const replica of barred) await command(replica, 'config', 'set', 'cluster-replica-no-failover', 'yes');
      const child = children[index]!;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGKILL');
      await exited;
      if (slot === undefined) return;
      if (barred.length > 0) {
        await new Promise((resolve) => setTimeout(resolve, delayMs));
        for (const replica of barred) await command(replica, 'config', 'set', 'cluster-replica-no-failover', 'no');
      }
      await waitUntil(`slot ${slot} was not taken over by a replica after its primary ${port} died`, async () => {
        const survivor = live();
        const served = servingPort(await command(survivor.port, 'cluster', 'nodes'), slot);
        return served !== undefined && served !== port && (await command(survivor.port, 'cluster', 'info')).includes('cluster_state:ok');
      }, 60_000);
    };
    const killPrimaryOf = async (key: string, killOptions?: KillOptions) => {
      const port = await primaryPortOf(key);
      if (port === undefined) throw new RigError(`No primary serves the slot of ${key}.`);
      await killNode(port, killOptions);
    };
    return { nodes, command, primaryPortOf, killNode, killPrimaryOf, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** firstSlotOf reads `CLUSTER NODES` output: the first slot the primary on `port` serves, undefined for a replica. */
function firstSlotOf(clusterNodes: string, port: number): number | undefined {
  for (const line of clusterNodes.split('\n')) {
    const [, address, flags, , , , , , range] = line.trim().split(' ');
    if (address?.includes(`:${port}@`) && flags?.includes('master') && range) return Number(range.split('-')[0]);
  }
  return undefined;
}

/** servingPort reads `CLUSTER NODES` output: the port of the live primary whose slot ranges hold `slot`. */
function servingPort(clusterNodes: string, slot: number): number | undefined {
  for (const line of clusterNodes.split('\n')) {
    const [, address, flags, , , , , , ...ranges] = line.trim().split(' ');
    if (!address || !flags?.includes('master') || flags.includes('fail')) continue;
    const holds = ranges.some((range) => {
      const [from, to = from] = range.split('-').map(Number);
      return from !== undefined && to !== undefined && slot >= from && slot <= to;
    });
    if (holds) return Number(/:(\d+)@/.exec(address)?.[1]);
  }
  return undefined;
}

/**
 * sentinelTlsConfig: a sentinel serves TLS only on its port, and with tls-replication speaks TLS to
 * the data nodes and to the other sentinels (its certificate is its client certificate too).
 */
function sentinelTlsConfig(port: number, tls: RedisServerTls | undefined): string[] {
  if (!tls) return [`port ${port}`];
  return ['port 0', `tls-port ${port}`, `tls-cert-file ${tls.certFile}`, `tls-key-file ${tls.keyFile}`, `tls-ca-cert-file ${tls.caFile}`, `tls-auth-clients ${tls.authClients ?? 'optional'}`, 'tls-replication yes'];
}

/**
 * startRedisSentinel starts a primary, one replica of it and three sentinels (quorum 2, a second
 * of silence makes the primary down; a majority elects the sentinel that fails it over), and
 * resolves once every sentinel knows the replica and the other two. With `tls` every process
 * serves TLS only (the certificate must name 127.0.0.1): replication, the sentinels' links to the
 * data nodes and to each other, and clients.
 */
export async function startRedisSentinel(name = 'tidemark', auth?: RedisAuth, tls?: SentinelTls): Promise<TestRedisSentinel> {
  const login = [...cliAuth(auth), ...cliTls(tls)];
  const sentinelLogin = [...(auth?.sentinelPassword ? ['-a', auth.sentinelPassword, '--no-auth-warning'] : []), ...cliTls(tls)];
  const tlsReplication = tls ? ['--tls-replication', 'yes'] : [];
  const dataTls = tls && { ...tls, ...tls.dataNodes };
  const root = await mkdtemp(join(tmpdir(), 'tidemark-redis-sentinel-'));
  const children: ChildProcess[] = [];
  const stop = async () => {
    await Promise.all(children.map((child) => (child.exitCode === null && child.signalCode === null ? stopProcess(child) : undefined)));
    await rm(root, { recursive: true, force: true });
  };
  try {
    const { child: primary, port: primaryPort } = await serverOnFreePort(root, [...tlsReplication, ...serverAuth(auth)], dataTls);
    children.push(primary);
    const replica = await serverOnFreePort(root, ['--replicaof', host, String(primaryPort), ...tlsReplication, ...serverAuth(auth)], dataTls);
    children.push(replica.child);
    const replicaPort = replica.port;
    // A real group: three sentinels, two of which must agree that the primary is down, and a
    // majority of which elects the one that runs the failover.
    const sentinelPorts: number[] = [];
    for (let index = 0; index < 3; index += 1) {
      const sentinelPort = await freePort();
      const config = join(root, `sentinel-${index}.conf`);
      await writeFile(config, [
        ...sentinelTlsConfig(sentinelPort, tls), `bind ${host}`, `dir ${root}`,
        `sentinel monitor ${name} ${host} ${primaryPort} 2`,
        `sentinel down-after-milliseconds ${name} 1000`,
        `sentinel failover-timeout ${name} 5000`,
        ...(auth ? [`sentinel auth-user ${name} ${auth.username}`, `sentinel auth-pass ${name} ${auth.password}`] : []),
        // The sentinels talk to each other with the password they ask of clients.
        ...(auth?.sentinelPassword ? [`requirepass ${auth.sentinelPassword}`, `sentinel sentinel-pass ${auth.sentinelPassword}`] : []),
        '',
      ].join('\n'));
      const sentinel = spawn('redis-server', [config, '--sentinel'], { stdio: ['ignore', 'ignore', 'pipe'] });
      children.push(sentinel);
      await waitForPort(sentinelPort, 10_000, sentinel);
      sentinelPorts.push(sentinelPort);
    }
    const sentinelPort = sentinelPorts[0]!;
    await waitUntil('the sentinels did not see the replica and each other', async () => {
      for (const port of sentinelPorts) {
        if (!(await cli(port, sentinelLogin, 'sentinel', 'replicas', name)).includes(String(replicaPort))) return false;
        const peers = (await cli(port, sentinelLogin, 'sentinel', 'sentinels', name)).split('\n').filter((line) => line === 'port').length;
        if (peers < sentinelPorts.length - 1) return false;
      }
      return true;
    }, 30_000);
    return {
      name, primaryPort, replicaPort,
      sentinels: sentinelPorts.map((port) => ({ host, port })),
      async killPrimary() {
        await cli(primaryPort, login, 'wait', '1', '5000');
        const exited = new Promise((resolve) => primary.once('exit', resolve));
        primary.kill('SIGKILL');
        await exited;
      },
      async waitForPromotion(timeoutMs = 60_000) {
        await waitUntil(`the sentinel did not promote the replica ${replicaPort}`, async () => (await cli(sentinelPort, sentinelLogin, 'sentinel', 'get-master-addr-by-name', name)).split('\n').includes(String(replicaPort)), timeoutMs);
      },
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}
