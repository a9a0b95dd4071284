import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createConnection } from 'node:net';
import { freePort } from './free-port';
import { commandExists, RigError, stopProcess } from './process';

/** TestRedis is a Redis for tests: either the one in REDIS_URL or a private redis-server. */
export interface TestRedis {
  url: string;
  port: number;
  /** stop ends a redis-server this helper started; a REDIS_URL one is left alone. */
  stop(): Promise<void>;
  /** kill stops the private server abruptly (SIGKILL); restart brings it back on the same port. */
  kill(): Promise<void>;
  restart(): Promise<void>;
}

export interface StartRedisOptions {
  /** Use this URL instead of starting a server. @defaultValue process.env.REDIS_URL */
  url?: string;
  /** Extra redis-server arguments, e.g. ['--maxmemory-policy', 'allkeys-lru']. */
  args?: string[];
  /** Serve TLS only (the URL is then rediss://). @defaultValue plain TCP */
  tls?: RedisServerTls;
}

/** RedisServerTls is redis-server's TLS: its certificate and key, and the CA it checks clients' certificates against. */
export interface RedisServerTls {
  certFile: string;
  keyFile: string;
  caFile: string;
  /** `yes` refuses a client without a certificate the CA signed. @defaultValue 'optional' */
  authClients?: 'optional' | 'yes' | 'no';
}

/** redisTlsArgs make redis-server listen with TLS only on `port` (`--port 0` turns plain TCP off). */
export function redisTlsArgs(port: number, tls: RedisServerTls): string[] {
  return [
    '--port', '0', '--tls-port', String(port), '--tls-cert-file', tls.certFile, '--tls-key-file', tls.keyFile,
    '--tls-ca-cert-file', tls.caFile, '--tls-auth-clients', tls.authClients ?? 'optional',
  ];
}

/** startRedis returns REDIS_URL's Redis when set, otherwise starts redis-server on a free loopback port. */
export async function startRedis(options: StartRedisOptions = {}): Promise<TestRedis> {
  const external = options.url ?? process.env.REDIS_URL;
  if (external) {
    const port = Number(new URL(external).port || 6379);
    const noop = async () => {};
    return { url: external, port, stop: noop, kill: noop, restart: noop };
  }
  if (!(await commandExists('redis-server'))) {
    throw new RigError('redis-server is not installed. Run `apt-get install -y redis-server` (scripts/setup does it), or set REDIS_URL to a Redis you run.');
  }
  const dir = await mkdtemp(join(tmpdir(), 'tidemark-redis-'));
  const port = await freePort();
  let child: ChildProcess | undefined;
  const launch = async () => {
    child = spawn('redis-server', [
      ...(options.tls ? redisTlsArgs(port, options.tls) : ['--port', String(port)]), '--bind', '127.0.0.1', '--dir', dir,
      '--save', '', '--appendonly', 'no', '--maxmemory-policy', 'noeviction',
      ...(options.args ?? []),
    ], { stdio: ['ignore', 'ignore', 'pipe'] });
    await waitForPort(port, 10_000, child);
  };
  await launch();
  return {
    url: `${options.tls ? 'rediss' : 'redis'}://127.0.0.1:${port}`,
    port,
    async stop() {
      if (child) await stopProcess(child);
      await rm(dir, { recursive: true, force: true });
    },
    async kill() {
      if (child) {
        const exited = new Promise((resolve) => child!.once('exit', resolve));
        child.kill('SIGKILL');
        await exited;
      }
    },
    restart: launch,
  };
}

/** waitForPort resolves once something accepts TCP connections on the loopback port. */
export async function waitForPort(port: number, timeoutMs: number, child?: ChildProcess): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child && child.exitCode !== null) {
      throw new RigError(`the process meant to listen on port ${port} exited with code ${child.exitCode}; is the port already in use?`);
    }
    const open = await new Promise<boolean>((resolve) => {
      const socket = createConnection({ port, host: '127.0.0.1' });
      socket.once('connect', () => { socket.destroy(); resolve(true); });
      socket.once('error', () => resolve(false));
    });
    if (open) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new RigError(`nothing listened on 127.0.0.1:${port} within ${timeoutMs} ms`);
}
