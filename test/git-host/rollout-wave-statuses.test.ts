// Commit statuses per wave of a rollout, on the real, pinned Gitea (test/gitea): the source is a Gitea
// repository, so Gitea keeps the statuses of its commits. Two clusters, `canary` (the rig's shared
// control plane) and `prod` (a control plane of its own): canary soaks, prod waits for an approval.
// Each wave's status is read back from Gitea as it stored it, with its history.
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { stringify } from 'yaml';
import { ClusterConnection, getObject } from '@tidemark/cluster';
import { RecordKeys, pushRolloutCommand, readRolloutRecord } from '@tidemark/contracts';
import { buildGitea, kubectl, startControlPlanes, startGitea, type ControlPlane, type GiteaRepository, type TestGitea, type WorkingCopy } from '@tidemark/testing';
import { Redis } from 'ioredis';
import { loadConfig } from '../../apps/reconciler/src/config';
import { createLogger } from '../../apps/reconciler/src/logger';
import { startReconciler, type RunningReconciler } from '../../apps/reconciler/src/reconciler';

interface GiteaStatus { id: number; status: string; context: string; description: string; target_url: string }

const id = randomUUID().slice(0, 8);
const namespace = `waves-${id}`;
const prefix = `waves-${id}`;
const keys = new RecordKeys(prefix);
let gitea: TestGitea;
let repository: GiteaRepository;
let copy: WorkingCopy;
let planes: ControlPlane[];
let workDir: string;
let reconciler: RunningReconciler;
let redis: Redis;
let prod: ClusterConnection;

const settings = (version: string) => stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'settings', namespace }, data: { version } });
/** statusesOf lists a commit's statuses as Gitea stored them, first posted first. */
const statusesOf = async (sha: string) => (await gitea.api<GiteaStatus[]>('GET', `/repos/${repository.owner}/${repository.name}/statuses/${sha}?limit=50`)).sort((a, b) => a.id - b.id);
/** latest is each wave's last status on a commit: `context=state description`. */
const latest = async (sha: string) => {
  const last = new Map<string, GiteaStatus>();
  for (const status of await statusesOf(sha)) last.set(status.context, status);
  return [...last.values()].map((status) => `${status.context}=${status.status} ${status.description}`).sort();
};
const promote = () => pushRolloutCommand(redis, keys, 'apps', { verb: 'promote', by: 'rig', at: new Date().toISOString() });

beforeAll(async () => {
  await buildGitea();
  [gitea, planes] = await Promise.all([startGitea(), startControlPlanes(1, 'wave-statuses')]);
  repository = await gitea.createRepository(`apps-${id}`);
  copy = await gitea.workingCopy(repository);
  await copy.write('ns.yaml', stringify({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } }));
  await copy.write('settings.yaml', settings('1'));
  await copy.commitAndPush('first');
  workDir = await mkdtemp(join(tmpdir(), 'tidemark-wave-statuses-'));
  await writeFile(join(workDir, 'token'), gitea.admin.token);
  await writeFile(join(workDir, 'tidemark.yaml'), stringify({
    redis: { url: inject('redisUrl'), prefix },
    cacheDir: join(workDir, 'cache'),
    sources: [{ name: 'apps', url: repository.cloneUrl, ref: { branch: 'main' }, intervalMs: 1_000 }],
    clusters: [
      { name: 'canary', labels: { stage: 'canary' }, kubeconfig: inject('kubeconfigPath') },
      { name: 'prod', labels: { stage: 'prod' }, kubeconfig: planes[0]!.kubeconfigPath },
    ],
    http: { port: 0, host: '127.0.0.1' },
    gitHosts: [{ source: 'apps', provider: 'gitea', apiUrl: gitea.apiUrl, repository: `${repository.owner}/${repository.name}`, token: { file: join(workDir, 'token') }, dashboardUrl: 'https://tidemark.example' }],
    rollouts: [{
      source: 'apps',
      waves: [
        { name: 'canary', clusterSelector: { matchLabels: { stage: 'canary' } }, soakMs: 2_000 },
        { name: 'prod', clusterSelector: { matchLabels: { stage: 'prod' } }, approval: true },
      ],
    }],
  }));
  reconciler = await startReconciler(loadConfig({ TIDEMARK_CONFIG: join(workDir, 'tidemark.yaml') }), createLogger('error'), { rollouts: { tickMs: 200 } });
  redis = new Redis(inject('redisUrl'));
  prod = ClusterConnection.connect({ cluster: 'prod', kubeconfig: planes[0]!.kubeconfig });
}, 900_000);

afterAll(async () => {
  await reconciler?.stop();
  prod?.close();
  redis?.disconnect();
  await kubectl(inject('kubeconfigPath'), ['delete', 'namespace', namespace, '--wait=false']).catch(() => undefined);
  await gitea?.stop();
  await Promise.all((planes ?? []).map((plane) => plane.stop()));
  if (workDir) await rm(workDir, { recursive: true, force: true });
});

describe('commit statuses per wave', () => {
  it('says canary Ready after its soak and prod waiting for approval, then prod Ready once promoted', async () => {
    await expect.poll(async () => (await readRolloutRecord(redis, keys, 'apps'))?.phase, { timeout: 120_000, interval: 500 }).toBe('waiting-approval');
    const sha = (await readRolloutRecord(redis, keys, 'apps'))!.revision;
    await expect.poll(() => latest(sha), { timeout: 30_000, interval: 500 }).toEqual([
      'tidemark/wave/canary=success canary: Ready on 1 cluster',
      "tidemark/wave/prod=pending prod: waiting for an operator's approval",
    ]);
    const history = await statusesOf(sha);
    // On the way: canary applying, then soaking; each status links to the dashboard's rollout page.
    expect(history.filter((status) => status.context === 'tidemark/wave/canary').map((status) => status.description)).toEqual(expect.arrayContaining([
      'canary: applying: 0 of 1 cluster Ready', expect.stringMatching(/^canary: Ready on 1 cluster, waiting for soak until \d\d:\d\d:\d\d UTC$/),
    ]));
    expect(history.every((status) => status.target_url === 'https://tidemark.example/rollouts')).toBe(true);
    expect(await getObject(prod, { apiVersion: 'v1', kind: 'ConfigMap', namespace, name: 'settings' })).toBeUndefined();

    await promote();
    await expect.poll(() => latest(sha), { timeout: 60_000, interval: 500 }).toEqual([
      'tidemark/wave/canary=success canary: Ready on 1 cluster',
      'tidemark/wave/prod=success prod: Ready on 1 cluster',
    ]);
    expect(((await getObject(prod, { apiVersion: 'v1', kind: 'ConfigMap', namespace, name: 'settings' })) as unknown as { data: { version: string } }).data.version).toBe('1');
  });

  it('ends a superseded commit\'s waiting wave as superseded (Gitea: warning), not pending forever', async () => {
    await copy.write('settings.yaml', settings('2'));
    const second = await copy.commitAndPush('settings 2');
    await expect.poll(() => latest(second), { timeout: 60_000, interval: 500 }).toContain("tidemark/wave/prod=pending prod: waiting for an operator's approval");
    await copy.write('settings.yaml', settings('3'));
    const third = await copy.commitAndPush('settings 3');
    await expect.poll(() => latest(second), { timeout: 60_000, interval: 500 }).toEqual([
      'tidemark/wave/canary=success canary: Ready on 1 cluster',
      `tidemark/wave/prod=warning prod: superseded by ${third.slice(0, 7)}`,
    ]);
  });
});
