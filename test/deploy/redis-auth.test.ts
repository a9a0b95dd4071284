// Redis AUTH in what deploy/ renders (the Kustomize base and the Helm chart): the rendered Redis
// container is run for real (its args and env, with $(NAME) expanded as Kubernetes does and the
// password taken from a Secret), and an unauthenticated client is refused, while the probes and
// every client Deployment, with the password from the same Secret, get in. No password is committed.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createConnection } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { freePort, stopProcess, waitForPort } from '@tidemark/testing';
import { component, podSpecOf } from './policy';
import { renderHelm, renderKustomize, repoRoot, type Manifest } from './render';

const kubeconfigPath = inject('kubeconfigPath');

interface EnvEntry { name: string; value?: string; valueFrom?: { secretKeyRef?: { name: string; key: string } } }
type Secrets = Map<string, Record<string, string>>;

/**
 * containerEnv resolves a container's env as the kubelet does: secretKeyRef from `secrets`, and
 * $(NAME) in a value only from variables defined earlier in the list (otherwise left as written).
 */
function containerEnv(entries: readonly EnvEntry[], secrets: Secrets): Record<string, string> {
  const env: Record<string, string> = {};
  for (const entry of entries) {
    const ref = entry.valueFrom?.secretKeyRef;
    if (ref) {
      // Other Secrets (the dashboard's session secret) play no part here; a missing Redis password fails below.
      const value = secrets.get(ref.name)?.[ref.key];
      if (value !== undefined) env[entry.name] = value;
    } else if (entry.value !== undefined) {
      env[entry.name] = expand(entry.value, env);
    }
  }
  return env;
}

function expand(text: string, env: Record<string, string>): string {
  return text.replace(/\$\(([A-Za-z_][A-Za-z0-9_]*)\)/g, (literal, name: string) => env[name] ?? literal);
}

function envEntries(object: Manifest): EnvEntry[] {
  return (podSpecOf(object)!.containers[0]!.env ?? []) as EnvEntry[];
}

/** passwordRefs lists every Secret reference in env that carries the Redis password. */
function passwordRefs(objects: readonly Manifest[]): { where: string; ref: { name: string; key: string } }[] {
  return objects.flatMap((object) => (podSpecOf(object)?.containers ?? []).flatMap((container) => ((container.env ?? []) as EnvEntry[])
    .filter((entry) => /PASSWORD|REDISCLI_AUTH/.test(entry.name))
    .map((entry) => ({ where: `${object.kind}/${object.metadata.name} env ${entry.name}`, ref: entry.valueFrom?.secretKeyRef ?? { name: '(literal)', key: entry.value ?? '' } }))));
}

/** RunningRedis is the rendered Redis container run as a local redis-server. */
interface RunningRedis { port: number; env: Record<string, string>; stop(): Promise<void> }

/** runRenderedRedis starts redis-server with the StatefulSet's own args; only its data dir and port are local. */
async function runRenderedRedis(objects: readonly Manifest[], secrets: Secrets): Promise<RunningRedis> {
  const redis = component(objects, 'StatefulSet', 'redis');
  const container = podSpecOf(redis)!.containers[0]!;
  const env = containerEnv(envEntries(redis), secrets);
  const [command, ...args] = (container.args ?? []).map((arg) => expand(arg, env));
  expect(command).toBe('redis-server');
  const dirIndex = args.indexOf('--dir');
  if (dirIndex >= 0) args.splice(dirIndex, 2);
  const dir = await mkdtemp(join(tmpdir(), 'tidemark-redis-auth-'));
  const port = await freePort();
  const child: ChildProcess = spawn('redis-server', [...args, '--dir', dir, '--port', String(port), '--bind', '127.0.0.1'], { stdio: ['ignore', 'ignore', 'pipe'] });
  await waitForPort(port, 10_000, child);
  return {
    port,
    env,
    async stop() {
      await stopProcess(child);
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/**
 * ask sends Redis commands over a plain socket (RESP inline commands) and returns the last reply's
 * first line: what any client, authenticated or not, gets from the server.
 */
async function ask(port: number, commands: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = createConnection({ host: '127.0.0.1', port });
    let replies = '';
    socket.on('data', (chunk: Buffer) => {
      replies += chunk.toString();
      const lines = replies.split('\r\n').filter((line) => line.length > 0);
      if (lines.length >= commands.length) {
        socket.end();
        resolve(lines[commands.length - 1]!);
      }
    });
    socket.on('error', reject);
    socket.write(commands.map((command) => `${command}\r\n`).join(''));
  });
}

/** pingAs sends PING as a client of `url` (ioredis, as the apps use it) and returns the reply or the error. */
async function pingAs(url: string): Promise<string> {
  const client = new Redis(url, { lazyConnect: true, enableReadyCheck: false, maxRetriesPerRequest: 0, retryStrategy: () => null });
  client.on('error', () => undefined);
  try {
    await client.connect();
    return await client.ping();
  } catch (error) {
    return (error as Error).message;
  } finally {
    client.disconnect();
  }
}

const password = randomBytes(24).toString('hex');
const renders: [string, () => Promise<{ objects: Manifest[]; secrets: Secrets }>][] = [
  // The base's Secret is created by the user before `kubectl apply -k` (deploy/README.md); the test plays the user.
  ['Kustomize base', async () => ({ objects: await renderKustomize(kubeconfigPath), secrets: new Map([['tidemark-redis-auth', { password }]]) })],
  // The chart generates its Secret; the test reads the password from what it rendered.
  ['Helm chart', async () => {
    const objects = await renderHelm({ name: 'tidemark', namespace: 'tidemark' });
    const secrets: Secrets = new Map(objects.filter((object) => object.kind === 'Secret').map((object) => [
      object.metadata.name,
      Object.fromEntries(Object.entries((object.data ?? {}) as Record<string, string>).map(([key, value]) => [key, Buffer.from(value, 'base64').toString()])),
    ]));
    return { objects, secrets };
  }],
];

describe.each(renders)('Redis AUTH in the %s', (label, render) => {
  let objects: Manifest[] = [];
  let secrets: Secrets = new Map();
  let redis: RunningRedis;

  beforeAll(async () => {
    ({ objects, secrets } = await render());
    redis = await runRenderedRedis(objects, secrets);
  }, 600_000);
  afterAll(async () => {
    await redis?.stop();
  });

  it('refuses a client without the password', async () => {
    expect(await ask(redis.port, ['PING'])).toMatch(/^-NOAUTH/);
    expect(await ask(redis.port, ['SET stolen 1'])).toMatch(/^-NOAUTH/);
    expect(await ask(redis.port, ['AUTH default not-the-password', 'PING'])).toMatch(/^-(WRONGPASS|NOAUTH)/);
    expect(await ask(redis.port, [`AUTH default ${redis.env.REDIS_PASSWORD}`, 'PING'])).toBe('+PONG');
  });

  it('lets its probes in with REDISCLI_AUTH from the Secret, and only with it', async () => {
    const probe = (component(objects, 'StatefulSet', 'redis').spec as { template: { spec: { containers: { readinessProbe: { exec: { command: string[] } } }[] } } })
      .template.spec.containers[0]!.readinessProbe.exec.command;
    const [cli, ...probeArgs] = probe;
    const withEnv = (extra: Record<string, string>) => new Promise<string>((resolve) => {
      const child = spawn(cli!, ['-h', '127.0.0.1', '-p', String(redis.port), ...probeArgs], { env: { PATH: process.env.PATH ?? '', ...extra }, stdio: ['ignore', 'pipe', 'pipe'] });
      let output = '';
      child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
      child.on('exit', () => resolve(output.trim()));
    });
    expect(await withEnv({ REDISCLI_AUTH: redis.env.REDISCLI_AUTH! })).toBe('PONG');
    expect(await withEnv({})).toMatch(/NOAUTH/);
  });

  it('gives the reconciler and the dashboard the password from the same Secret, so their URL gets in', async () => {
    const service = objects.find((object) => object.kind === 'Service' && object.metadata.labels?.['app.kubernetes.io/component'] === 'redis')!;
    for (const app of ['reconciler', 'dashboard']) {
      const env = containerEnv(envEntries(component(objects, 'Deployment', app)), secrets);
      const url = new URL(env.TIDEMARK_REDIS_URL!);
      expect(url.hostname, app).toBe(service.metadata.name);
      url.hostname = '127.0.0.1';
      url.port = String(redis.port);
      expect(await pingAs(url.toString()), app).toBe('PONG');
    }
  });

  it('takes every password from a Secret (none written in the manifests), and the same key everywhere', () => {
    const refs = passwordRefs(objects);
    expect(refs.map((entry) => entry.where).sort()).toEqual([
      `Deployment/${component(objects, 'Deployment', 'dashboard').metadata.name} env TIDEMARK_REDIS_PASSWORD`,
      `Deployment/${component(objects, 'Deployment', 'reconciler').metadata.name} env TIDEMARK_REDIS_PASSWORD`,
      `StatefulSet/${component(objects, 'StatefulSet', 'redis').metadata.name} env REDISCLI_AUTH`,
      `StatefulSet/${component(objects, 'StatefulSet', 'redis').metadata.name} env REDIS_PASSWORD`,
    ].sort());
    expect(new Set(refs.map((entry) => `${entry.ref.name}/${entry.ref.key}`)).size).toBe(1);
  });
});

describe('the Kustomize base', () => {
  it('commits no Redis password: the Secret it reads is created by the user first, as deploy/README.md says', async () => {
    const objects = await renderKustomize(kubeconfigPath);
    expect(objects.filter((object) => object.kind === 'Secret')).toEqual([]);
    const readme = await readFile(join(repoRoot, 'deploy/README.md'), 'utf8');
    expect(readme).toMatch(/create secret generic tidemark-redis-auth --from-literal=password=/);
  });
});
