// Redis can be lost without losing a prune (issue 40 item 5), black-box: the reconciler as it
// starts from its config file, Git over smart HTTP, a Redis of the test's own (FLUSHALL is real
// and touches no other test). Ten ConfigMaps are applied, the reconciler stopped, Redis wiped,
// objects removed from Git, the reconciler started again: it rebuilds its records from the owner
// labels in the cluster and prunes what Git dropped, through the guards and the mass-prune hold.
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { Redis } from 'ioredis';
import { ClusterConnection, deleteObject, getObject } from '@tidemark/cluster';
import { findCondition, ownerAnnotation, ownerLabel, ownerLabelValue, RecordKeys } from '@tidemark/contracts';
import { PruneHolds, RecordsLost, StatusStore } from '@tidemark/status-store';
import { kubectl, startGitServer, startRedis, type GitServer, type TestRedis, type WorkingCopy } from '@tidemark/testing';
import { loadConfig } from '../../apps/reconciler/src/config';
import { createLogger } from '../../apps/reconciler/src/logger';
import { startReconciler, type RunningReconciler } from '../../apps/reconciler/src/reconciler';

const suffix = randomUUID().slice(0, 6);
const namespace = `lost-${suffix}`;
const prefix = `lost-${suffix}`;
const cluster = 'rig';
const source = `lost-${suffix}`;
const names = Array.from({ length: 10 }, (_, index) => `cm-${index}`);
const key = (name: string) => `core/ConfigMap/${namespace}/${name}`;

let server: TestRedis;
let git: GitServer;
let repo: WorkingCopy;
let workDir: string;
let admin: ClusterConnection;
let redis: Redis;
let store: StatusStore;
let reconciler: RunningReconciler | undefined;

/** privateRedis starts a redis-server of our own, even when REDIS_URL names the shared one: we wipe it. */
async function privateRedis(): Promise<TestRedis> {
  const shared = process.env.REDIS_URL;
  delete process.env.REDIS_URL;
  try {
    return await startRedis();
  } finally {
    if (shared !== undefined) process.env.REDIS_URL = shared;
  }
}

const live = (name: string) => getObject(admin, { apiVersion: 'v1', kind: 'ConfigMap', namespace, name });
/** readiness is the Ready condition as one line, so a failure shows why. */
const readiness = async (name: string) => {
  const ready = findCondition((await store.get(cluster, key(name)))?.conditions, 'Ready');
  return `${ready?.status} ${ready?.reason}: ${ready?.message}`;
};
const uidOf = async (name: string) => (await live(name))?.metadata.uid;
const configMap = (name: string) => stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace }, data: { name } });
const start = async () => {
  reconciler = await startReconciler(loadConfig({ TIDEMARK_CONFIG: join(workDir, 'tidemark.yaml') }), createLogger(process.env.TIDEMARK_TEST_LOG ?? 'error'));
};
const stop = async () => {
  await reconciler?.stop();
  reconciler = undefined;
};

beforeAll(async () => {
  server = await privateRedis();
  redis = new Redis(server.url);
  store = new StatusStore({ redis, prefix });
  admin = ClusterConnection.connect({ cluster, kubeconfig: inject('kubeconfig') });
  await kubectl(inject('kubeconfigPath'), ['create', 'namespace', namespace]);
  git = await startGitServer();
  const url = await git.createRepository(source);
  repo = await git.workingCopy(source);
  for (const name of names) await repo.write(`${name}.yaml`, configMap(name));
  await repo.commitAndPush('ten ConfigMaps');
  workDir = await mkdtemp(join(tmpdir(), 'tidemark-lost-'));
  await writeFile(join(workDir, 'tidemark.yaml'), stringify({
    redis: { url: server.url, prefix },
    cacheDir: join(workDir, 'cache'),
    clusters: [{ name: cluster, kubeconfig: inject('kubeconfigPath') }],
    http: { port: 0, host: '127.0.0.1' },
    sources: [{ name: source, url, ref: { branch: 'main' }, intervalMs: 1_000 }],
  }));
}, 300_000);

afterAll(async () => {
  await stop();
  if (admin) await deleteObject(admin, { group: '', kind: 'Namespace', namespace: '', name: namespace }).catch(() => undefined);
  admin?.close();
  redis?.disconnect();
  await git?.stop();
  await server?.stop();
  if (workDir) await rm(workDir, { recursive: true, force: true });
});

describe('after Redis lost its records', () => {
  it('prunes what Git dropped meanwhile, keeps the rest with their uids, says so in the history, and never deletes a forged label', async () => {
    await start();
    await expect.poll(async () => (await Promise.all(names.map(live))).every(Boolean), { timeout: 60_000 }).toBe(true);
    const labelled = await live('cm-0');
    expect(labelled?.metadata.labels?.[ownerLabel]).toBe(ownerLabelValue(`${source}:${key('cm-0')}`));
    for (const name of names) await expect.poll(() => readiness(name), { timeout: 60_000 }).toMatch(/^True /);
    const uids = new Map(await Promise.all(names.map(async (name) => [name, await uidOf(name)] as const)));

    // Hostile: Tidemark's owner label for a Git object this source never declared, without the annotation;
    // and one with a matching annotation that Tidemark's field manager did not apply.
    const forgedOwner = `${source}:${key('intruder')}`;
    await kubectl(inject('kubeconfigPath'), ['create', 'configmap', 'intruder', '-n', namespace]);
    await kubectl(inject('kubeconfigPath'), ['label', 'configmap', 'intruder', '-n', namespace, `${ownerLabel}=${ownerLabelValue(forgedOwner)}`]);
    const annotatedOwner = `${source}:${key('annotated')}`;
    await kubectl(inject('kubeconfigPath'), ['create', 'configmap', 'annotated', '-n', namespace]);
    await kubectl(inject('kubeconfigPath'), ['label', 'configmap', 'annotated', '-n', namespace, `${ownerLabel}=${ownerLabelValue(annotatedOwner)}`]);
    await kubectl(inject('kubeconfigPath'), ['annotate', 'configmap', 'annotated', '-n', namespace, `${ownerAnnotation}=${annotatedOwner}`]);

    await stop();
    await redis.flushall();
    for (const name of ['cm-0', 'cm-1', 'cm-2']) await repo.delete(`${name}.yaml`);
    await repo.commitAndPush('remove three while Redis is empty and the reconciler down');
    await start();

    await expect.poll(async () => (await Promise.all(['cm-0', 'cm-1', 'cm-2'].map(live))).some(Boolean), { timeout: 60_000 }).toBe(false);
    for (const name of names.slice(3)) expect(await uidOf(name), name).toBe(uids.get(name));
    expect(await live('intruder')).toBeDefined();
    expect(await live('annotated')).toBeDefined();

    const summary = await new RecordsLost(redis, new RecordKeys(prefix)).summary(source, cluster);
    expect(summary).toMatchObject({ rebuilt: 10, truncated: false });
    expect(summary?.refused).toBeGreaterThanOrEqual(2);
    // What the dashboard shows as the object's history: the rebuild, then the run that followed it.
    await expect.poll(() => readiness('cm-5'), { timeout: 30_000 }).toMatch(/^True /);
    const history = await store.history(cluster, key('cm-5'));
    const rebuilt = history.find((entry) => entry.stage === 'rebuild');
    expect(rebuilt?.message).toMatch(/Rebuilt from cluster rig after Redis lost Tidemark's records: 1 live object carrying the tidemark\.dev\/owner-hash label/);
  });

  it('holds for confirmation when the share Git dropped is over the mass-prune threshold', async () => {
    const kept = names.slice(3);
    const uids = new Map(await Promise.all(kept.map(async (name) => [name, await uidOf(name)] as const)));
    await stop();
    await redis.flushall();
    const dropped = kept.slice(0, 5);
    for (const name of dropped) await repo.delete(`${name}.yaml`);
    await repo.commitAndPush('remove five of seven while Redis is empty');
    await start();

    await expect.poll(async () => (await store.get(cluster, key(dropped[0]!)))?.failure?.code, { timeout: 60_000 }).toBe('PruneAwaitingConfirmation');
    const hold = await new PruneHolds(redis, prefix).get(source, cluster);
    expect(hold).toMatchObject({ state: 'waiting', total: 7 });
    expect([...(hold?.removed ?? [])].sort()).toEqual(dropped.map(key).sort());
    for (const name of kept) expect(await uidOf(name), name).toBe(uids.get(name));
    expect(await live('intruder')).toBeDefined();
  });
});
