import { describe, expect, it } from 'vitest';
import type { ObjectStatus } from '@tidemark/contracts';
import type { PollResult } from '@tidemark/git-source';
import { jobsForPoll, jobsForResync, jobsForVanished } from './fan-out';

const revision = 'a'.repeat(40);
const poll = (previousRevision?: string): PollResult => ({
  source: 'repo', revision, ...(previousRevision ? { previousRevision } : {}), moved: true, errors: [], durationMs: 1, fetchedObjects: 3,
  changes: [
    { objectKey: 'core/ConfigMap/a/one', change: 'changed', path: 'one.yaml', blobOid: 'b1' },
    { objectKey: 'core/ConfigMap/a/two', change: 'removed', path: 'two.yaml', blobOid: 'b2' },
  ],
});
const record = (cluster: string, objectKey: string, source = 'repo'): ObjectStatus => ({ cluster, objectKey, source, apiVersion: 'v1', kind: 'ConfigMap', namespace: 'a', name: objectKey.split('/')[3]!, conditions: [], inventory: [], updatedAt: '' });

describe('fan-out', () => {
  it('sends every change to every cluster, removals as git-removed, with ids only', () => {
    const jobs = jobsForPoll(poll('b'.repeat(40)), ['east', 'west']);
    expect(jobs).toEqual([
      { source: 'repo', revision, cluster: 'east', objectKey: 'core/ConfigMap/a/one', reason: 'git-change' },
      { source: 'repo', revision, cluster: 'west', objectKey: 'core/ConfigMap/a/one', reason: 'git-change' },
      { source: 'repo', revision, cluster: 'east', objectKey: 'core/ConfigMap/a/two', reason: 'git-removed' },
      { source: 'repo', revision, cluster: 'west', objectKey: 'core/ConfigMap/a/two', reason: 'git-removed' },
    ]);
  });

  it('prunes what the store knows but a full listing lacks, and only then', () => {
    const known = [record('east', 'core/ConfigMap/a/one'), record('east', 'core/ConfigMap/a/gone'), record('west', 'core/ConfigMap/a/other', 'elsewhere')];
    expect(jobsForVanished(poll(), known)).toEqual([{ source: 'repo', revision, cluster: 'east', objectKey: 'core/ConfigMap/a/gone', reason: 'git-removed' }]);
    expect(jobsForVanished(poll('b'.repeat(40)), known)).toEqual([]);
  });

  it('resyncs every object on every cluster', () => {
    expect(jobsForResync('repo', revision, ['k1', 'k2'], ['east']).map((job) => [job.objectKey, job.reason])).toEqual([['k1', 'resync'], ['k2', 'resync']]);
  });
});
