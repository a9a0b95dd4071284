// Rollouts in waves meet sync windows and freezes (issue 39): a deny window or a freeze that holds a
// gated cluster stops the gate's clock, so the rollout waits ("waiting: deny window … until …")
// instead of timing out and halting as if the commit were bad. The clock is injected (never slept
// to a time of day): the window's verdict and the rollout driver read the same moved time. The rig's
// shared control plane is the canary wave; every check of what it has reads the live object.
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { Redis } from 'ioredis';
import { ClusterConnection, deleteObject, getObject } from '@tidemark/cluster';
import { RecordKeys, readRolloutRecord, type RolloutRecord } from '@tidemark/contracts';
import { sendGithubPush, startGitServer, type GitServer, type WorkingCopy } from '@tidemark/testing';
import { describeRollout } from '../../apps/cli/src/commands/rollout';
import { loadConfig } from '../../apps/reconciler/src/config';
import { createLogger } from '../../apps/reconciler/src/logger';
import { startReconciler, type RunningReconciler } from '../../apps/reconciler/src/reconciler';

const id = randomUUID().slice(0, 8);
const namespace = 'default';
const settingsName = `held-${id}`;
const prefix = `held-${id}`;
const secret = `hook-${randomUUID()}`;
const keys = new RecordKeys(prefix);
// 2026-03-31 is a Tuesday; Berlin is UTC+2 then. The deny window is 09:00–16:00 Berlin; 10:00 Berlin now.
let now = new Date('2026-03-31T08:00:00Z');
// How many times the rollout driver read the clock: each step reads it, so steps are counted, not slept.
let driverSteps = 0;
const notices: string[] = [];
let git: GitServer;
let repo: WorkingCopy;
let workDir: string;
let reconciler: RunningReconciler;
let connection: ClusterConnection;
let redis: Redis;

const settings = (version: string) => stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: settingsName, namespace }, data: { version } });
const liveVersion = async () => ((await getObject(connection, { apiVersion: 'v1', kind: 'ConfigMap', namespace, name: settingsName }).catch(() => undefined)) as { data?: { version?: string } } | undefined)?.data?.version;
const record = async (): Promise<RolloutRecord | undefined> => readRolloutRecord(redis, keys, 'apps');
/** moveClock sets the injected time and waits until the driver stepped a few times at it. */
async function moveClock(to: Date): Promise<void> {
  now = to;
  const from = driverSteps;
  await expect.poll(() => driverSteps - from, { timeout: 30_000, interval: 100 }).toBeGreaterThanOrEqual(10);
}

beforeAll(async () => {
  connection = ClusterConnection.connect({ cluster: 'mgmt', kubeconfig: inject('kubeconfig') });
  redis = new Redis(inject('redisUrl'));
  git = await startGitServer();
  const url = await git.createRepository('apps');
  repo = await git.workingCopy('apps');
  await repo.write('apps/settings.yaml', settings('1'));
  await repo.commitAndPush('settings 1');
  workDir = await mkdtemp(join(tmpdir(), 'tidemark-rollout-window-'));
  await writeFile(join(workDir, 'tidemark.yaml'), stringify({
    redis: { url: inject('redisUrl'), prefix },
    cacheDir: join(workDir, 'cache'),
    sources: [{ name: 'apps', url, ref: { branch: 'main' }, intervalMs: 600_000 }],
    clusters: [{ name: 'mgmt', labels: { stage: 'canary' }, kubeconfig: inject('kubeconfigPath') }],
    http: { port: 0, host: '127.0.0.1' },
    webhooks: [{ source: 'apps', provider: 'github', secret: { env: 'APPS_SECRET' } }],
    syncWindows: [{ name: 'office', kind: 'deny', schedule: '0 9 * * *', duration: '7h', timeZone: 'Europe/Berlin', clusterSelector: { matchLabels: { stage: 'canary' } } }],
    syncWindowRecheckMs: 1_000,
    rollouts: [{
      source: 'apps',
      waves: [
        // Five seconds of the injected clock: an hour held in the window is far past it.
        { name: 'canary', clusterSelector: { matchLabels: { stage: 'canary' } }, gateTimeoutMs: 5_000 },
        { name: 'prod', clusterSelector: { matchLabels: { stage: 'prod' } } },
      ],
    }],
  }));
  reconciler = await startReconciler(loadConfig({ TIDEMARK_CONFIG: join(workDir, 'tidemark.yaml'), APPS_SECRET: secret }), createLogger('error'), {
    clock: () => now,
    rollouts: { tickMs: 100, now: () => { driverSteps += 1; return now; }, onNotice: (_source, notice) => notices.push(notice.kind) },
  });
});

afterAll(async () => {
  await reconciler?.stop();
  if (redis) await redis.del(keys.clusterFreeze('mgmt'));
  if (connection) await deleteObject(connection, { group: '', kind: 'ConfigMap', namespace, name: settingsName }).catch(() => undefined);
  connection?.close();
  redis?.disconnect();
  await git?.stop();
  await rm(workDir, { recursive: true, force: true });
});

describe('a rollout whose gated cluster a deny window or a freeze holds', { timeout: 240_000 }, () => {
  it('waits in the window past its gate timeout, saying why, and writes nothing', async () => {
    await expect.poll(async () => (await record())?.held?.reason, { timeout: 100_000, interval: 300 }).toBe('deny window "office" until 16:00 Europe/Berlin');
    // An hour of the injected clock inside the window: far past the 5 s gate timeout.
    await moveClock(new Date('2026-03-31T09:00:00Z'));
    const held = (await record())!;
    expect(held).toMatchObject({ phase: 'progressing', wave: 0, batch: ['mgmt'], held: { cluster: 'mgmt' } });
    expect(held.halt).toBeUndefined();
    expect(await liveVersion()).toBeUndefined();
    // What `tidemark rollout status apps` prints from the record.
    expect(describeRollout({ colour: false }, held)).toContain('waiting: mgmt: deny window "office" until 16:00 Europe/Berlin');
    expect(notices).toContain('held');
    expect(notices).not.toContain('halted');
  });

  it('goes on when the window opens: the canary gate passes and the rollout completes', async () => {
    now = new Date('2026-03-31T14:30:00Z');
    await expect.poll(() => liveVersion(), { timeout: 60_000, interval: 300 }).toBe('1');
    await expect.poll(async () => (await record())?.phase, { timeout: 60_000, interval: 300 }).toBe('complete');
    expect((await record())!.held).toBeUndefined();
    expect(notices).not.toContain('halted');
  });

  it('waits while an operator froze the cluster, past the gate timeout, and keeps the last good revision', async () => {
    // The record the dashboard's freeze writes (POST /api/clusters/mgmt/freeze), written here directly.
    await redis.set(keys.clusterFreeze('mgmt'), JSON.stringify({ by: 'rig', reason: 'incident 42', since: now.toISOString() }));
    await repo.write('apps/settings.yaml', settings('2'));
    const second = await repo.commitAndPush('settings 2');
    expect(await sendGithubPush(`http://${reconciler.http.address}/hooks/apps`, secret)).toBe(202);
    await expect.poll(async () => { const now = await record(); return now?.revision === second ? now.held?.reason : undefined; }, { timeout: 60_000, interval: 300 }).toBe(`frozen by rig since ${now.toISOString()}: incident 42`);
    await moveClock(new Date('2026-03-31T15:30:00Z'));
    expect((await record())!).toMatchObject({ revision: second, phase: 'progressing', held: { cluster: 'mgmt' } });
    expect(await liveVersion()).toBe('1');
    expect(notices).not.toContain('halted');
  });
});
