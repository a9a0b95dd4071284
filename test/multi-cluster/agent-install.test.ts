// `tidemark install --agent <cluster>`, the real binary, against a real redis-server on one node with
// an ACL file and a kube-apiserver of its own (install applies CRDs the shared plane's suites use).
// Stand-in, named where it acts: no kubelet runs the agent's pod (--no-wait); what is checked is what
// Redis grants the agent's login it wrote, and what the cluster holds. The hub Redis's admin password
// and the agent's password must appear in no output.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ClusterConnection, getObject } from '@tidemark/cluster';
import { RecordKeys } from '@tidemark/contracts';
import { freePort, startControlPlane, stopProcess, waitForPort, type ControlPlane } from '@tidemark/testing';
import { refuseUntaggedRecords } from '../../apps/reconciler/src/redis-key-tags';
import { runTidemark, type TidemarkRun } from '../cli/run-tidemark';

const id = randomUUID().slice(0, 8);
const prefix = `agi-${id}`;
const keys = new RecordKeys(`{${prefix}}`);
const namespace = 'tidemark-agent';
const adminPassword = `Admin${randomUUID().replaceAll('-', '')}`;
let plane: ControlPlane;
let kube: ClusterConnection;
let scratch: string;
let server: ChildProcess;
let port: number;
let admin: Redis;
let aclFile: string;

const secretName = 'tidemark-agent-redis';
const install = (cluster: string, extra: string[] = [], urlFile = join(scratch, 'hub-url')): Promise<TidemarkRun> => runTidemark([
  'install', '--agent', cluster, '--kubeconfig', plane.kubeconfigPath, '-n', namespace, '--no-wait',
  '--hub-redis-url-file', urlFile, '--prefix', prefix, '-f', join(scratch, 'values.yaml'), ...extra,
]);

async function agentLogin(): Promise<{ username: string; password: string; address: string }> {
  const secret = await getObject(kube, { apiVersion: 'v1', kind: 'Secret', namespace, name: secretName });
  const data = (secret as { data?: Record<string, string> } | undefined)?.data ?? {};
  const text = (key: string) => Buffer.from(data[key] ?? '', 'base64').toString('utf8');
  return { username: text('username'), password: text('password'), address: text('address') };
}

async function asAgent<T>(run: (redis: Redis) => Promise<T>): Promise<T> {
  const login = await agentLogin();
  const redis = new Redis({ host: '127.0.0.1', port, username: login.username, password: login.password, maxRetriesPerRequest: 1, lazyConnect: true });
  try {
    await redis.connect();
    return await run(redis);
  } finally {
    redis.disconnect();
  }
}

function expectNoSecretIn(run: TidemarkRun, password: string): void {
  for (const text of [run.stdout, run.stderr]) {
    expect(text).not.toContain(adminPassword);
    if (password) expect(text).not.toContain(password);
  }
}

beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'tidemark-agent-install-'));
  aclFile = join(scratch, 'users.acl');
  await writeFile(aclFile, `user default on >${adminPassword} ~* &* +@all\n`);
  port = await freePort();
  server = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--dir', scratch, '--save', '', '--appendonly', 'no', '--aclfile', aclFile], { stdio: ['ignore', 'ignore', 'pipe'] });
  await waitForPort(port, 10_000, server);
  admin = new Redis({ host: '127.0.0.1', port, password: adminPassword });
  await writeFile(join(scratch, 'hub-url'), `redis://default:${adminPassword}@127.0.0.1:${port}\n`);
  await writeFile(join(scratch, 'values.yaml'), 'reconciler: {replicas: 1}\nconfig:\n  sources: [{name: platform, url: "https://git.example.com/platform.git", ref: {branch: main}}]\n');
  plane = await startControlPlane({ name: 'agent-install' });
  kube = ClusterConnection.connect({ cluster: 'agent-install', kubeconfig: plane.kubeconfig, fieldManager: 'agent-install-test' });
}, 240_000);

afterAll(async () => {
  kube?.close();
  admin?.disconnect();
  if (server) await stopProcess(server);
  await plane?.stop();
  if (scratch) await rm(scratch, { recursive: true, force: true });
});

describe('tidemark install --agent', () => {
  it('refuses a cluster name or prefix with ACL glob characters or spaces before any ACL command', async () => {
    const before = await admin.call('ACL', 'USERS');
    for (const cluster of ['a*', 'a?', 'e[dg]e', 'a\\b', 'edge east', '*']) {
      const run = await install(cluster);
      expect(run.code, cluster).toBe(2);
      expect(run.stderr, cluster).toMatch(/cannot name a queue: use 1-63 letters, digits/);
    }
    const prefixed = await install('edge', ['--prefix', 'tm*']);
    expect(prefixed.code).toBe(2);
    expect(prefixed.stderr).toContain('cannot be held to an agent\'s ACL rule');
    expect(await admin.call('ACL', 'USERS')).toEqual(before);
    expect(await getObject(kube, { apiVersion: 'v1', kind: 'Namespace', name: namespace })).toBeUndefined();
  });

  it('says what to do when the hub Redis login may not run ACL, and writes nothing to the cluster', async () => {
    const limitedPassword = `Lim${randomUUID().replaceAll('-', '')}`;
    await admin.call('ACL', 'SETUSER', 'limited', 'on', `>${limitedPassword}`, '~*', '&*', '+@all', '-@admin', '-acl');
    await writeFile(join(scratch, 'limited-url'), `redis://limited:${limitedPassword}@127.0.0.1:${port}`);
    const run = await install('edge', [], join(scratch, 'limited-url'));
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/the hub's Redis refused ACL GETUSER \(NOPERM.*\): it needs Redis 6 or newer and an admin login that may run ACL/);
    expect(run.stderr + run.stdout).not.toContain(limitedPassword);
    expect(await getObject(kube, { apiVersion: 'v1', kind: 'Namespace', name: namespace })).toBeUndefined();
    await admin.call('ACL', 'DELUSER', 'limited');
  });

  it('creates the agent\'s Redis user, saves it, writes its Secret and the chart in agent mode', async () => {
    const run = await install('edge');
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('Redis user agent-edge on the hub\'s Redis: created, with a new password');
    expect(run.stdout).toContain('ACL SAVE wrote it to the hub Redis\'s aclfile');
    expect(run.stdout).toContain(`Secret ${namespace}/${secretName} holds the agent's Redis login`);
    const login = await agentLogin();
    expect(login).toMatchObject({ username: 'agent-edge', address: `127.0.0.1:${port}` });
    expect(login.password).toMatch(/^[0-9a-f]{48}$/);
    expectNoSecretIn(run, login.password);
    expect(await readFile(aclFile, 'utf8')).toMatch(/^user agent-edge on .*#[0-9a-f]{64} ~\{agi-[0-9a-f]{8}\.edge\}\* %R~\{agi-[0-9a-f]{8}\}:source:\* /m);
    const deployment = await getObject(kube, { apiVersion: 'apps/v1', kind: 'Deployment', namespace, name: 'tidemark-reconciler' });
    expect(JSON.stringify(deployment)).toContain('"name":"TIDEMARK_ROLE","value":"agent"');
    const config = await getObject(kube, { apiVersion: 'v1', kind: 'ConfigMap', namespace, name: 'tidemark-reconciler-config' });
    expect((config as { data?: Record<string, string> }).data?.['tidemark.yaml']).toMatch(/redis:\n\s+hashTag: true/);
  });

  it('gives that login its own cluster\'s keys, and Redis refuses it another cluster\'s, KEYS, FLUSHALL and a source record', async () => {
    await admin.set(keys.clusterFreeze('east'), '{}');
    await admin.hset(keys.sourceStatus('platform'), 'revision', 'r1');
    await asAgent(async (agent) => {
      await agent.set(keys.clusterFreeze('edge'), '{}');
      expect(await agent.get(keys.clusterFreeze('edge'))).toBe('{}');
      expect(await agent.hget(keys.sourceStatus('platform'), 'revision')).toBe('r1');
      await expect(agent.get(keys.clusterFreeze('east'))).rejects.toThrow(/NOPERM/);
      await expect(agent.set(keys.clusterFreeze('east'), 'x')).rejects.toThrow(/NOPERM/);
      await expect(agent.keys('*')).rejects.toThrow(/NOPERM/);
      await expect(agent.flushall()).rejects.toThrow(/NOPERM/);
      await expect(agent.hset(keys.sourceStatus('platform'), 'revision', 'forged')).rejects.toThrow(/NOPERM/);
    });
    expect(await admin.get(keys.clusterFreeze('east'))).toBe('{}');
    expect(await admin.hget(keys.sourceStatus('platform'), 'revision')).toBe('r1');
  });

  it('runs again with nothing changed: the password kept, a rule widened by hand narrowed back', async () => {
    const first = await agentLogin();
    // Widened by hand: every key and command, and a selector (which the rule's own resets do not clear).
    await admin.call('ACL', 'SETUSER', 'agent-edge', '~*', '+@all', '(~* +@all)');
    const run = await install('edge');
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('set to the rule again, password kept');
    expect(run.stdout).toContain('nothing changed in the cluster');
    expectNoSecretIn(run, first.password);
    expect((await agentLogin()).password).toBe(first.password);
    await asAgent(async (agent) => {
      await expect(agent.keys('*')).rejects.toThrow(/NOPERM/);
      await expect(agent.get(keys.clusterFreeze('east'))).rejects.toThrow(/NOPERM/);
    });
  });

  it('gives a new password with --rotate; the old one is refused', async () => {
    const old = await agentLogin();
    const run = await install('edge', ['--rotate']);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('given a new password');
    expect(run.stdout).toContain('rollout restart deployment/tidemark-reconciler');
    const now = await agentLogin();
    expect(now.password).not.toBe(old.password);
    expectNoSecretIn(run, now.password);
    expectNoSecretIn(run, old.password);
    // A connection of its own (logged in as the admin first): AUTH as the agent with the old password.
    const stale = admin.duplicate();
    try {
      await expect(stale.call('AUTH', 'agent-edge', old.password)).rejects.toThrow(/WRONGPASS/);
    } finally {
      stale.disconnect();
    }
    await asAgent(async (agent) => expect(await agent.get(keys.clusterFreeze('edge'))).toBe('{}'));
  });

  it('puts a lost user back with the Secret\'s password, and will not guess one the Secret lost', async () => {
    const login = await agentLogin();
    await admin.call('ACL', 'DELUSER', 'agent-edge');
    const restored = await install('edge');
    expect(restored.code).toBe(0);
    expect(restored.stdout).toContain('created again, with the password the agent\'s Secret holds');
    await asAgent(async (agent) => expect(await agent.get(keys.clusterFreeze('edge'))).toBe('{}'));
    await kube.client.request({ method: 'DELETE', path: `/api/v1/namespaces/${namespace}/secrets/${secretName}`, what: 'delete the agent\'s Secret' });
    const refused = await install('edge');
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('the hub\'s Redis has a user agent-edge but the agent\'s Secret holds no password for it (Redis keeps only a hash): run again with --rotate');
    expectNoSecretIn(restored, login.password);
  });
});

describe('redis.hashTag over an install that ran without it', () => {
  it('refuses to start over records named without tags, and starts on an empty prefix', async () => {
    const plain = `plain-${id}`;
    await admin.hset(new RecordKeys(plain).schema, 'version', '3');
    await expect(refuseUntaggedRecords(admin, new RecordKeys(`{${plain}}`), plain)).rejects.toThrow(/redis\.hashTag: Redis holds this install's records named without hash tags/);
    await expect(refuseUntaggedRecords(admin, new RecordKeys(`{fresh-${id}}`), `fresh-${id}`)).resolves.toBeUndefined();
    await admin.hset(new RecordKeys(`{${plain}}`).schema, 'version', '3');
    await expect(refuseUntaggedRecords(admin, new RecordKeys(`{${plain}}`), plain)).resolves.toBeUndefined();
  });
});
