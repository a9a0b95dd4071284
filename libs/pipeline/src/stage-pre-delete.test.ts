import { describe, expect, it } from 'vitest';
import { NotReadyError, parseObjectKey, type ObjectStatus, type ReconcileJob } from '@tidemark/contracts';
import type { OrderingNode, RevisionOrdering } from '@tidemark/ordering';
import type { PipelineDependencies } from './dependencies';
import type { ReconcileRun } from './run';
import { preDeleteStage } from './stage-pre-delete';

// The status store and the desired state are stand-ins (in-memory readers): what is decided here
// is which reading of "retiring" the stage goes by, not how Redis or Git answer.
const hookKey = 'batch/Job/shop/backup';
const configMapKey = 'core/ConfigMap/shop/settings';
const job: ReconcileJob = { source: 'shop', revision: 'a'.repeat(40), cluster: 'prod', objectKey: hookKey, reason: 'git-removed' };
const hookNode: OrderingNode = {
  objectKey: hookKey, path: 'backup.yaml', wave: 0, dependencies: [], problems: [],
  hook: { hook: { phase: 'pre-delete', weight: -1, deletePolicies: [], declaredBy: 'tidemark' }, runId: '0123456789', specHash: 'spec' },
};
const ordering: RevisionOrdering = { nodes: new Map([[hookKey, hookNode]]), cycles: [] };

/** retiringHookRun is a run of the hook whose fetch read it as a retiring source's pre-delete hook. */
function retiringHookRun(): ReconcileRun {
  const object = { apiVersion: 'batch/v1', kind: 'Job', metadata: { name: 'backup', namespace: 'shop' } };
  return { job, ref: parseObjectKey(hookKey), stage: 'fetch', desired: { object, path: 'backup.yaml', retiring: true } } as unknown as ReconcileRun;
}

/** removedRun is a run of the source's ConfigMap, which a retiring source no longer declares; `recorded`: it has a record of its own. */
function removedRun(recorded: boolean): ReconcileRun {
  const previous = { cluster: job.cluster, objectKey: configMapKey, source: job.source, inventory: [], conditions: [] };
  return { job: { ...job, objectKey: configMapKey }, ref: parseObjectKey(configMapKey), stage: 'fetch', ...(recorded ? { previous } : {}) } as unknown as ReconcileRun;
}

/** depsWith: the source is (still) retiring or not, and these objects of it hold a record on the cluster. */
function depsWith(retiring: boolean, held: string[]): { deps: PipelineDependencies; reads: string[] } {
  const reads: string[] = [];
  const statusStore = {
    holders: async () => { reads.push('holders'); return new Map(held.map((key) => [key, [job.cluster]])); },
    get: async (_cluster: string, objectKey: string) => { reads.push(objectKey); return { objectKey, conditions: [] } as unknown as ObjectStatus; },
  };
  const desired = { readObject: async () => undefined, retiring: () => retiring, orderingAt: async () => ordering };
  return { deps: { desired, statusStore } as unknown as PipelineDependencies, reads };
}

describe('preDeleteStage', () => {
  it('prunes a retiring hook run whose Source went while it ran, instead of running the hook again', async () => {
    // The Source's finalizer goes only once nothing of it is left; a run fetched before that must not apply a new hook run.
    const run = retiringHookRun();
    const { deps, reads } = depsWith(false, []);
    await preDeleteStage(run, deps);
    expect(run.desired).toBeUndefined();
    expect(run.stage).toBe('deletion');
    expect(reads).toEqual([]);
  });

  it('prunes a retiring hook once only hooks of its source are left', async () => {
    const run = retiringHookRun();
    await preDeleteStage(run, depsWith(true, [hookKey]).deps);
    expect(run.desired).toBeUndefined();
  });

  it('keeps a retiring hook to run while another object of its source is left', async () => {
    const run = retiringHookRun();
    await preDeleteStage(run, depsWith(true, [hookKey, configMapKey]).deps);
    expect(run.desired?.retiring).toBe(true);
  });

  it('leaves a hook of a living source alone', async () => {
    const run = retiringHookRun();
    run.desired = { ...run.desired!, retiring: false };
    const { deps, reads } = depsWith(false, [hookKey]);
    await preDeleteStage(run, deps);
    expect(run.desired?.object.metadata.name).toBe('backup');
    expect(run.stage).toBe('fetch');
    expect(reads).toEqual([]);
  });

  it('holds the prune of an object with a record of its own until the hooks have run', async () => {
    const waiting = preDeleteStage(removedRun(true), depsWith(true, [hookKey, configMapKey]).deps);
    await expect(waiting).rejects.toBeInstanceOf(NotReadyError);
    await expect(waiting).rejects.toMatchObject({ code: 'DependencyNotReady', message: expect.stringContaining('waiting for pre-delete hook Job shop/backup') });
  });

  it('never holds an object whose record is gone (pruned already): the hooks whose runs were pruned will not run again', async () => {
    // A late run (a watch event of the object being deleted) would otherwise write a record that waits for ever.
    const { deps, reads } = depsWith(true, [configMapKey]);
    const run = removedRun(false);
    await preDeleteStage(run, deps);
    expect(run.desired).toBeUndefined();
    expect(reads).toEqual([]);
  });
});
