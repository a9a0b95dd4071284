// A Rollout object in a source's Git (issue 39, item 2): with no policy in tidemark.yaml, a Rollout in
// the repository makes a push go in waves; beside an operator's policy it can only add to it (here it
// tries to drop prod's approval, and prod still waits); a Rollout that does not read holds the
// revision everywhere, and says which file, object and field. Two clusters: `canary` is the rig's
// shared control plane, `prod` one of its own. Every check reads the live ConfigMaps.
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { Writable } from 'node:stream';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { stringify } from 'yaml';
import { ClusterConnection, getObject } from '@tidemark/cluster';
import { RecordKeys, pushRolloutCommand, readRolloutRecord } from '@tidemark/contracts';
import { kubectl, startControlPlanes, startGitServer, type ControlPlane, type GitServer, type WorkingCopy } from '@tidemark/testing';
import { Redis } from 'ioredis';
import { loadConfig } from '../../apps/reconciler/src/config';
import { createLogger } from '../../apps/reconciler/src/logger';
import { startReconciler, type RunningReconciler } from '../../apps/reconciler/src/reconciler';

const id = randomUUID().slice(0, 8);
const prefix = `rollout-object-${id}`;
const keys = new RecordKeys(prefix);
const namespaces = { tenant: `tenant-${id}`, capped: `capped-${id}` } as const;
type SourceName = keyof typeof namespaces;
let planes: ControlPlane[];
let git: GitServer;
const repos = new Map<SourceName, WorkingCopy>();
let workDir: string;
let reconciler: RunningReconciler;
let redis: Redis;
const connections = new Map<string, ClusterConnection>();
/** The reconciler's warnings, one JSON line each (the driver says there why a source does not move). */
const warnings: string[] = [];

const settings = (source: SourceName, version: string) => stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'settings', namespace: namespaces[source] }, data: { version } });
const rollout = (source: SourceName, spec: unknown) => stringify({ apiVersion: 'tidemark.dev/v1alpha1', kind: 'Rollout', metadata: { name: 'waves', namespace: namespaces[source] }, spec });
const version = async (cluster: string, source: SourceName) => ((await getObject(connections.get(cluster)!, { apiVersion: 'v1', kind: 'ConfigMap', namespace: namespaces[source], name: 'settings' }).catch(() => undefined)) as { data?: { version?: string } } | undefined)?.data?.version;
const record = (source: SourceName) => readRolloutRecord(redis, keys, source);
const promote = (source: SourceName) => pushRolloutCommand(redis, keys, source, { verb: 'promote', by: 'rig', at: new Date().toISOString() });
const waves = [
  { name: 'canary', clusterSelector: { matchLabels: { stage: 'canary' } } },
  { name: 'prod', clusterSelector: { matchLabels: { stage: 'prod' } }, approval: true },
];

beforeAll(async () => {
  [planes, git] = await Promise.all([startControlPlanes(1, 'rollout-object'), startGitServer()]);
  const urls: Record<string, string> = {};
  for (const source of ['tenant', 'capped'] as const) {
    urls[source] = await git.createRepository(`${source}-${id}`);
    const repo = await git.workingCopy(`${source}-${id}`);
    repos.set(source, repo);
    await repo.write('ns.yaml', stringify({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespaces[source] } }));
    await repo.write('settings.yaml', settings(source, '1'));
  }
  // tenant: the Rollout alone says the waves. capped: the operator's policy has prod's approval; the Git one tries to drop it.
  await repos.get('tenant')!.write('rollout.yaml', rollout('tenant', { waves }));
  await repos.get('capped')!.write('rollout.yaml', rollout('capped', { waves: [{ name: 'canary', soakMs: 1_000 }, { name: 'prod', approval: false }] }));
  for (const repo of repos.values()) await repo.commitAndPush('first');
  workDir = await mkdtemp(join(tmpdir(), 'tidemark-rollout-object-'));
  await writeFile(join(workDir, 'tidemark.yaml'), stringify({
    redis: { url: inject('redisUrl'), prefix },
    cacheDir: join(workDir, 'cache'),
    sources: (['tenant', 'capped'] as const).map((source) => ({ name: source, url: urls[source], ref: { branch: 'main' }, intervalMs: 1_000 })),
    clusters: [
      { name: 'canary', labels: { stage: 'canary' }, kubeconfig: inject('kubeconfigPath') },
      { name: 'prod', labels: { stage: 'prod' }, kubeconfig: planes[0]!.kubeconfigPath },
    ],
    http: { port: 0, host: '127.0.0.1' },
    rollouts: [{ source: 'capped', waves }],
  }));
  reconciler = await startReconciler(loadConfig({ TIDEMARK_CONFIG: join(workDir, 'tidemark.yaml') }), createLogger('warn', new Writable({ write(chunk: Buffer, _encoding, done) { warnings.push(chunk.toString()); done(); } })), { rollouts: { tickMs: 200 } });
  redis = new Redis(inject('redisUrl'));
  connections.set('canary', ClusterConnection.connect({ cluster: 'canary', kubeconfig: inject('kubeconfig') }));
  connections.set('prod', ClusterConnection.connect({ cluster: 'prod', kubeconfig: planes[0]!.kubeconfig }));
}, 600_000);

afterAll(async () => {
  await reconciler?.stop();
  connections.forEach((connection) => connection.close());
  redis?.disconnect();
  for (const namespace of Object.values(namespaces)) await kubectl(inject('kubeconfigPath'), ['delete', 'namespace', namespace, '--wait=false']).catch(() => undefined);
  await git?.stop();
  await Promise.all((planes ?? []).map((plane) => plane.stop()));
  if (workDir) await rm(workDir, { recursive: true, force: true });
});

describe('a Rollout object in Git', () => {
  it('makes a push go in waves with no policy in tidemark.yaml: canary first, prod after its approval', async () => {
    await expect.poll(async () => (await record('tenant'))?.phase, { timeout: 120_000, interval: 500 }).toBe('waiting-approval');
    expect(await version('canary', 'tenant')).toBe('1');
    expect(await version('prod', 'tenant')).toBeUndefined();
    // The Rollout is read, never applied: it has no status record on any cluster.
    expect(await reconciler.statusStore.get('canary', `tidemark.dev/Rollout/${namespaces.tenant}/waves`)).toBeUndefined();
    await promote('tenant');
    await expect.poll(() => version('prod', 'tenant'), { timeout: 60_000, interval: 500 }).toBe('1');
    await expect.poll(async () => (await record('tenant'))?.phase, { timeout: 60_000, interval: 500 }).toBe('complete');
  });

  it('cannot drop the approval the operator configured: prod still waits for it', async () => {
    await expect.poll(async () => (await record('capped'))?.phase, { timeout: 120_000, interval: 500 }).toBe('waiting-approval');
    expect((await record('capped'))?.waves.map((wave) => wave.name)).toEqual(['canary', 'prod']);
    expect(await version('canary', 'capped')).toBe('1');
    expect(await version('prod', 'capped')).toBeUndefined();
    await promote('capped');
    await expect.poll(() => version('prod', 'capped'), { timeout: 60_000, interval: 500 }).toBe('1');
  });

  it('holds a revision whose Rollout does not read, on every cluster, naming the file, object and field', async () => {
    const repo = repos.get('tenant')!;
    await repo.write('settings.yaml', settings('tenant', '2'));
    await repo.write('rollout.yaml', rollout('tenant', { waves: [{ name: 'canary', maxParallel: '150%' }] }));
    await repo.commitAndPush('a Rollout that does not read');
    // The driver read the revision and refused its Rollout: the warning names the file, the object and the field.
    const refused = () => warnings.filter((line) => line.includes('rollout step failed for a source') && line.includes('"source":"tenant"'));
    await expect.poll(() => refused().length, { timeout: 60_000, interval: 500 }).toBeGreaterThan(0);
    expect(refused()[0]).toContain(`rollout.yaml: Rollout ${namespaces.tenant}/waves spec.waves[0].maxParallel: a count of clusters`);
    // Its poll routed no jobs, and the driver reached no cluster: the old revision stays everywhere.
    expect((await record('tenant'))?.phase).toBe('complete');
    for (const cluster of ['canary', 'prod']) expect(await version(cluster, 'tenant'), cluster).toBe('1');
    // Fixed, the revision goes out in waves again.
    await repo.write('rollout.yaml', rollout('tenant', { waves }));
    const fixed = await repo.commitAndPush('fix the Rollout');
    await expect.poll(async () => { const now = await record('tenant'); return now?.revision === fixed ? now.phase : undefined; }, { timeout: 60_000, interval: 500 }).toBe('waiting-approval');
    expect(await version('canary', 'tenant')).toBe('2');
    expect(await version('prod', 'tenant')).toBe('1');
  });
});
