import { describe, expect, it } from 'vitest';
import { NotReadyError, parseObjectKey, type ObjectStatus, type ReconcileJob } from '@tidemark/contracts';
import { preDeleteRun, type OrderingNode, type RevisionOrdering } from '@tidemark/ordering';
import type { PipelineDependencies } from '../dependencies';
import type { ReconcileRun } from '../run';
import { preDeleteRunOf, preDeleteStage } from './stage-pre-delete';

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

/**
 * depsWith: the source is (still) retiring or not, and these objects of it hold a record on the
 * cluster (`records`: what the store answers for them; by default a record of no run). `woken` lists
 * the declarations the run asked to be reconciled again.
 */
function depsWith(retiring: boolean, held: string[], records: Record<string, ObjectStatus | undefined> = {}): { deps: PipelineDependencies; reads: string[]; woken: string[] } {
  const reads: string[] = [];
  const woken: string[] = [];
  const statusStore = {
    holders: async () => { reads.push('holders'); return new Map(held.map((key) => [key, [job.cluster]])); },
    get: async (_cluster: string, objectKey: string) => {
      reads.push(objectKey);
      if (objectKey in records) return records[objectKey];
      return held.includes(objectKey) ? { objectKey, conditions: [] } as unknown as ObjectStatus : undefined;
    },
  };
  const desired = { readObject: async () => undefined, retiring: () => retiring, orderingAt: async () => ordering };
  const declarations = {
    named: async () => [],
    wake: async (cluster: string, declaration: { source: string; revision: string; objectKey: string }) => { woken.push(`${cluster} ${declaration.source}@${declaration.revision} ${declaration.objectKey}`); },
  };
  return { deps: { desired, statusStore, declarations } as unknown as PipelineDependencies, reads, woken };
}

/** runningRecord is the hook's record while its pre-delete run is under way (the Job applied, not complete). */
function runningRecord(): ObjectStatus {
  const { specHash } = preDeleteRun(hookNode.hook!);
  return { objectKey: hookKey, source: job.source, specHash, conditions: [{ type: 'Ready', status: 'Unknown', reason: 'Progressing', message: 'Job shop/backup is running.' }] } as unknown as ObjectStatus;
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

  it('queues a hook that has no record (its Source went before the hook first ran), so the object it holds does not wait for ever', async () => {
    // The retire step queues only objects that hold a record: nothing else would ever run this hook.
    const { deps, woken } = depsWith(true, [configMapKey]);
    const waiting = preDeleteStage(removedRun(true), deps);
    await expect(waiting).rejects.toMatchObject({ code: 'DependencyNotReady', message: expect.stringContaining('waiting for pre-delete hook Job shop/backup') });
    expect(woken).toEqual([`prod shop@${job.revision} ${hookKey}`]);
  });

  it('queues a hook whose record is of its listing while the Source lived, not of its pre-delete run', async () => {
    const { deps, woken } = depsWith(true, [hookKey, configMapKey]);
    await expect(preDeleteStage(removedRun(true), deps)).rejects.toBeInstanceOf(NotReadyError);
    expect(woken).toEqual([`prod shop@${job.revision} ${hookKey}`]);
  });

  it('does not queue a hook again once its pre-delete run has a record', async () => {
    const { deps, woken } = depsWith(true, [hookKey, configMapKey], { [hookKey]: runningRecord() });
    await expect(preDeleteStage(removedRun(true), deps)).rejects.toMatchObject({ code: 'DependencyNotReady' });
    expect(woken).toEqual([]);
  });

  it('queues a lower-weight hook that has no record, which a hook of a higher weight waits for', async () => {
    const notifyKey = 'batch/Job/shop/notify';
    const notify: OrderingNode = { ...hookNode, objectKey: notifyKey, path: 'notify.yaml', hook: { ...hookNode.hook!, hook: { ...hookNode.hook!.hook, weight: 0 } } };
    const { deps, woken } = depsWith(true, [notifyKey, configMapKey]);
    deps.desired.orderingAt = async () => ({ nodes: new Map([[hookKey, hookNode], [notifyKey, notify]]), cycles: [] });
    const run = { ...retiringHookRun(), job: { ...job, objectKey: notifyKey }, ref: parseObjectKey(notifyKey) };
    await expect(preDeleteRunOf(run, deps, notify.hook!)).rejects.toMatchObject({ code: 'DependencyNotReady', message: expect.stringContaining('Job shop/notify runs only after') });
    expect(woken).toEqual([`prod shop@${job.revision} ${hookKey}`]);
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
