// A source that rolls out in waves applies each cluster's target from its rollout record, not the head:
// an older commit of the branch when the record says so (a cluster not reached yet, an abort), and
// never another branch's commit, whoever wrote the record. A record that does not read, or one with no
// target for the cluster yet, makes the job wait rather than guess.
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { getObject } from '@tidemark/cluster';
import { findCondition, type RolloutRecord } from '@tidemark/contracts';
import { writeRolloutRecord } from '@tidemark/fanout';
import { parseRolloutPolicy } from '@tidemark/fanout';
import { PlacementCache } from '@tidemark/placement';
import { reconcile, type PipelineDependencies } from '@tidemark/pipeline';
import { gitDesiredState } from '@tidemark/fanout';
import { rolloutTargets } from '@tidemark/fanout';
import { startPipelineHarness, type PipelineHarness } from '../support/pipeline-harness';

const namespace = `target-${randomUUID().slice(0, 8)}`;
let harness: PipelineHarness;
let deps: PipelineDependencies;
let redis: Redis;
const settingsKey = `core/ConfigMap/${namespace}/settings`;
let oldCommit: string;
let headCommit: string;
let otherBranchCommit: string;

const configMap = (value: string) => `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\n  namespace: ${namespace}\ndata:\n  v: "${value}"\n`;
const liveValue = async () => ((await getObject(harness.connection, { apiVersion: 'v1', kind: 'ConfigMap', namespace, name: 'settings' })) as { data?: { v?: string } } | undefined)?.data?.v;
const job = (revision: string) => ({ source: 'test', revision, cluster: harness.cluster, objectKey: settingsKey, reason: 'drift' as const });
const record = (targets: Record<string, string>, overrides: Partial<RolloutRecord> = {}): RolloutRecord => ({
  source: 'test', revision: headCommit, previous: oldCommit, phase: 'halted', paused: false, wave: 0, waves: [{ name: 'all', clusters: [harness.cluster] }],
  batch: [], targets, cells: {}, phaseSince: new Date().toISOString(), startedAt: new Date().toISOString(), updatedAt: new Date().toISOString(), ...overrides,
});

beforeAll(async () => {
  harness = await startPipelineHarness(inject('kubeconfig'), inject('redisUrl'));
  redis = new Redis(inject('redisUrl'));
  const targets = rolloutTargets(redis, harness.statusStore.keys, [parseRolloutPolicy({ source: 'test', manualSync: true }, 'rollouts[0]')]);
  deps = { ...harness.deps, desired: gitDesiredState(new Map([['test', harness.source]]), new PlacementCache(), [{ name: harness.cluster, labels: {} }], new Set(), targets) };
  await harness.repo.write('ns.yaml', `apiVersion: v1\nkind: Namespace\nmetadata:\n  name: ${namespace}\n`);
  await harness.repo.write('settings.yaml', configMap('old'));
  oldCommit = (await harness.pushAndReconcile('old settings')).poll.revision;
  await harness.repo.git('checkout', '--quiet', '-b', 'evil');
  await harness.repo.write('settings.yaml', configMap('evil'));
  await harness.repo.commit('evil settings');
  await harness.repo.push({ branch: 'evil' });
  otherBranchCommit = await harness.repo.git('rev-parse', 'HEAD');
  await harness.repo.git('checkout', '--quiet', 'main');
  await harness.repo.write('settings.yaml', configMap('new'));
  await harness.repo.commitAndPush('new settings');
  headCommit = (await harness.source.poll()).revision;
});
afterAll(async () => {
  redis?.disconnect();
  await harness?.stop();
});

describe('a cluster\'s rollout target', () => {
  it('applies the head once the rollout reached the cluster, and the older commit when its target is that', async () => {
    await writeRolloutRecord(redis, harness.statusStore.keys, record({ [harness.cluster]: headCommit }));
    await reconcile(job(headCommit), deps);
    expect(await liveValue()).toBe('new');
    // Aborted, or not reached: a job naming the head (a drift heal, a resync) applies the target.
    await writeRolloutRecord(redis, harness.statusStore.keys, record({ [harness.cluster]: oldCommit }, { phase: 'aborted' }));
    await reconcile(job(headCommit), deps);
    expect(await liveValue()).toBe('old');
    expect((await harness.statusStore.get(harness.cluster, settingsKey))?.lastAppliedRevision).toBe(oldCommit);
  });

  it('refuses a target that is another branch\'s commit, and applies nothing from it', async () => {
    await writeRolloutRecord(redis, harness.statusStore.keys, record({ [harness.cluster]: otherBranchCommit }));
    const outcome = await reconcile(job(headCommit), deps).catch((error: unknown) => error);
    expect(await liveValue()).toBe('old');
    const ready = findCondition((await harness.statusStore.get(harness.cluster, settingsKey))?.conditions, 'Ready');
    expect(ready?.reason ?? (outcome as { code?: string }).code).toBe('RevisionNotAdmitted');
  });

  it('waits when the record does not read, or has no revision for the cluster yet', async () => {
    await redis.set(harness.statusStore.keys.rollout('test'), '{"revision":"main"}');
    await reconcile(job(headCommit), deps).catch(() => undefined);
    expect((await harness.statusStore.get(harness.cluster, settingsKey))?.failure).toMatchObject({ category: 'waiting', code: 'RolloutRecordUnreadable' });
    await writeRolloutRecord(redis, harness.statusStore.keys, record({}, { previous: undefined, phase: 'waiting-approval' }));
    await reconcile(job(headCommit), deps).catch(() => undefined);
    expect((await harness.statusStore.get(harness.cluster, settingsKey))?.failure).toMatchObject({ category: 'waiting', code: 'RolloutWaiting' });
    expect(await liveValue()).toBe('old');
  });
});
