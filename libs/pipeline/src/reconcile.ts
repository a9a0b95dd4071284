import { toReconcileFailure } from '@tidemark/cluster';
import { parseObjectKey, type ReconcileJob, type ReconcileOutcome } from '@tidemark/contracts';
import type { PipelineDependencies } from './dependencies';
import { isDeleted, type FetchResult, type ReconcileRun } from './run';
import { fetchStage, isStaleCacheSymptom } from './fetch/stage-fetch';
import { deletionStage } from './deletion/stage-deletion';
import { preDeleteStage } from './deletion/stage-pre-delete';
import { orderStage, readOrdering } from './ordering/stage-order';
import { featuresStage, renderStage } from './render/stage-render';
import { validateStage } from './render/stage-validate';
import { applyStage } from './apply/stage-apply';
import { pruneStage, previousInventory } from './prune/stage-prune';
import { actStage } from './apply/stage-act';
import { healthStage, readHealthRules } from './health/stage-health';
import { hookVerdictStage, readHookRun } from './ordering/stage-hooks';
import { statusStage, resultStage, type StatusResult } from './status/stage-status';
import { finalize } from './status/finalize';
import { declarationsToWake } from './fetch/duplicate-check';
import { observeRun, withRunLog, startRunSpan, traceHealthWait, traced, tracedSync } from './observe/observe-run';
import { subjectOf } from './observe/subject';
import { runConnections, identityFailure } from './fetch/tenancy';
import { resyncUnchanged } from './fetch/unchanged-resync';
import { freezeCheck, windowCheck, preventionCheck } from './gates/stage-gates';

/**
 * reconcile runs the stages for one job (a sync hook's run has its own two: readHookRun, hookVerdictStage),
 * then finalize makes every write the run has (the CR's /status, Events, the status record, wake-ups);
 * the stages only say what to write. A look-again at an object nothing changed since its last full run is answered from the
 * record and the watch cache alone (resyncUnchanged). It is level-triggered: it compares Git at the job's revision with the cluster and
 * converges, whatever woke it. A failure sets Ready=False with the failing stage's reason; the
 * result stage turns it into the run's one answer to the queue (requeue after, or a throw). `signal` aborts when this worker may no longer own
 * the object: the run stops before its next write, and writes no status.
 */
export async function reconcile(job: ReconcileJob, deps: PipelineDependencies, signal?: AbortSignal): Promise<ReconcileOutcome> {
  const run = startRun(job, deps);
  try {
    return await reconcileRun(run, deps, signal);
  } catch (error) {
    run.span.fail(error);
    throw error;
  } finally {
    run.span.set({ 'tidemark.stage': run.stage, ...(run.failure ? { 'tidemark.failure': run.failure.code } : {}) });
    run.span.end();
  }
}

async function reconcileRun(run: ReconcileRun, deps: PipelineDependencies, signal?: AbortSignal): Promise<ReconcileOutcome> {
  const { job } = run;
  const unchanged = await resyncUnchanged(run, deps);
  if (unchanged) {
    run.span.set({ 'tidemark.result': 'unchanged' });
    return unchanged;
  }
  deps = withRunLog(run, deps);
  try {
    const status = await runStagesOrLive(run, deps, signal).catch(async (error: unknown) => {
      // This worker no longer owns the object (lease lost, shutdown): write nothing more, hand it back.
      if (signal?.aborted) throw error;
      run.failure = identityFailure(run, toReconcileFailure(error, `${run.stage} ${subjectOf(run)}`));
      return undefined;
    });
    // Past here the run writes: the CR's /status, Events, the record, the wake-ups (finalize).
    signal?.throwIfAborted();
    await traced(run, 'finalize', () => finalize(run, deps, status));
    return resultStage(run, deps);
  } finally {
    deps.log?.info({ objectKey: job.objectKey, cluster: job.cluster, revision: job.revision, stage: run.stage, durationMs: Date.now() - run.startedAt.getTime() }, 'reconcile finished');
    observeRun(run, deps, run.failure);
  }
}

/**
 * runStagesOrLive runs the stages; when a run that read from the watch cache meets a 404 or a
 * conflict, the cache may have been behind, so the stages run once more with live reads.
 */
async function runStagesOrLive(run: ReconcileRun, deps: PipelineDependencies, signal?: AbortSignal): Promise<StatusResult | undefined> {
  try {
    return await runStages(run, deps, signal);
  } catch (error) {
    if (signal?.aborted || !isStaleCacheSymptom(run, error)) throw error;
    deps.log?.info({ err: String(error) }, 'a read from the watch cache may have been stale; running again with live reads');
    restartLive(run);
    return runStages(run, deps, signal);
  }
}

/** restartLive forgets what the stages recorded on the run, keeping the job and its connections. */
function restartLive(run: ReconcileRun): void {
  const { job, ref, startedAt, connection, actionsConnection, reportingConnection, span } = run;
  for (const key of Object.keys(run)) delete (run as unknown as Record<string, unknown>)[key];
  Object.assign(run, { job, ref, startedAt, stage: 'fetch', connection, actionsConnection, reportingConnection, span, liveReads: true });
}

/** runStages is the list of stages; it returns the status record and Events of a run that got through apply. */
async function runStages(run: ReconcileRun, deps: PipelineDependencies, signal?: AbortSignal): Promise<StatusResult | undefined> {
  const fetched = await traced(run, 'fetch', () => fetchStage(run, deps));
  recordFetched(run, fetched);
  if (fetched.action === 'stallAgain' || fetched.action === 'fail') throw fetched.failure;
  signal?.throwIfAborted();
  if (fetched.action === 'skip') return undefined;
  await freezeCheck(run, deps);
  await windowCheck(run, deps);
  await preventionCheck(run, deps);
  await preDeleteStage(run, deps);
  run.wakes = await declarationsToWake(run, deps);
  run.deletion = await deletionStage(run, deps);
  if (isDeleted(run) || !run.desired) {
    if (run.live && deps.driftPrevention) deps.driftPrevention.mayRelease(run.job.cluster);
    return undefined;
  }
  run.ordering = await readOrdering(run, deps);
  run.hookState = await readHookRun(run, deps, run.ordering);
  await orderStage(run, deps, run.ordering);
  signal?.throwIfAborted();
  const validated = await validateStage(run, deps, { applyFollows: true });
  const defaulted = validated?.resource;
  const features = featuresStage(run, defaulted);
  const rendered = tracedSync(run, 'render', () => renderStage(run, defaulted, features));
  signal?.throwIfAborted();
  run.healthRules = await readHealthRules(run, deps);
  const before = previousInventory(run);
  const applied = await traced(run, 'apply', (span) => applyStage(run, deps, rendered, validated, span));
  // From here on, the live object is the one apply returned (a failure reports against it).
  run.live = applied.live;
  const pruned = await traced(run, 'prune', () => pruneStage(run, deps, before, applied));
  if (pruned.deleted.length > 0) deps.driftPrevention?.mayRelease(run.job.cluster);
  const kind = await actStage(run, deps, defaulted, applied.changes);
  const health = await traced(run, 'health', async (span) => {
    const verdict = await hookVerdictStage(run, deps, applied, healthStage(run, deps, applied, pruned.deleted, kind));
    traceHealthWait(run, span, verdict, deps.now?.() ?? new Date());
    return verdict;
  });
  run.span.set({ 'tidemark.health': health.status });
  run.outcome = { applied, pruned: pruned.deleted, kept: pruned.kept, kind, health };
  return statusStage(run, run.outcome, deps);
}

/** recordFetched puts what fetch read on the run, at the revision fetch admitted, for the stages after it. */
export function recordFetched(run: ReconcileRun, result: FetchResult): void {
  const { revision, ...read } = result.fetched;
  Object.assign(run, read, { job: { ...run.job, revision }, fetched: result.action });
  // The Placement rule's ServiceAccount, when it names one, replaces the source's for the rest of the run.
  if (read.placedAs) Object.assign(run, { connection: read.placedAs.connection, actionsConnection: read.placedAs.actionsConnection });
}

function startRun(job: ReconcileJob, deps: PipelineDependencies): ReconcileRun {
  const connections = runConnections(job, deps);
  return {
    job,
    ref: parseObjectKey(job.objectKey),
    startedAt: deps.now?.() ?? new Date(),
    stage: 'fetch',
    connection: connections.connection,
    actionsConnection: connections.actions,
    reportingConnection: connections.reporting,
    span: startRunSpan(job, deps),
  };
}
