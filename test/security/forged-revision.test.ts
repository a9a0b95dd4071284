// Hole 4: Redis write access must not choose what gets applied. A job (or a "latest" slot) only
// proposes a revision; the worker applies the head of the source's configured ref, never another
// branch's commit or an older one, and it fetches nothing because a job asked.
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { getObject } from '@tidemark/cluster';
import { findCondition, TerminalError } from '@tidemark/contracts';
import { PlacementCache } from '@tidemark/placement';
import { reconcile, type PipelineDependencies } from '@tidemark/pipeline';
import { run } from '@tidemark/testing';
import { gitDesiredState } from '@tidemark/fanout';
import { startPipelineHarness, type PipelineHarness } from '../support/pipeline-harness';

const namespace = `forged-${randomUUID().slice(0, 8)}`;
let harness: PipelineHarness;
let deps: PipelineDependencies;
let cacheDir: string;
const settingsKey = `core/ConfigMap/${namespace}/settings`;
const evilKey = `core/ConfigMap/${namespace}/planted`;

const configMap = (name: string, value: string) => `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\n  namespace: ${namespace}\ndata:\n  v: "${value}"\n`;
const live = (name: string) => getObject(harness.connection, { apiVersion: 'v1', kind: 'ConfigMap', namespace, name });
const job = (revision: string, objectKey: string) => ({ source: 'test', revision, cluster: harness.cluster, objectKey, reason: 'git-change' as const });

/** cached tells whether the worker's object cache holds a commit: what a job made it fetch. */
async function cached(commit: string): Promise<boolean> {
  return run('git', ['--git-dir', cacheDir, 'cat-file', '-e', `${commit}^{commit}`]).then(() => true, () => false);
}

async function attempt(revision: string, objectKey: string): Promise<unknown> {
  return reconcile(job(revision, objectKey), deps).catch((error: unknown) => error);
}

let oldCommit: string;
let headCommit: string;
let otherBranchCommit: string;

beforeAll(async () => {
  harness = await startPipelineHarness(inject('kubeconfig'), inject('redisUrl'));
  cacheDir = (harness.source as unknown as { options: { cacheDir: string } }).options.cacheDir;
  deps = { ...harness.deps, desired: gitDesiredState(new Map([['test', harness.source]]), new PlacementCache(), [{ name: harness.cluster, labels: {} }]) };
  await harness.repo.write('ns.yaml', `apiVersion: v1\nkind: Namespace\nmetadata:\n  name: ${namespace}\n`);
  await harness.repo.write('settings.yaml', configMap('settings', 'old'));
  oldCommit = (await harness.pushAndReconcile('old settings')).poll.revision;
  // Another branch, never followed by the source, plants an object.
  await harness.repo.git('checkout', '--quiet', '-b', 'evil');
  await harness.repo.write('planted.yaml', configMap('planted', 'evil'));
  await harness.repo.commit('plant');
  await harness.repo.push({ branch: 'evil' });
  otherBranchCommit = await harness.repo.git('rev-parse', 'HEAD');
  await harness.repo.git('checkout', '--quiet', 'main');
  await harness.repo.delete('planted.yaml');
  await harness.repo.write('settings.yaml', configMap('settings', 'new'));
  await harness.repo.commitAndPush('new settings');
  headCommit = (await harness.source.poll()).revision;
  await reconcile(job(headCommit, settingsKey), deps);
});
afterAll(async () => harness?.stop());

describe('forged revisions', () => {
  it('refuses another branch\'s commit, applies nothing from it, and fetches nothing for it', async () => {
    const outcome = await attempt(otherBranchCommit, evilKey);
    expect(outcome).toBeInstanceOf(TerminalError);
    expect((outcome as TerminalError).code).toBe('RevisionNotAdmitted');
    expect((outcome as Error).message).toMatch(new RegExp(`revision ${otherBranchCommit.slice(0, 12)}, which is not on source test \\(branch main\\)`));
    expect(await live('planted')).toBeUndefined();
    expect(await cached(otherBranchCommit)).toBe(false);
    const status = await harness.statusStore.get(harness.cluster, evilKey);
    expect(findCondition(status?.conditions, 'Ready')?.reason).toBe('RevisionNotAdmitted');
  });

  it('never rolls back: a job naming an older commit of the branch applies the head', async () => {
    expect(await cached(oldCommit)).toBe(true);
    await attempt(oldCommit, settingsKey);
    expect(((await live('settings')) as { data?: Record<string, string> }).data?.v).toBe('new');
    expect((await harness.statusStore.get(harness.cluster, settingsKey))?.lastAppliedRevision).toBe(headCommit);
  });

  it('refuses a revision no ref holds, and fetches nothing for it', async () => {
    const made = 'f'.repeat(40);
    const outcome = await attempt(made, settingsKey);
    expect((outcome as TerminalError).code).toBe('RevisionNotAdmitted');
    expect(await cached(made)).toBe(false);
    expect(((await live('settings')) as { data?: Record<string, string> }).data?.v).toBe('new');
  });

  it('still applies the head the poller found', async () => {
    await harness.repo.write('settings.yaml', configMap('settings', 'newer'));
    await harness.repo.commitAndPush('newer settings');
    const { revision } = await harness.source.poll();
    expect(await reconcile(job(revision, settingsKey), deps)).toMatchObject({ kind: 'requeue' });
    expect(((await live('settings')) as { data?: Record<string, string> }).data?.v).toBe('newer');
  });
});
