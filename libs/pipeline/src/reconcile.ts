import { toReconcileFailure } from '@tidemark/cluster';
import { parseObjectKey, type ReconcileJob, type ReconcileOutcome } from '@tidemark/contracts';
import type { PipelineDependencies } from './dependencies';
import type { ReconcileRun } from './run';
import { fetchStage } from './stage-fetch';
import { deletionStage } from './stage-deletion';
import { validateStage } from './stage-validate';
import { featuresStage } from './stage-features';
import { renderStage } from './stage-render';
import { applyStage } from './stage-apply';
import { statusStage } from './stage-status';
import { resultStage } from './stage-result';
import { recordDeletion } from './record-deletion';
import { recordFailure } from './record-failure';
import { observeRun } from './observe-run';
import { withRunLog } from './run-log';

/**
 * reconcile runs the eight stages for one job. It is level-triggered: it compares Git at the
 * job's revision with the cluster and converges, whatever woke it. A failure sets Ready=False
 * with the failing stage's reason and is rethrown as a typed failure for the queue. `signal`
 * aborts when this worker may no longer own the object: the run stops before its next write.
 */
export async function reconcile(job: ReconcileJob, deps: PipelineDependencies, signal?: AbortSignal): Promise<ReconcileOutcome> {
  const run = startRun(job, deps);
  deps = withRunLog(run, deps);
  try {
    await fetchStage(run, deps);
    signal?.throwIfAborted();
    if (run.skipped) return resultStage(run, deps);
    await deletionStage(run, deps);
    if (run.deleted || !run.desired) {
      await recordDeletion(run, deps);
      return resultStage(run, deps);
    }
    signal?.throwIfAborted();
    await validateStage(run);
    await featuresStage(run);
    await renderStage(run);
    signal?.throwIfAborted();
    await applyStage(run, deps);
    await statusStage(run, deps);
    await recordSuccess(run, deps);
    return resultStage(run, deps);
  } catch (error) {
    // This worker no longer owns the object (lease lost, shutdown): write nothing more, hand it back.
    if (signal?.aborted) throw error;
    const failure = toReconcileFailure(error, `${run.stage} ${job.objectKey}`);
    run.failure = failure;
    await recordFailure(run, deps, failure).catch((secondary: unknown) => {
      deps.log?.warn({ objectKey: job.objectKey, cluster: job.cluster, err: String(secondary) }, 'could not record the failure');
    });
    throw failure;
  } finally {
    deps.log?.info({ objectKey: job.objectKey, cluster: job.cluster, revision: job.revision, stage: run.stage, durationMs: Date.now() - run.startedAt.getTime() }, 'reconcile finished');
    observeRun(run, deps, run.failure);
  }
}

function startRun(job: ReconcileJob, deps: PipelineDependencies): ReconcileRun {
  return {
    job,
    ref: parseObjectKey(job.objectKey),
    startedAt: deps.now?.() ?? new Date(),
    stage: 'fetch',
    connection: deps.connectionFor(job.cluster),
    features: [],
    rendered: [],
    changes: [],
    inventory: [],
    pruned: [],
    health: { status: 'Progressing', message: 'Not reconciled yet.' },
    kindStatus: {},
    kindConditions: [],
    warnings: [],
    events: [],
    drift: { healed: [], reported: [] },
    deleted: false,
    skipped: false,
  };
}

async function recordSuccess(run: ReconcileRun, deps: PipelineDependencies): Promise<void> {
  const count = (action: string) => run.changes.filter((entry) => entry.action === action).length;
  await deps.statusStore.appendHistory(run.job.cluster, run.job.objectKey, {
    revision: run.job.revision,
    startedAt: run.startedAt.toISOString(),
    durationMs: Date.now() - run.startedAt.getTime(),
    result: run.health.status === 'Ready' ? 'succeeded' : 'progressing',
    message: run.health.message,
    changes: { created: count('created'), configured: count('configured'), unchanged: count('unchanged'), deleted: run.pruned.length },
  });
}
