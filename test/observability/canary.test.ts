// Plants canary credentials and Secret data, runs the reconciler on them for real (Git with
// basic auth, a signed webhook, a Secret applied, then edited by hand and its drift reported, a
// SOPS-encrypted Secret decrypted at render time and applied), then looks for the canaries in every
// log line, every Redis key and every API response. It finds none.
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createHmac, randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { Redis } from 'ioredis';
import { stringify } from 'yaml';
import { ClusterConnection, getObject } from '@tidemark/cluster';
import { kubectl, renderToolsDir, run, startGitServer, startRedis, type GitServer, type TestRedis, type WorkingCopy } from '@tidemark/testing';
import { loadConfig } from '../../apps/reconciler/src/config';
import { createLogger } from '../../apps/reconciler/src/logger';
import { startReconciler, type RunningReconciler } from '../../apps/reconciler/src/reconciler';
import { buildDashboard } from '../../apps/dashboard/src/build-app';
import { dumpRedis, findCanaries } from './canary-scan';
import { newPgpKey, renderTools, type PgpKey } from '../render/render-fixture';

const tag = randomBytes(6).toString('hex');
const namespace = `canary-${tag}`;
const canaries = {
  gitPassword: `cnry-gitpw-${randomBytes(9).toString('hex')}`,
  webhookSecret: `cnry-hook-${randomBytes(9).toString('hex')}`,
  secretData: `cnry-data-${randomBytes(9).toString('hex')}`,
  handEdit: `cnry-edit-${randomBytes(9).toString('hex')}`,
  sopsValue: `cnry-sops-${randomBytes(9).toString('hex')}`,
  sopsPgpValue: `cnry-pgp-${randomBytes(9).toString('hex')}`,
  kubeToken: /token:\s*"?([^\s"]+)/.exec(inject('kubeconfig'))?.[1] ?? 'no-token-in-kubeconfig',
};
const viewerToken = `viewer-${randomBytes(12).toString('hex')}`;
const b64 = (text: string) => Buffer.from(text).toString('base64');

const logLines: string[] = [];
const logStream = new Writable({ write(chunk: Buffer, _encoding, done) { logLines.push(chunk.toString()); done(); } });
const log = createLogger('debug', logStream);

let redis: TestRedis;
let git: GitServer;
let repo: WorkingCopy;
let workDir: string;
let reconciler: RunningReconciler | undefined;
let connection: ClusterConnection;
let pgp: PgpKey | undefined;
const responses: { where: string; body: string }[] = [];

function manifests(configValue: string): Record<string, string> {
  return {
    'namespace.yaml': stringify({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } }),
    'secret.yaml': stringify({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 'api-credentials', namespace, annotations: { 'tidemark.dev/drift': 'report' } }, type: 'Opaque', data: { 'api-key': b64(canaries.secretData) } }),
    'config.yaml': stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'settings', namespace }, data: { mode: configValue } }),
    'webapp.yaml': stringify({ apiVersion: 'tidemark.dev/v1alpha1', kind: 'WebApp', metadata: { name: 'shop', namespace }, spec: { image: 'nginx:1.27', replicas: 1, features: { config: { enabled: true, data: { MODE: configValue } } } } }),
  };
}

async function pushAll(configValue: string, message: string): Promise<void> {
  for (const [path, content] of Object.entries(manifests(configValue))) await repo.write(`deploy/${path}`, content);
  await repo.commitAndPush(message);
}

/**
 * pushSealedSecret commits a kustomization holding a Secret encrypted with sops for a fresh age
 * key (the reconciler gets the key file), one encrypted for a PGP key (likewise), and one
 * encrypted for a key it does not have.
 */
async function pushSealedSecret(): Promise<{ ageKeyFile: string; pgpKeyFile: string }> {
  const tools = await renderTools();
  const ageKey = join(workDir, 'tidemark.agekey');
  await run(tools.ageKeygen, ['-o', ageKey]);
  await run(tools.ageKeygen, ['-o', join(workDir, 'stranger.agekey')]);
  const encrypt = async (key: string, name: string) => {
    const plain = join(workDir, `${name}.yaml`);
    await writeFile(plain, stringify({ apiVersion: 'v1', kind: 'Secret', metadata: { name }, type: 'Opaque', stringData: { token: canaries.sopsValue } }));
    const recipient = (await run(tools.ageKeygen, ['-y', key])).trim();
    return run(tools.sops, ['--encrypt', '--age', recipient, '--encrypted-regex', '^(data|stringData)$', plain], { env: { PATH: process.env.PATH ?? '', HOME: workDir } });
  };
  await repo.write('deploy/sealed/kustomization.yaml', stringify({ namespace, resources: ['sealed.enc.yaml'] }));
  await repo.write('deploy/sealed/sealed.enc.yaml', await encrypt(ageKey, 'sealed'));
  await repo.write('deploy/stranger/kustomization.yaml', stringify({ namespace, resources: ['stranger.enc.yaml'] }));
  await repo.write('deploy/stranger/stranger.enc.yaml', await encrypt(join(workDir, 'stranger.agekey'), 'stranger'));
  pgp = await newPgpKey(workDir, 'canary-pgp');
  const plainPgp = join(workDir, 'sealed-pgp.yaml');
  await writeFile(plainPgp, stringify({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 'sealed-pgp' }, type: 'Opaque', stringData: { token: canaries.sopsPgpValue } }));
  await repo.write('deploy/sealed-pgp/kustomization.yaml', stringify({ namespace, resources: ['sealed-pgp.enc.yaml'] }));
  await repo.write('deploy/sealed-pgp/sealed-pgp.enc.yaml', await pgp.encrypt(tools.sops, plainPgp));
  return { ageKeyFile: ageKey, pgpKeyFile: pgp.keyFile };
}

async function sealedValue(name = 'sealed'): Promise<string | undefined> {
  const secret = await getObject(connection, { apiVersion: 'v1', kind: 'Secret', namespace, name }) as { data?: Record<string, string> } | undefined;
  return secret?.data?.token;
}

async function record(where: string, response: Promise<Response>): Promise<void> {
  const answered = await response;
  responses.push({ where: `${where} (${answered.status})`, body: await answered.text() });
}

async function secretValue(): Promise<string | undefined> {
  const secret = await getObject(connection, { apiVersion: 'v1', kind: 'Secret', namespace, name: 'api-credentials' }) as { data?: Record<string, string> } | undefined;
  return secret?.data?.['api-key'];
}

beforeAll(async () => {
  workDir = await mkdtemp(join(tmpdir(), 'tidemark-canary-'));
  // A Redis of its own, so "every key" means every key, and a Git server that demands the canary password.
  redis = await startRedis();
  git = await startGitServer({ basicAuth: { username: 'tidemark', password: canaries.gitPassword } });
  const remote = await git.createRepository('canary');
  repo = await git.workingCopy('canary');
  const sopsKeys = await pushSealedSecret();
  await pushAll('first', 'canary objects');
  const configPath = join(workDir, 'tidemark.yaml');
  await writeFile(configPath, stringify({
    redis: { url: redis.url },
    cacheDir: join(workDir, 'cache'),
    sources: [{ name: 'canary', url: remote, ref: { branch: 'main' }, path: 'deploy', intervalMs: 600_000, auth: { username: 'tidemark', password: { env: 'CANARY_GIT_PASSWORD' } } }],
    clusters: [{ name: 'rig', kubeconfig: inject('kubeconfigPath') }],
    http: { port: 0, host: '127.0.0.1' },
    render: { toolsDir: renderToolsDir, sops: { sourceKeys: { canary: sopsKeys } } },
    webhooks: [{ source: 'canary', provider: 'github', secret: { env: 'CANARY_WEBHOOK_SECRET' } }],
  }));
  const config = loadConfig({ TIDEMARK_CONFIG: configPath, CANARY_GIT_PASSWORD: canaries.gitPassword, CANARY_WEBHOOK_SECRET: canaries.webhookSecret, TIDEMARK_LOG_LEVEL: 'debug' });
  reconciler = await startReconciler(config, log);
  connection = ClusterConnection.connect({ cluster: 'rig', kubeconfig: inject('kubeconfig') });
});

afterAll(async () => {
  await reconciler?.stop();
  connection?.close();
  await kubectl(inject('kubeconfigPath'), ['delete', 'namespace', namespace, '--wait=false']).catch(() => undefined);
  await git?.stop();
  await pgp?.stop();
  await redis?.stop();
  await rm(workDir, { recursive: true, force: true });
});

describe('no credential or Secret value leaks', () => {
  it('runs the reconciler through auth, webhook, apply and drift of a Secret', async () => {
    await expect.poll(secretValue, { timeout: 60_000, interval: 250 }).toBe(b64(canaries.secretData));
    // A pushed change, announced by a signed webhook.
    await pushAll('second', 'change settings');
    const body = JSON.stringify({ ref: 'refs/heads/main', after: await repo.git('rev-parse', 'HEAD') });
    const signature = `sha256=${createHmac('sha256', canaries.webhookSecret).update(body).digest('hex')}`;
    await record('webhook response', fetch(`http://${reconciler!.http.address}/hooks/canary`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-github-event': 'push', 'x-hub-signature-256': signature }, body }));
    await expect.poll(async () => (await getObject(connection, { apiVersion: 'v1', kind: 'ConfigMap', namespace, name: 'settings' }) as { data?: { mode?: string } } | undefined)?.data?.mode, { timeout: 30_000, interval: 250 }).toBe('second');
    // A hand edit of the Secret is drift, reported: the drift item goes to the store and the dashboard.
    await kubectl(inject('kubeconfigPath'), ['patch', 'secret', 'api-credentials', '-n', namespace, '--type=merge', '-p', JSON.stringify({ data: { 'api-key': b64(canaries.handEdit) } })]);
    await expect.poll(async () => (await reconciler!.statusStore.get('rig', `core/Secret/${namespace}/api-credentials`))?.drift?.length ?? 0, { timeout: 30_000, interval: 250 }).toBeGreaterThan(0);
  });

  it('decrypts SOPS Secrets (age and PGP) at render time and applies them; a file for another key stops only its unit', async () => {
    await expect.poll(() => sealedValue(), { timeout: 60_000, interval: 250 }).toBe(b64(canaries.sopsValue));
    await expect.poll(() => sealedValue('sealed-pgp'), { timeout: 30_000, interval: 250 }).toBe(b64(canaries.sopsPgpValue));
    const status = await reconciler!.statusStore.get('rig', `core/Secret/${namespace}/sealed`);
    expect(status?.renderUnit).toEqual({ renderer: 'kustomize', folder: 'deploy/sealed', decrypted: true });
    const errors = logLines.filter((line) => line.includes('could not be decrypted'));
    expect(errors.length + (await sourceErrors()).length).toBeGreaterThan(0);
  });

  it('exports what it did on /metrics', async () => {
    const text = await (await fetch(`http://${reconciler!.http.address}/metrics`)).text();
    const value = (pattern: RegExp) => Number(pattern.exec(text)?.[1] ?? Number.NaN);
    expect(value(/^tidemark_commit_to_live_seconds_count\{cluster="rig",origin="commit"\} (\d+)$/m)).toBeGreaterThanOrEqual(3);
    expect(value(/^tidemark_commit_to_live_seconds_count\{cluster="rig",origin="webhook"\} (\d+)$/m)).toBe(1);
    expect(value(/^tidemark_reconcile_duration_seconds_count\{kind="Secret",cluster="rig",result="ready"\} (\d+)$/m)).toBeGreaterThanOrEqual(1);
    expect(value(/^tidemark_kube_requests_total\{cluster="rig",verb="apply",code="200"\} (\d+)$/m)).toBeGreaterThan(4);
    expect(value(/^tidemark_git_fetch_duration_seconds_count\{source="canary",outcome="fetched"\} (\d+)$/m)).toBeGreaterThanOrEqual(2);
    expect(value(/^tidemark_drift_items\{cluster="rig"\} (\d+)$/m)).toBeGreaterThanOrEqual(1);
    expect(text).toMatch(/^tidemark_queue_jobs\{cluster="rig",state="waiting"\} \d+$/m);
  });

  it('writes structured pipeline lines with object key, cluster, revision and stage', () => {
    const lines = logLines.map((line) => JSON.parse(line) as Record<string, unknown>);
    const pipelineLines = lines.filter((line) => line.msg === 'reconcile finished');
    expect(pipelineLines.length).toBeGreaterThan(3);
    for (const line of pipelineLines) expect(Object.keys(line)).toEqual(expect.arrayContaining(['objectKey', 'cluster', 'revision', 'stage', 'source']));
    expect(pipelineLines.some((line) => line.objectKey === `core/Secret/${namespace}/api-credentials`)).toBe(true);
  });

  it('finds no canary in Redis, the API responses or the logs', async () => {
    const address = `http://${reconciler!.http.address}`;
    for (const path of ['/healthz', '/readyz', '/metrics']) await record(`reconciler ${path}`, fetch(`${address}${path}`));
    await scrapeDashboard();
    const client = new Redis(redis.url);
    const keys = await dumpRedis(client);
    client.disconnect();
    expect(keys.size).toBeGreaterThan(10);
    await reconciler!.stop();
    reconciler = undefined;
    const hits = [
      ...[...keys].flatMap(([key, text]) => findCanaries(text, canaries, `Redis key ${key}`)),
      ...responses.flatMap((response) => findCanaries(response.body, canaries, response.where)),
      ...logLines.flatMap((line, index) => findCanaries(line, canaries, `log line ${index}`)),
    ];
    expect(hits).toEqual([]);
    expect(responses.length).toBeGreaterThan(10);
  });

  it('would see a canary that leaked: planted in a log field, in Redis as base64, and redacted when in a credential field', async () => {
    const planted: string[] = [];
    const stream = new Writable({ write(chunk: Buffer, _encoding, done) { planted.push(chunk.toString()); done(); } });
    const probe = createLogger('info', stream);
    probe.info({ note: canaries.secretData }, 'deliberate leak');
    probe.info({ source: { auth: { password: canaries.gitPassword } }, object: { data: { key: b64(canaries.secretData) } } }, `pull https://tidemark:${canaries.gitPassword}@git.example/r.git`);
    expect(findCanaries(planted[0] ?? '', canaries, 'planted')).toEqual(['secretData as raw in planted']);
    expect(findCanaries(planted[1] ?? '', canaries, 'redacted')).toEqual([]);
    const client = new Redis(redis.url);
    await client.hset(`planted-${tag}`, 'header', `Basic ${b64(`tidemark:${canaries.gitPassword}`)}`);
    const keys = await dumpRedis(client);
    client.disconnect();
    expect([...keys.values()].flatMap((text) => findCanaries(text, canaries, 'redis'))).toHaveLength(1);
  });
});

/** sourceErrors reads the source's recorded problems from Redis, where the dashboard finds them. */
async function sourceErrors(): Promise<string[]> {
  const client = new Redis(redis.url);
  try {
    const keys = await dumpRedis(client);
    return [...keys.values()].filter((text) => text.includes('stranger.enc.yaml could not be decrypted'));
  } finally {
    client.disconnect();
  }
}

async function scrapeDashboard(): Promise<void> {
  const connectionFor = () => new Redis(redis.url);
  const [plain, subscriber] = [connectionFor(), connectionFor()];
  const app = await buildDashboard({
    statusStore: reconciler!.statusStore, queues: reconciler!.queues, redis: plain, subscriber, clusters: ['rig'], sources: ['canary'],
    auth: { sessionSecret: randomBytes(24).toString('hex'), tokens: [{ name: 'viewer', role: 'viewer', token: viewerToken }] },
  });
  await app.ready();
  try {
    const headers = { authorization: `Bearer ${viewerToken}` };
    const records = await reconciler!.statusStore.list('rig');
    const objectPaths = records.flatMap((entry) => [`/api/objects/rig/${entry.objectKey}`, `/objects/rig/${entry.objectKey}`]);
    for (const url of ['/api/overview', '/api/objects', '/api/clusters', '/api/queue', '/api/session', '/', '/objects', '/clusters', '/queue', '/metrics', ...objectPaths]) {
      const response = await app.inject({ method: 'GET', url, headers });
      responses.push({ where: `dashboard ${url} (${response.statusCode})`, body: response.body });
    }
    expect(records.some((entry) => entry.kind === 'Secret')).toBe(true);
  } finally {
    await app.close();
    plain.disconnect();
    subscriber.disconnect();
  }
}
