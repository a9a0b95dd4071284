// A rollout gates on an agent's cluster like any other (issue 40, item 6): the hub and the agent run
// in this process (startReconciler twice, the agent with TIDEMARK_ROLE=agent), the agent alone holds
// the kubeconfig of its plane. The first wave is the agent's cluster, the second the rig's shared
// plane: the second is reached only once the agent's status records say its objects are Ready at the
// new revision. The live objects say what each cluster has; the record orders the waves.
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { ClusterConnection, deleteObject, getObject } from '@tidemark/cluster';
import { RecordKeys, readRolloutRecord, type RolloutRecord } from '@tidemark/contracts';
import { sendGithubPush, startControlPlanes, startGitServer, type ControlPlane, type GitServer, type WorkingCopy } from '@tidemark/testing';
import { loadConfig } from '../../apps/reconciler/src/config';
import { createLogger } from '../../apps/reconciler/src/logger';
import { startReconciler, type RunningReconciler } from '../../apps/reconciler/src/reconciler';
import { Redis } from 'ioredis';

const id = randomUUID().slice(0, 8);
const namespace = 'default';
const settingsName = `agent-settings-${id}`;
const prefix = `ragent-${id}`;
const secret = `hook-${randomUUID()}`;
const keys = new RecordKeys(prefix);
let planes: ControlPlane[];
let git: GitServer;
let repo: WorkingCopy;
let workDir: string;
let hub: RunningReconciler;
let agent: RunningReconciler;
let redis: Redis;
const connections = new Map<string, ClusterConnection>();

const settings = (version: string) => stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: settingsName, namespace }, data: { version } });
const liveVersion = async (cluster: string) => ((await getObject(connections.get(cluster)!, { apiVersion: 'v1', kind: 'ConfigMap', namespace, name: settingsName }).catch(() => undefined)) as { data?: { version?: string } } | undefined)?.data?.version;
const record = async (): Promise<RolloutRecord | undefined> => readRolloutRecord(redis, keys, 'apps');

const startAgent = () => startReconciler(loadConfig({ TIDEMARK_CONFIG: join(workDir, 'agent.yaml'), TIDEMARK_ROLE: 'agent' }), createLogger('error'));

async function push(version: string): Promise<string> {
  await repo.write('apps/settings.yaml', settings(version));
  const revision = await repo.commitAndPush(`settings ${version}`);
  expect(await sendGithubPush(`http://${hub.http.address}/hooks/apps`, secret)).toBe(202);
  return revision;
}

beforeAll(async () => {
  planes = await startControlPlanes(1, 'ragent');
  connections.set('mgmt', ClusterConnection.connect({ cluster: 'mgmt', kubeconfig: inject('kubeconfig') }));
  connections.set('edge', ClusterConnection.connect({ cluster: 'edge', kubeconfig: planes[0]!.kubeconfig }));
  redis = new Redis(inject('redisUrl'));
  git = await startGitServer();
  const url = await git.createRepository('apps');
  repo = await git.workingCopy('apps');
  await repo.write('apps/settings.yaml', settings('1'));
  await repo.commitAndPush('settings 1');
  workDir = await mkdtemp(join(tmpdir(), 'tidemark-rollout-agent-'));
  const common = {
    redis: { url: inject('redisUrl'), prefix },
    sources: [{ name: 'apps', url, ref: { branch: 'main' }, intervalMs: 600_000 }],
    http: { port: 0, host: '127.0.0.1' },
    healthCheck: { intervalMs: 300, timeoutMs: 30_000, failureThreshold: 10 },
  };
  await writeFile(join(workDir, 'hub.yaml'), stringify({
    ...common,
    cacheDir: join(workDir, 'cache-hub'),
    clusters: [{ name: 'mgmt', labels: { stage: 'prod' }, kubeconfig: inject('kubeconfigPath') }, { name: 'edge', agent: true, labels: { stage: 'canary' } }],
    webhooks: [{ source: 'apps', provider: 'github', secret: { env: 'APPS_SECRET' } }],
    rollouts: [{ source: 'apps', waves: [{ name: 'canary', clusterSelector: { matchLabels: { stage: 'canary' } }, gateTimeoutMs: 15_000 }, { name: 'prod', clusterSelector: { matchLabels: { stage: 'prod' } } }] }],
  }));
  await writeFile(join(workDir, 'agent.yaml'), stringify({ ...common, cacheDir: join(workDir, 'cache-agent'), clusters: [{ name: 'edge', labels: { stage: 'canary' }, kubeconfig: planes[0]!.kubeconfigPath }] }));
  agent = await startAgent();
  hub = await startReconciler(loadConfig({ TIDEMARK_CONFIG: join(workDir, 'hub.yaml'), APPS_SECRET: secret }), createLogger('error'), { rollouts: { tickMs: 200 } });
});

afterAll(async () => {
  await hub?.stop();
  await agent?.stop();
  const mgmt = connections.get('mgmt');
  if (mgmt) await deleteObject(mgmt, { group: '', kind: 'ConfigMap', namespace, name: settingsName }).catch(() => undefined);
  connections.forEach((connection) => connection.close());
  redis?.disconnect();
  await git?.stop();
  await Promise.all((planes ?? []).map((plane) => plane.stop()));
  await rm(workDir, { recursive: true, force: true });
});

describe('a rollout whose first wave is an agent\'s cluster', { timeout: 240_000 }, () => {
  it('reaches the next wave only once the agent\'s cluster is Ready at the revision, for each revision', async () => {
    await expect.poll(async () => (await record())?.phase, { timeout: 120_000, interval: 500 }).toBe('complete');
    expect([await liveVersion('edge'), await liveVersion('mgmt')]).toEqual(['1', '1']);
    const second = await push('2');
    await expect.poll(async () => { const now = await record(); return now?.revision === second ? now.phase : undefined; }, { timeout: 120_000, interval: 500 }).toBe('complete');
    expect([await liveVersion('edge'), await liveVersion('mgmt')]).toEqual(['2', '2']);
    const cells = (await record())!.cells;
    expect(cells.edge).toMatchObject({ wave: 0, state: 'ready' });
    expect(Date.parse(cells.mgmt!.reachedAt!)).toBeGreaterThanOrEqual(Date.parse(cells.edge!.readyAt!));
  });

  it('halts in the agent\'s wave when no agent serves it: its gate times out, the next wave keeps its revision', async () => {
    await agent.stop();
    const third = await push('3');
    await expect.poll(async () => { const now = await record(); return now?.revision === third ? now.phase : undefined; }, { timeout: 120_000, interval: 500 }).toBe('halted');
    expect((await record())!.halt).toMatchObject({ cluster: 'edge' });
    expect([await liveVersion('edge'), await liveVersion('mgmt')]).toEqual(['2', '2']);
    expect((await record())!.targets.mgmt).not.toBe(third);
  });

  it('rolls a newer revision out once an agent serves the cluster again', async () => {
    agent = await startAgent();
    const fourth = await push('4');
    await expect.poll(async () => { const now = await record(); return now?.revision === fourth ? now.phase : undefined; }, { timeout: 120_000, interval: 500 }).toBe('complete');
    expect([await liveVersion('edge'), await liveVersion('mgmt')]).toEqual(['4', '4']);
  });
});
